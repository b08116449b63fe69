// Parsing `extern "C" void solve(...)` out of CUDA C++ source (see signature.hpp).
#include "kernel/signature.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "kernel/signature_lexer.hpp"

namespace kprof {
namespace {

const char* kSupportedTypes =
    "supported parameter types: pointers (optionally const / __restrict__) to float, double, "
    "half / __half, __nv_bfloat16 / nv_bfloat16, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, "
    "uint32_t, uint64_t, char, short, int, long, long long (and their unsigned forms), size_t; "
    "scalars of the same integer types, float or double";

const char* kSolveExample = "extern \"C\" void solve(const float* A, float* C, int N) { ... }";

/// Words of the built-in arithmetic types; any mix of them is resolved by resolve_builtin().
const std::set<std::string>& builtin_words() {
  static const std::set<std::string> v = {"signed", "unsigned", "char", "short", "int",
                                          "long",   "float",    "double", "void", "bool"};
  return v;
}

/// Named scalar types (after dropping a `std::` qualifier), LP64.
const std::map<std::string, DType>& named_types() {
  static const std::map<std::string, DType> v = {
      {"size_t", DType::U64},   {"ssize_t", DType::I64},   {"ptrdiff_t", DType::I64},
      {"intptr_t", DType::I64}, {"uintptr_t", DType::U64},
      {"int8_t", DType::I8},    {"int16_t", DType::I16},   {"int32_t", DType::I32},
      {"int64_t", DType::I64},  {"uint8_t", DType::U8},    {"uint16_t", DType::U16},
      {"uint32_t", DType::U32}, {"uint64_t", DType::U64},
      {"half", DType::F16},     {"__half", DType::F16},
      {"__nv_bfloat16", DType::BF16}, {"nv_bfloat16", DType::BF16}};
  return v;
}

/// Tokens that qualify a parameter without changing its element type.
const std::set<std::string>& ignored_qualifiers() {
  static const std::set<std::string> v = {"__restrict__", "__restrict",        "restrict", "volatile",
                                          "register",     "__grid_constant__", "struct"};
  return v;
}

/// Declaration words before `solve` that are not its return type.
const std::set<std::string>& decl_specifiers() {
  static const std::set<std::string> v = {"extern",   "static",       "inline",        "__inline__",
                                          "__forceinline__", "__host__", "__noinline__", "__attribute__",
                                          "__declspec", "visibility", "default", "used", "noinline"};
  return v;
}

/// Resolves a combination of built-in words ("unsigned long long int") to a DType.
std::optional<DType> resolve_builtin(const std::vector<std::string>& words) {
  std::map<std::string, int> n;
  for (const auto& w : words) ++n[w];
  bool is_unsigned = n["unsigned"] > 0;
  if (n["unsigned"] + n["signed"] > 1 || n["bool"] || n["void"]) return std::nullopt;
  if (n["float"]) return words.size() == 1 ? std::optional<DType>(DType::F32) : std::nullopt;
  if (n["double"]) return words.size() == 1 ? std::optional<DType>(DType::F64) : std::nullopt;
  int longs = n["long"], shorts = n["short"], chars = n["char"], ints = n["int"];
  if (ints > 1 || chars > 1 || longs > 2 || (chars && (ints || longs || shorts)) || (shorts && (longs || shorts > 1)))
    return std::nullopt;
  if (chars) {
    bool plain_signed = std::numeric_limits<char>::is_signed;  // plain char: the platform's choice
    if (is_unsigned || (!n["signed"] && !plain_signed)) return DType::U8;
    return DType::I8;
  }
  if (shorts) return is_unsigned ? DType::U16 : DType::I16;
  if (longs) return is_unsigned ? DType::U64 : DType::I64;  // LP64: long and long long are 64-bit
  return is_unsigned ? DType::U32 : DType::I32;             // int, signed, unsigned
}

[[noreturn]] void unsupported(const std::string& name, const std::string& type, const std::string& why = {}) {
  throw usage_error("solve() parameter '" + name + "' has an unsupported type '" + type + "'" +
                        (why.empty() ? "" : " (" + why + ")"),
                    kSupportedTypes);
}

/// Removes `__attribute__((...))`, `__declspec(...)`, `alignas(...)` and `[[...]]` groups.
std::vector<Token> drop_attributes(const std::vector<Token>& in) {
  std::vector<Token> out;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& t = in[i];
    bool call_like = t.kind == TokKind::Ident && (t.text == "__attribute__" || t.text == "__declspec" ||
                                                  t.text == "alignas" || t.text == "__align__");
    bool bracket = t.text == "[" && i + 1 < in.size() && in[i + 1].text == "[";
    if (!call_like && !bracket) { out.push_back(t); continue; }
    std::string open = call_like ? "(" : "[", close = call_like ? ")" : "]";
    size_t j = call_like ? i + 1 : i;
    if (j >= in.size() || in[j].text != open) { out.push_back(t); continue; }
    int depth = 0;
    for (; j < in.size(); ++j) {
      if (in[j].text == open) ++depth;
      if (in[j].text == close && --depth == 0) break;
    }
    i = j;
  }
  return out;
}

/// Parses one parameter's tokens (default value and attributes already removed).
Param parse_param(std::vector<Token> toks, size_t index) {
  std::string label = "#" + std::to_string(index + 1);
  // Array parameters (`float A[]`, `float A[16]`) are pointers.
  int arrays = 0, stars = 0;
  while (!toks.empty() && toks.back().text == "]") {
    auto open = std::find_if(toks.rbegin(), toks.rend(), [](const Token& t) { return t.text == "["; });
    if (open == toks.rend()) break;
    toks.erase(std::prev(open.base()), toks.end());
    ++arrays;
  }
  if (toks.empty()) throw usage_error("solve() parameter " + label + " is empty", kSolveExample);
  std::string name;
  if (toks.back().kind == TokKind::Ident && !builtin_words().count(toks.back().text) &&
      !named_types().count(toks.back().text) && toks.back().text != "const" &&
      !ignored_qualifiers().count(toks.back().text)) {
    name = toks.back().text;
    toks.pop_back();
  }
  bool const_before_star = false;
  std::vector<std::string> words;
  std::string written;  // the type as written, for messages
  for (size_t i = 0; i < toks.size(); ++i) {
    const auto& t = toks[i];
    if (!written.empty() && t.text != "*" && t.text != "::" && (i == 0 || toks[i - 1].text != "::"))
      written += ' ';
    written += t.text;
    if (ignored_qualifiers().count(t.text)) continue;
    if (t.text == "const") { if (stars == 0) const_before_star = true; continue; }
    if (t.text == "*") { ++stars; continue; }
    if (t.text == "::") continue;
    if (t.text == "std" && i + 1 < toks.size() && toks[i + 1].text == "::") continue;
    if (t.text == "&" || t.text == "&&")
      unsupported(name.empty() ? label : name, written, "references cannot be passed; use a pointer");
    if (t.kind != TokKind::Ident) unsupported(name.empty() ? label : name, written);
    words.push_back(t.text);
  }
  int pointers = stars + arrays;
  for (int k = 0; k < arrays; ++k) written += "[]";
  if (name.empty())
    throw usage_error("solve() parameter " + label + " ('" + written + "') has no name",
                      "kprof names buffers and dimensions after solve's parameters: write e.g. " +
                          std::string(kSolveExample));
  if (words.empty()) unsupported(name, written, "no type");
  std::optional<DType> dtype;
  bool all_builtin = std::all_of(words.begin(), words.end(), [](const std::string& w) { return builtin_words().count(w) > 0; });
  if (all_builtin) dtype = resolve_builtin(words);
  else if (words.size() == 1 && named_types().count(words[0])) dtype = named_types().at(words[0]);
  if (!dtype) {
    if (words.size() == 1 && words[0] == "void" && pointers == 1)
      unsupported(name, written, "a void* has no element type: use a typed pointer such as float*");
    unsupported(name, written);
  }
  if (pointers > 1) unsupported(name, written, "pointers to pointers are not supported");
  if (pointers == 0 && (*dtype == DType::F16 || *dtype == DType::BF16))
    unsupported(name, written, "half / bfloat16 scalars are not supported: take a float and convert inside solve");

  Param p;
  p.name = name;
  p.dtype = *dtype;
  p.is_pointer = pointers == 1;
  p.is_const = p.is_pointer && const_before_star;
  std::string base;
  for (const auto& w : words) base += (base.empty() ? "" : " ") + w;
  p.type_text = p.is_pointer ? (p.is_const ? "const " : "") + base + "*" : base;
  return p;
}

/// A `solve(` found at namespace scope.
struct Candidate {
  size_t open = 0;        ///< index of '('
  size_t close = 0;       ///< index of the matching ')'
  bool definition = false;
  int line = 0;
};

/// Checks the words before `solve` (its return type and specifiers) and throws for a kernel
/// (__global__) or a non-void return. Returns false when they cannot start a declaration.
bool check_specifiers(const std::vector<Token>& specs, int line) {
  if (specs.empty()) return false;
  const Token& prev = specs.back();
  // `x = solve(`, `f(solve(`, `return solve(`: a use, not a declaration.
  if (prev.kind == TokKind::Number || prev.text == "return" ||
      (prev.kind == TokKind::Punct && prev.text != "*" && prev.text != "&" && prev.text != ")" && prev.text != "]"))
    return false;
  std::vector<Token> words = drop_attributes(specs);
  // Only what follows the last ')' belongs to this declaration (earlier: a macro invocation).
  for (size_t k = words.size(); k-- > 0;)
    if (words[k].text == ")") { words.erase(words.begin(), words.begin() + static_cast<long>(k) + 1); break; }
  if (words.empty()) return false;
  bool has_void = false, has_host = false, has_global = false, has_device = false;
  std::vector<std::string> others;
  for (const auto& t : words) {
    if (t.kind == TokKind::String || decl_specifiers().count(t.text)) {
      has_host = has_host || t.text == "__host__";
      continue;
    }
    if (t.text == "void") has_void = true;
    else if (t.text == "__global__") has_global = true;
    else if (t.text == "__device__") has_device = true;
    else others.push_back(t.text);
  }
  std::string where = " (line " + std::to_string(line) + ")";
  if (has_global || (has_device && !has_host))
    throw usage_error("solve" + where + " is declared " + (has_global ? "__global__" : "__device__") +
                          ": it must be a host function that launches your kernel",
                      "write extern \"C\" void solve(...) { my_kernel<<<grid, block>>>(...); } and keep the "
                      "__global__ kernel under another name");
  bool pointer_return = std::find(others.begin(), others.end(), "*") != others.end();
  if (!has_void || pointer_return)
    throw usage_error("solve" + where + " must return void", kSolveExample);
  return true;
}

/// Finds every `solve(` at namespace / extern "C" scope (not in a function body, not a longer
/// name, not a member access or a call).
std::vector<Candidate> find_candidates(const std::vector<Token>& t) {
  std::vector<Candidate> found;
  std::vector<bool> scopes;  // true: a namespace or extern "C" block; false: anything else
  size_t decl_start = 0;     // first token of the current declaration at namespace scope
  for (size_t i = 0; i < t.size(); ++i) {
    bool at_ns = std::all_of(scopes.begin(), scopes.end(), [](bool b) { return b; });
    const std::string& x = t[i].text;
    if (t[i].kind == TokKind::Punct && x == "{") {
      bool ns = false;
      if (at_ns) {
        bool extern_block = i >= 2 && t[i - 1].kind == TokKind::String && t[i - 2].text == "extern";
        // `namespace {`, `namespace a {`, `namespace a::b {`
        size_t k = i;
        while (k > 0 && (t[k - 1].kind == TokKind::Ident || t[k - 1].text == "::") && t[k - 1].text != "namespace") --k;
        bool named_ns = k > 0 && t[k - 1].text == "namespace";
        ns = extern_block || named_ns;
      }
      scopes.push_back(ns);
      decl_start = i + 1;
      continue;
    }
    if (t[i].kind == TokKind::Punct && x == "}") {
      if (!scopes.empty()) scopes.pop_back();
      decl_start = i + 1;
      continue;
    }
    if (!at_ns) continue;
    if (t[i].kind == TokKind::Punct && x == ";") { decl_start = i + 1; continue; }
    if (t[i].kind != TokKind::Ident || x != "solve" || i + 1 >= t.size() || t[i + 1].text != "(") continue;
    if (i > 0 && (t[i - 1].text == "::" || t[i - 1].text == "." || t[i - 1].text == "->")) continue;
    std::vector<Token> specs(t.begin() + static_cast<long>(decl_start), t.begin() + static_cast<long>(i));
    if (!check_specifiers(specs, t[i].line)) continue;
    Candidate c;
    c.open = i + 1;
    c.line = t[i].line;
    int depth = 0;
    size_t j = c.open;
    for (; j < t.size(); ++j) {
      if (t[j].text == "(") ++depth;
      if (t[j].text == ")" && --depth == 0) break;
    }
    if (j >= t.size())
      throw usage_error("solve( at line " + std::to_string(c.line) + " has no closing ')'", kSolveExample);
    c.close = j;
    // After ')': '{' starts a definition, ';' ends a declaration (attributes/noexcept may come between).
    for (size_t k = j + 1; k < t.size(); ++k) {
      if (t[k].text == "{") { c.definition = true; break; }
      if (t[k].text == ";") break;
    }
    found.push_back(c);
    i = j;
  }
  return found;
}

}  // namespace

std::string Signature::to_string() const {
  std::string s = "solve(";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) s += ", ";
    s += params[i].type_text + " " + params[i].name;
  }
  return s + ")";
}

Signature parse_solve_signature(const std::string& source) {
  std::vector<Token> toks = lex_cxx(source);
  std::vector<Candidate> cands = find_candidates(toks);
  if (cands.empty())
    throw usage_error("no `extern \"C\" void solve(...)` found in the kernel source",
                      "a cuda-cpp / cutlass kernel must define its entry point as " + std::string(kSolveExample) +
                          " (outside comments and #if 0 blocks); for a Python kernel pass a .py file");
  // The definition is authoritative (a declaration may leave parameters unnamed).
  auto chosen = std::find_if(cands.begin(), cands.end(), [](const Candidate& c) { return c.definition; });
  if (chosen == cands.end()) chosen = cands.begin();

  std::vector<Token> inner(toks.begin() + static_cast<long>(chosen->open + 1),
                           toks.begin() + static_cast<long>(chosen->close));
  inner = drop_attributes(inner);
  Signature sig;
  if (inner.empty() || (inner.size() == 1 && inner[0].text == "void")) return sig;
  // Split on top-level commas; drop default values (`int N = 4`).
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;
  bool in_default = false;
  for (const auto& tk : inner) {
    if (tk.text == "(" || tk.text == "[" || tk.text == "{" || tk.text == "<") ++depth;
    if (tk.text == ")" || tk.text == "]" || tk.text == "}" || tk.text == ">") --depth;
    if (depth == 0 && tk.text == ",") { parts.emplace_back(); in_default = false; continue; }
    if (depth == 0 && tk.text == "=") in_default = true;
    if (!in_default) parts.back().push_back(tk);
  }
  std::set<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].size() == 3 && parts[i][0].text == "." && parts[i][2].text == ".")
      throw usage_error("solve() cannot be variadic", kSolveExample);
    Param p = parse_param(parts[i], i);
    if (!names.insert(p.name).second)
      throw usage_error("solve() has two parameters named '" + p.name + "'", kSolveExample);
    sig.params.push_back(p);
  }
  return sig;
}

}  // namespace kprof
