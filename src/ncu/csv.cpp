#include "ncu/csv.hpp"

#include <sstream>

namespace kprof {

bool CsvReader::fill() {
  if (!in_) return false;
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  len_ = static_cast<size_t>(in_.gcount());
  pos_ = 0;
  return len_ > 0;
}

bool CsvReader::next(CsvRecord& record) {
  // Fields are written in place into `record`'s strings, reusing their capacity from the last call.
  size_t n = 0;              // fields completed
  bool in_quotes = false;
  bool started = false;      // the record has at least one character or separator
  bool at_line_start = true;
  auto field = [&]() -> std::string& {
    if (record.size() <= n) record.emplace_back();
    return record[n];
  };
  auto finish_field = [&] { ++n; };
  if (!record.empty()) record[0].clear();
  while (true) {
    if (pos_ >= len_ && !fill()) break;
    char c = buf_[pos_++];
    ++consumed_;
    if (in_quotes) {
      if (c == '"') {
        if (pos_ >= len_ && !fill()) { in_quotes = false; break; }
        if (buf_[pos_] == '"') {
          field() += '"';
          ++pos_;
          ++consumed_;
        } else {
          in_quotes = false;
        }
        continue;
      }
      if (c == '\n') ++line_;
      std::string& f = field();
      f += c;
      // Copy the rest of the quoted text up to the next quote or newline in one go.
      size_t end = pos_;
      while (end < len_ && buf_[end] != '"' && buf_[end] != '\n') ++end;
      f.append(buf_.data() + pos_, end - pos_);
      consumed_ += end - pos_;
      pos_ = end;
      continue;
    }
    if (at_line_start && !started && skip_messages_ && c == '=') {
      if (pos_ >= len_ && !fill()) break;
      if (buf_[pos_] == '=') {  // a "==PROF==" line: drop it whole
        while (true) {
          if (pos_ >= len_ && !fill()) break;
          ++consumed_;
          if (buf_[pos_++] == '\n') break;
        }
        ++line_;
        continue;
      }
    }
    at_line_start = false;
    switch (c) {
      case '"':
        if (!started) record_line_ = line_, field().clear();
        in_quotes = true;
        started = true;
        break;
      case ',':
        if (!started) record_line_ = line_, field().clear();
        finish_field();
        field().clear();
        started = true;
        break;
      case '\r':
        break;  // part of "\r\n"; a lone '\r' outside quotes is dropped
      case '\n':
        ++line_;
        at_line_start = true;
        if (started) {
          finish_field();
          record.resize(n);
          return true;
        }
        break;
      default: {
        if (!started) record_line_ = line_, field().clear();
        started = true;
        // Copy the rest of a plain field in one go.
        size_t end = pos_;
        while (end < len_ && buf_[end] != ',' && buf_[end] != '\n' && buf_[end] != '\r' && buf_[end] != '"') ++end;
        std::string& f = field();
        f += c;
        f.append(buf_.data() + pos_, end - pos_);
        consumed_ += end - pos_;
        pos_ = end;
      }
    }
  }
  if (!started) {
    record.clear();
    return false;
  }
  finish_field();
  record.resize(n);
  return true;
}

std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::istringstream in(text);
  CsvReader reader(in);
  std::vector<CsvRecord> records;
  CsvRecord rec;
  while (reader.next(rec)) records.push_back(rec);
  return records;
}

}  // namespace kprof
