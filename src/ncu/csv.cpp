#include "ncu/csv.hpp"

namespace kprof {

std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  bool in_quotes = false;
  bool field_started = false;  // the current record has at least one character or separator

  auto end_field = [&] {
    record.push_back(field);
    field.clear();
  };
  auto end_record = [&] {
    if (field_started) {
      end_field();
      records.push_back(std::move(record));
    }
    record.clear();
    field.clear();
    field_started = false;
  };

  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          in_quotes = false;
        }
      } else {
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_quotes = true;
        field_started = true;
        break;
      case ',':
        end_field();
        field_started = true;
        break;
      case '\r':
        break;  // part of "\r\n"; a lone '\r' inside a field is dropped
      case '\n':
        end_record();
        break;
      default:
        field += c;
        field_started = true;
    }
  }
  end_record();
  return records;
}

}  // namespace kprof
