// A small C++ tokenizer, just enough to find and read `extern "C" void solve(...)` in a .cu file.
#pragma once

#include <string>
#include <vector>

namespace kprof {

/// Kind of a C++ token.
enum class TokKind { Ident, Punct, String, Number };

/// One token. `text` of a String token is its contents without the quotes ("C" -> C).
struct Token {
  TokKind kind = TokKind::Punct;
  std::string text;
  int line = 1;  ///< 1-based source line (of `file`, when the text carries line markers)
  int file = 0;  ///< index into the file list lex_cxx fills; 0 = the text itself
};

/// Splits C++/CUDA source into tokens:
/// - `//` and `/* */` comments are dropped (an unterminated block comment ends the file);
/// - string and char literals become one token each, so `solve` inside a string is never an
///   identifier; a literal ends at its line's end when unterminated (robust to prose in `#if 0`);
/// - preprocessor directives (with `\` continuations) are dropped, and the text inside
///   `#if 0 ... #else/#elif/#endif` is skipped; any other condition is assumed true;
/// - a backslash-newline (line splice) inside code joins the two lines, as the preprocessor does;
/// - line markers of preprocessed text (`# 12 "k.cu" 2`, `#line 12 "k.cu"`) set each token's
///   file and line; tokens of system headers (marker flag 3) are dropped, since no kernel's
///   solve() lives there. `files` (optional) receives the file names, index 0 = "" (the text);
/// - `::` and `->` are single Punct tokens; other punctuation is one character per token.
/// Never throws.
std::vector<Token> lex_cxx(const std::string& source, std::vector<std::string>* files = nullptr);

}  // namespace kprof
