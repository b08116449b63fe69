// Parsing `extern "C" void solve(...)` out of CUDA C++ source (see signature.hpp).
#include "kernel/signature.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "kernel/signature_lexer.hpp"
#include "kernel/signature_scan.hpp"

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
  static const std::set<std::string> v = {"signed", "unsigned", "char",   "short", "int",
                                          "long",   "float",    "double", "void",  "bool"};
  return v;
}

/// Named scalar types (after dropping a `std::` qualifier), LP64.
const std::map<std::string, DType>& named_types() {
  static const std::map<std::string, DType> v = {
      {"size_t", DType::U64},      {"ssize_t", DType::I64}, {"ptrdiff_t", DType::I64}, {"intptr_t", DType::I64},
      {"uintptr_t", DType::U64},   {"int8_t", DType::I8},   {"int16_t", DType::I16},   {"int32_t", DType::I32},
      {"int64_t", DType::I64},     {"uint8_t", DType::U8},  {"uint16_t", DType::U16},  {"uint32_t", DType::U32},
      {"uint64_t", DType::U64},    {"half", DType::F16},    {"__half", DType::F16},    {"__nv_bfloat16", DType::BF16},
      {"nv_bfloat16", DType::BF16}};
  return v;
}

/// Tokens that qualify a parameter without changing its element type.
const std::set<std::string>& ignored_qualifiers() {
  static const std::set<std::string> v = {"__restrict__", "__restrict",        "restrict", "volatile",
                                          "register",     "__grid_constant__", "struct"};
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
  throw usage_error(
      "solve() parameter '" + name + "' has an unsupported type '" + type + "'" + (why.empty() ? "" : " (" + why + ")"),
      kSupportedTypes);
}

/// Parses one parameter's tokens (default value and attributes already removed). An unnamed
/// parameter is an error when `need_name` (kprof names buffers after parameters), else name "".
Param parse_param(std::vector<Token> toks, size_t index, bool need_name) {
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
    if (!written.empty() && t.text != "*" && t.text != "::" && (i == 0 || toks[i - 1].text != "::")) written += ' ';
    written += t.text;
    if (ignored_qualifiers().count(t.text)) continue;
    if (t.text == "const") {
      if (stars == 0) const_before_star = true;
      continue;
    }
    if (t.text == "*") {
      ++stars;
      continue;
    }
    if (t.text == "::") continue;
    if (t.text == "std" && i + 1 < toks.size() && toks[i + 1].text == "::") continue;
    if (t.text == "&" || t.text == "&&")
      unsupported(name.empty() ? label : name, written, "references cannot be passed; use a pointer");
    if (t.kind != TokKind::Ident) unsupported(name.empty() ? label : name, written);
    words.push_back(t.text);
  }
  int pointers = stars + arrays;
  for (int k = 0; k < arrays; ++k) written += "[]";
  if (name.empty() && need_name)
    throw usage_error(
        "solve() parameter " + label + " ('" + written + "') has no name",
        "kprof names buffers and dimensions after solve's parameters: write e.g. " + std::string(kSolveExample));
  if (name.empty()) name = label;  // for messages only; reset below
  if (words.empty()) unsupported(name, written, "no type");
  std::optional<DType> dtype;
  bool all_builtin =
      std::all_of(words.begin(), words.end(), [](const std::string& w) { return builtin_words().count(w) > 0; });
  if (all_builtin)
    dtype = resolve_builtin(words);
  else if (words.size() == 1 && named_types().count(words[0]))
    dtype = named_types().at(words[0]);
  if (!dtype) {
    if (words.size() == 1 && words[0] == "void" && pointers == 1)
      unsupported(name, written, "a void* has no element type: use a typed pointer such as float*");
    unsupported(name, written);
  }
  if (pointers > 1) unsupported(name, written, "pointers to pointers are not supported");
  if (pointers == 0 && (*dtype == DType::F16 || *dtype == DType::BF16))
    unsupported(name, written, "half / bfloat16 scalars are not supported: take a float and convert inside solve");

  Param p;
  p.name = name == label ? "" : name;
  p.dtype = *dtype;
  p.is_pointer = pointers == 1;
  p.is_const = p.is_pointer && const_before_star;
  std::string base;
  for (const auto& w : words) base += (base.empty() ? "" : " ") + w;
  p.type_text = p.is_pointer ? (p.is_const ? "const " : "") + base + "*" : base;
  return p;
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

namespace {

/// Type aliases of the source: `typedef T NAME;` and `using NAME = T;` (anywhere; a later one
/// wins), as the tokens of T. Names that already are types kprof knows are not collected, so
/// size_t or __half stay as written.
using Aliases = std::map<std::string, std::vector<Token>>;
Aliases type_aliases(const std::vector<Token>& toks) {
  Aliases out;
  auto known = [](const std::string& w) { return builtin_words().count(w) || named_types().count(w); };
  for (size_t i = 0; i < toks.size(); ++i) {
    std::vector<Token> type;
    std::string name;
    size_t j = i + 1;
    if (toks[i].text == "typedef") {
      while (j < toks.size() && toks[j].text != ";" && toks[j].text != "{" && toks[j].text != "(")
        type.push_back(toks[j++]);
      if (j >= toks.size() || toks[j].text != ";" || type.size() < 2 || type.back().kind != TokKind::Ident) continue;
      name = type.back().text;
      type.pop_back();
    } else if (toks[i].text == "using" && i + 3 < toks.size() && toks[i + 1].kind == TokKind::Ident &&
               toks[i + 2].text == "=") {
      for (j = i + 3; j < toks.size() && toks[j].text != ";"; ++j) type.push_back(toks[j]);
      if (j >= toks.size() || type.empty()) continue;
      name = toks[i + 1].text;
    } else {
      continue;
    }
    if (!known(name)) out[name] = type;
  }
  return out;
}

/// `part` (one parameter's tokens) with its type's aliases replaced by what they name (nested
/// aliases too, at most 8 deep); the last token (the parameter's name) is kept as written.
std::vector<Token> expand_aliases(std::vector<Token> part, const Aliases& aliases) {
  if (aliases.empty() || part.size() < 2) return part;
  for (int round = 0; round < 8; ++round) {
    std::vector<Token> out;
    bool changed = false;
    for (size_t i = 0; i < part.size(); ++i) {
      auto it = i + 1 < part.size() && part[i].kind == TokKind::Ident ? aliases.find(part[i].text) : aliases.end();
      if (it == aliases.end()) {
        out.push_back(part[i]);
        continue;
      }
      out.insert(out.end(), it->second.begin(), it->second.end());
      changed = true;
    }
    part = std::move(out);
    if (!changed) break;
  }
  return part;
}

/// The parameters between `open` and `close` (token indices of the parentheses), type aliases of
/// `aliases` resolved.
std::vector<Param> parse_params(const std::vector<Token>& toks, size_t open, size_t close, bool need_names,
                                const Aliases& aliases = {}) {
  std::vector<Token> inner(toks.begin() + static_cast<long>(open + 1), toks.begin() + static_cast<long>(close));
  inner = drop_attributes(inner);
  std::vector<Param> params;
  if (inner.empty() || (inner.size() == 1 && inner[0].text == "void")) return params;
  // Split on top-level commas; drop default values (`int N = 4`).
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;
  bool in_default = false;
  for (const auto& tk : inner) {
    if (tk.text == "(" || tk.text == "[" || tk.text == "{" || tk.text == "<") ++depth;
    if (tk.text == ")" || tk.text == "]" || tk.text == "}" || tk.text == ">") --depth;
    if (depth == 0 && tk.text == ",") {
      parts.emplace_back();
      in_default = false;
      continue;
    }
    if (depth == 0 && tk.text == "=") in_default = true;
    if (!in_default) parts.back().push_back(tk);
  }
  std::set<std::string> names;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].size() == 3 && parts[i][0].text == "." && parts[i][2].text == ".")
      throw usage_error("solve() cannot be variadic", kSolveExample);
    Param p = parse_param(expand_aliases(parts[i], aliases), i, need_names);
    if (!p.name.empty() && !names.insert(p.name).second)
      throw usage_error("solve() has two parameters named '" + p.name + "'", kSolveExample);
    params.push_back(p);
  }
  return params;
}

bool same_types(const std::vector<Param>& a, const std::vector<Param>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype != b[i].dtype || a[i].is_pointer != b[i].is_pointer || a[i].is_const != b[i].is_const) return false;
  return true;
}

/// Itanium C++ ABI code of a parameter's base type as written ("f", "m" for size_t, "6__half"),
/// "" when unknown.
std::string itanium_base(const std::string& base) {
  static const std::map<std::string, std::string> named = {{"size_t", "m"},
                                                           {"ssize_t", "l"},
                                                           {"ptrdiff_t", "l"},
                                                           {"intptr_t", "l"},
                                                           {"uintptr_t", "m"},
                                                           {"int8_t", "a"},
                                                           {"int16_t", "s"},
                                                           {"int32_t", "i"},
                                                           {"int64_t", "l"},
                                                           {"uint8_t", "h"},
                                                           {"uint16_t", "t"},
                                                           {"uint32_t", "j"},
                                                           {"uint64_t", "m"},
                                                           {"half", "6__half"},
                                                           {"__half", "6__half"},
                                                           {"__nv_bfloat16", "13__nv_bfloat16"},
                                                           {"nv_bfloat16", "13__nv_bfloat16"}};
  if (auto it = named.find(base); it != named.end()) return it->second;
  std::map<std::string, int> n;
  for (const auto& w : split(base, ' ')) {
    if (!builtin_words().count(w)) return "";
    ++n[w];
  }
  bool u = n["unsigned"] > 0;
  if (n["float"]) return "f";
  if (n["double"]) return "d";
  if (n["char"]) return u ? "h" : n["signed"] ? "a" : "c";
  if (n["short"]) return u ? "t" : "s";
  if (n["long"] == 2) return u ? "y" : "x";
  if (n["long"] == 1) return u ? "m" : "l";
  return u ? "j" : "i";
}

}  // namespace

std::string mangled_solve_name(const std::vector<Param>& params) {
  std::string out = "_Z5solve";
  if (params.empty()) return out + "v";
  std::vector<std::string> subs;  // substitution candidates, in order (S_, S0_, S1_, ...)
  auto ref = [&](size_t i) {      // S_, then S<seq-id>_ with seq-id i-1 in base 36 (0-9, A-Z)
    if (i == 0) return std::string("S_");
    std::string id;
    for (size_t n = i - 1;; n /= 36) {
      id.insert(id.begin(), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36]);
      if (n < 36) break;
    }
    return "S" + id + "_";
  };
  for (const auto& p : params) {
    std::string base = p.type_text;
    for (const char* drop : {"const ", "*"})
      if (auto at = base.find(drop); at != std::string::npos) base.erase(at, std::string(drop).size());
    std::string code = itanium_base(trim(base));
    if (code.empty()) return "";
    bool is_class = code.size() > 1;  // builtin types have one-letter codes
    // Layers from the inside out: the base type, then const (pointers only), then the pointer.
    std::vector<std::string> layers = {code};
    if (p.is_pointer && p.is_const) layers.push_back("K");
    if (p.is_pointer) layers.push_back("P");
    std::function<std::string(size_t)> mangle = [&](size_t n) -> std::string {
      if (n == 1 && !is_class) return code;  // builtin types are never substituted
      std::string key;
      for (size_t k = 0; k < n; ++k) key += layers[k] + "|";
      auto found = std::find(subs.begin(), subs.end(), key);
      if (found != subs.end()) return ref(static_cast<size_t>(found - subs.begin()));
      std::string enc = n == 1 ? code : layers[n - 1] + mangle(n - 1);
      subs.push_back(key);
      return enc;
    };
    out += mangle(layers.size());
  }
  return out;
}

Signature parse_solve_signature(const std::string& text, bool preprocessed) {
  std::vector<std::string> files;
  std::vector<Token> toks = lex_cxx(text, &files);
  std::vector<SolveDecl> decls = find_solve_decls(toks);
  auto where = [&](const SolveDecl& d) {
    const std::string& f = files.at(static_cast<size_t>(d.file));
    return f.empty() ? "line " + std::to_string(d.line) : f + ":" + std::to_string(d.line);
  };
  auto host = [](const SolveDecl& d) { return !d.global_fn && !d.device_only; };
  std::vector<const SolveDecl*> c_defs, c_decls;
  for (const auto& d : decls)
    if (d.c_linkage && !d.internal && host(d)) (d.definition ? c_defs : c_decls).push_back(&d);
  const SolveDecl* chosen = c_defs.empty() ? nullptr : c_defs.front();
  Signature sig;
  if (c_defs.size() > 1)
    sig.notes.push_back("extern \"C\" solve() is defined " + std::to_string(c_defs.size()) + " times (" +
                        where(*c_defs[0]) + ", " + where(*c_defs[1]) +
                        (preprocessed ? ")" : "; in different preprocessor branches?)") + ": kprof read the first");
  if (!chosen && !c_decls.empty()) {
    // `extern "C" void solve(float*, int);` then `void solve(float* a, int n) { ... }`: the
    // definition inherits C linkage from the declaration when the parameter types match.
    auto declared = parse_params(toks, c_decls.front()->open, c_decls.front()->close, false);
    for (const auto& d : decls)
      if (!chosen && !d.c_linkage && !d.internal && d.ns.empty() && d.definition && host(d) &&
          same_types(parse_params(toks, d.open, d.close, false), declared))
        chosen = &d;
    if (!chosen) chosen = c_decls.front();
  }
  if (chosen) {
    if (!chosen->returns_void) throw usage_error("solve (" + where(*chosen) + ") must return void", kSolveExample);
    sig.params = parse_params(toks, chosen->open, chosen->close, true, type_aliases(toks));
    sig.file = files.at(static_cast<size_t>(chosen->file));
    sig.line = chosen->line;
    return sig;
  }
  for (const auto& d : decls)
    if (d.c_linkage && !d.internal && !host(d))
      throw usage_error("solve (" + where(d) + ") is declared " + (d.global_fn ? "__global__" : "__device__") +
                            ": it must be a host function that launches your kernel",
                        "write extern \"C\" void solve(...) { my_kernel<<<grid, block>>>(...); } and keep the "
                        "__global__ kernel under another name");
  std::string ignored;
  for (const auto& d : decls) {
    if (!d.c_linkage && !d.internal && d.ns.empty() && host(d)) {
      std::string mangled;
      try {
        mangled = mangled_solve_name(parse_params(toks, d.open, d.close, false));
      } catch (const Error&) {
      }
      throw usage_error("solve (" + where(d) + ") is not extern \"C\": the .so exports it under its mangled C++ name " +
                            (mangled.empty() ? "_Z5solve..." : mangled) + ", and kprof calls the symbol `solve`",
                        "declare it as extern \"C\" void solve(...) { ... } so its name is not mangled, then rebuild");
    }
    ignored += std::string(ignored.empty() ? "" : "; ") + "solve at " + where(d) + " (" +
               (d.internal ? "static or in an unnamed namespace"
                : !host(d) ? (d.global_fn ? "a __global__ kernel" : "a __device__ function")
                           : "C++ linkage in namespace " + d.ns) +
               ")";
  }
  throw usage_error(
      "no `extern \"C\" void solve(...)` found in the kernel source" +
          (ignored.empty() ? std::string() : "; ignored, as the .so does not export them as `solve`: " + ignored),
      "a cuda-cpp / cutlass kernel must define its entry point as " + std::string(kSolveExample) +
          " (at namespace scope, not static, outside comments and disabled #if branches); for a "
          "Python kernel pass a .py file");
}

}  // namespace kprof
