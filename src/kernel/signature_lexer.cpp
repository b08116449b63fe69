#include "kernel/signature_lexer.hpp"

#include <cctype>
#include <cstdlib>

#include "core/text.hpp"

namespace kprof {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

/// One `#if` group: whether the current branch is live, and whether an earlier branch was `#if 1`.
struct CondGroup {
  bool active = true;
  bool known_true = false;
};

/// The condition text of a directive with trailing comments removed ("0 // old" -> "0").
std::string directive_condition(const std::string& rest) {
  std::string c = rest;
  auto cut = c.find("//");
  if (cut != std::string::npos) c.resize(cut);
  cut = c.find("/*");
  if (cut != std::string::npos) c.resize(cut);
  return trim(c);
}

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}

  std::vector<Token> run(std::vector<std::string>* files) {
    while (i_ < s_.size()) step();
    if (files) *files = std::move(files_);
    return std::move(out_);
  }

 private:
  const std::string& s_;
  size_t i_ = 0;
  int line_ = 1;
  bool at_line_start_ = true;  // only whitespace (or comments) since the last newline
  std::vector<CondGroup> conds_;
  std::vector<Token> out_;
  std::vector<std::string> files_ = {""};
  int file_ = 0;                // index into files_ of the current line marker's file
  bool system_header_ = false;  // the current line marker says "system header" (flag 3)

  bool skipping() const {
    if (system_header_) return true;
    for (const auto& g : conds_)
      if (!g.active) return true;
    return false;
  }
  char peek(size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void emit(TokKind kind, std::string text, int line) {
    if (!skipping()) out_.push_back(Token{kind, std::move(text), line, file_});
  }

  void step() {
    char c = peek();
    if (c == '\n') {
      ++line_;
      ++i_;
      at_line_start_ = true;
      return;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i_;
      return;
    }
    if (c == '/' && peek(1) == '/') {
      skip_line_comment();
      return;
    }
    if (c == '/' && peek(1) == '*') {
      skip_block_comment();
      return;
    }
    if (c == '#' && at_line_start_) {
      directive();
      return;
    }
    if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {  // line splice
      i_ += peek(1) == '\n' ? 2 : 3;
      ++line_;
      return;
    }
    at_line_start_ = false;
    int line = line_;
    if (c == 'R' && peek(1) == '"') {
      raw_string(line);
      return;
    }
    if (c == '"' || c == '\'') {
      quoted(c, line);
      return;
    }
    if (ident_start(c)) {
      size_t b = i_;
      while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
      std::string word = s_.substr(b, i_ - b);
      // Encoding prefixes of literals: u8"..", L'x', u"..", U"..".
      if ((peek() == '"' || peek() == '\'') && (word == "u8" || word == "u" || word == "U" || word == "L")) {
        quoted(peek(), line);
        return;
      }
      emit(TokKind::Ident, word, line);
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
      size_t b = i_;
      // pp-number: digits, letters, '.', digit separators ('), exponent signs.
      while (i_ < s_.size()) {
        char d = s_[i_];
        if (ident_char(d) || d == '.' || (d == '\'' && ident_char(peek(1)))) {
          ++i_;
          continue;
        }
        if ((d == '+' || d == '-') && i_ > b && std::string("eEpP").find(s_[i_ - 1]) != std::string::npos) {
          ++i_;
          continue;
        }
        break;
      }
      emit(TokKind::Number, s_.substr(b, i_ - b), line);
      return;
    }
    if ((c == ':' && peek(1) == ':') || (c == '-' && peek(1) == '>')) {
      emit(TokKind::Punct, s_.substr(i_, 2), line);
      i_ += 2;
      return;
    }
    emit(TokKind::Punct, std::string(1, c), line);
    ++i_;
  }

  void skip_line_comment() {
    while (i_ < s_.size() && s_[i_] != '\n') {
      // A backslash-newline continues a // comment onto the next line.
      if (s_[i_] == '\\' && peek(1) == '\n') {
        ++line_;
        ++i_;
      }
      ++i_;
    }
  }

  void skip_block_comment() {
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) {
      if (s_[i_] == '\n') ++line_;
      ++i_;
    }
    i_ = i_ < s_.size() ? i_ + 2 : s_.size();
  }

  /// "..." or '...' with escapes; stops at an unescaped newline when unterminated.
  void quoted(char q, int line) {
    ++i_;
    std::string text;
    while (i_ < s_.size() && s_[i_] != q && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) {
        if (s_[i_ + 1] == '\n') ++line_;
        text += s_[i_];
        ++i_;
      }
      text += s_[i_];
      ++i_;
    }
    if (i_ < s_.size() && s_[i_] == q) ++i_;
    emit(TokKind::String, text, line);
  }

  /// R"delim( ... )delim"
  void raw_string(int line) {
    size_t open = s_.find('(', i_ + 2);
    if (open == std::string::npos) {
      emit(TokKind::Ident, "R", line);
      ++i_;
      return;
    }
    std::string close = ")" + s_.substr(i_ + 2, open - (i_ + 2)) + "\"";
    size_t end = s_.find(close, open + 1);
    size_t stop = end == std::string::npos ? s_.size() : end + close.size();
    std::string text = s_.substr(open + 1, (end == std::string::npos ? s_.size() : end) - open - 1);
    for (size_t k = i_; k < stop; ++k)
      if (s_[k] == '\n') ++line_;
    i_ = stop;
    emit(TokKind::String, text, line);
  }

  /// A preprocessor line (with continuations): tracks #if 0 groups, otherwise dropped.
  void directive() {
    ++i_;
    std::string text;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && peek(1) == '\n') {
        ++line_;
        i_ += 2;
        text += ' ';
        continue;
      }
      if (s_[i_] == '\\' && peek(1) == '\r' && peek(2) == '\n') {
        ++line_;
        i_ += 3;
        text += ' ';
        continue;
      }
      text += s_[i_++];
    }
    text = trim(text);
    size_t n = 0;
    while (n < text.size() && ident_char(text[n])) ++n;
    std::string name = text.substr(0, n);
    std::string cond = directive_condition(text.substr(n));
    if (n > 0 && std::isdigit(static_cast<unsigned char>(text[0]))) {
      line_marker(text);
      return;
    }
    if (name == "line") {
      line_marker(trim(text.substr(n)));
      return;
    }
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      CondGroup g;
      g.active = !(name == "if" && cond == "0");
      g.known_true = name == "if" && cond == "1";
      conds_.push_back(g);
    } else if (name == "elif" || name == "elifdef" || name == "elifndef") {
      if (!conds_.empty()) {
        auto& g = conds_.back();
        g.active = !g.known_true && !(name == "elif" && cond == "0");
        g.known_true = g.known_true || (name == "elif" && cond == "1");
      }
    } else if (name == "else") {
      if (!conds_.empty()) conds_.back().active = !conds_.back().known_true;
    } else if (name == "endif") {
      if (!conds_.empty()) conds_.pop_back();
    }
  }

  /// `12 "k.cu" 1 3`: the next line is line 12 of k.cu; flag 3 marks a system header.
  void line_marker(const std::string& text) {
    size_t n = 0;
    while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n]))) ++n;
    if (n == 0) return;
    line_ = std::atoi(text.substr(0, n).c_str()) - 1;  // the newline ending the marker adds one
    size_t q1 = text.find('"', n);
    size_t q2 = q1 == std::string::npos ? q1 : text.find('"', q1 + 1);
    if (q2 == std::string::npos) return;
    std::string name = text.substr(q1 + 1, q2 - q1 - 1);
    std::string flags = " " + text.substr(q2 + 1) + " ";
    system_header_ = flags.find(" 3 ") != std::string::npos;
    for (size_t k = 0; k < files_.size(); ++k)
      if (files_[k] == name) {
        file_ = static_cast<int>(k);
        return;
      }
    files_.push_back(name);
    file_ = static_cast<int>(files_.size() - 1);
  }
};

}  // namespace

std::vector<Token> lex_cxx(const std::string& source, std::vector<std::string>* files) {
  return Lexer(source).run(files);
}

}  // namespace kprof
