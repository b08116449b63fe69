#include "stages/ncu/csv.hpp"

#include <fmt/format.h>

#include <sstream>

#include "core/error.hpp"
#include "core/settings.hpp"
#include "core/text.hpp"

namespace kprof {

CsvReader::CsvReader(std::istream& in, bool skip_messages)
    : in_(in), skip_messages_(skip_messages), max_record_(static_cast<uint64_t>(settings().max_line_bytes)) {}

void CsvReader::check_record_length() const {
  if (consumed_ - record_start_ <= max_record_) return;
  throw usage_error(fmt::format("line {} of the CSV is longer than {} (the limit on one line): not an ncu export, "
                                "or input that never ends a line",
                                record_line_, fmt_bytes(static_cast<double>(max_record_))),
                    "pass an export written by ncu --csv --page raw; a longer line is read with "
                    "KPROF_MAX_LINE_BYTES=BYTES");
}

bool CsvReader::fill() {
  if (!in_) return false;
  in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  len_ = static_cast<size_t>(in_.gcount());
  pos_ = 0;
  return len_ > 0;
}

void CsvReader::append_run(std::string& field, char first, bool quoted) {
  field += first;
  size_t end = pos_;
  if (quoted)
    while (end < len_ && buf_[end] != '"' && buf_[end] != '\n') ++end;
  else
    while (end < len_ && buf_[end] != ',' && buf_[end] != '\n' && buf_[end] != '\r' && buf_[end] != '"') ++end;
  field.append(buf_.data() + pos_, end - pos_);
  consumed_ += end - pos_;
  pos_ = end;
  check_record_length();
}

bool CsvReader::skip_message_line() {
  if (pos_ >= len_ && !fill()) return false;
  if (buf_[pos_] != '=') return false;
  while ((pos_ < len_ || fill()) && (++consumed_, buf_[pos_++] != '\n')) {
  }
  ++line_;
  return true;
}

bool CsvReader::next(CsvRecord& record) {
  // Fields are written in place into `record`'s strings, reusing their capacity from the last call.
  size_t n = 0;  // fields completed
  bool in_quotes = false;
  bool started = false;  // the record has at least one character or separator
  auto field = [&]() -> std::string& {
    if (record.size() <= n) record.emplace_back();
    return record[n];
  };
  auto start = [&] {
    if (!started) record_line_ = line_, record_start_ = consumed_ - 1, field().clear();
    started = true;
  };
  while (pos_ < len_ || fill()) {
    char c = buf_[pos_++];
    ++consumed_;
    if (in_quotes) {
      if (c != '"') {
        line_ += c == '\n';
        append_run(field(), c, /*quoted=*/true);
      } else if ((pos_ < len_ || fill()) && buf_[pos_] == '"') {  // "" inside quotes
        field() += '"';
        ++pos_;
        ++consumed_;
      } else {
        in_quotes = false;
      }
      continue;
    }
    if (!started && skip_messages_ && c == '=' && skip_message_line()) continue;  // "==PROF== ..."
    switch (c) {
      case '"':
        start();
        in_quotes = true;
        break;
      case ',':
        start();
        ++n;
        field().clear();
        break;
      case '\r':
        break;  // part of "\r\n"; a lone '\r' outside quotes is dropped
      case '\n':
        ++line_;
        if (!started) break;  // an empty line
        record.resize(++n);
        return true;
      default:
        start();
        append_run(field(), c, /*quoted=*/false);
    }
  }
  if (!started) {
    record.clear();
    return false;
  }
  record.resize(++n);
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
