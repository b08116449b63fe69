// Finding the namespace-scope declarations of `solve` and their linkage (see signature_scan.hpp).
#include "kernel/signature_scan.hpp"

#include <algorithm>
#include <set>

#include "core/error.hpp"

namespace kprof {
namespace {

/// Declaration words before `solve` that are not its return type.
const std::set<std::string>& decl_specifiers() {
  static const std::set<std::string> v = {"extern",   "static",       "inline",        "__inline__", "__forceinline__",
                                          "__host__", "__noinline__", "__attribute__", "__declspec", "visibility",
                                          "default",  "used",         "noinline"};
  return v;
}

/// What a `{` opened.
enum class ScopeKind { Namespace, Unnamed, ExternC, ExternCxx, Other };

struct Scope {
  ScopeKind kind = ScopeKind::Other;
  std::string name;  ///< a named namespace's name ("a::b")
};

/// The scope a `{` at token `i` opens, when the enclosing scopes are all namespace-like.
Scope scope_opened(const std::vector<Token>& t, size_t i) {
  if (i >= 2 && t[i - 1].kind == TokKind::String && t[i - 2].text == "extern")
    return {t[i - 1].text == "C" ? ScopeKind::ExternC : ScopeKind::ExternCxx, ""};
  // `namespace {`, `namespace a {`, `namespace a::b {`, `inline namespace v1 {`
  size_t k = i;
  while (k > 0 && (t[k - 1].kind == TokKind::Ident || t[k - 1].text == "::") && t[k - 1].text != "namespace") --k;
  if (k == 0 || t[k - 1].text != "namespace") return {};
  if (k == i) return {ScopeKind::Unnamed, ""};
  std::string name;
  for (size_t j = k; j < i; ++j) name += t[j].text;
  return {ScopeKind::Namespace, name};
}

/// Reads the words before `solve` (return type and specifiers) into `d`. Returns false when
/// they cannot start a declaration (`x = solve(`, `return solve(`, a template).
bool read_specifiers(const std::vector<Token>& specs, SolveDecl& d) {
  if (specs.empty()) return false;
  const Token& prev = specs.back();
  // `x = solve(`, `f(solve(`, `return solve(`, `template <...> void solve(`: not a plain declaration.
  if (prev.kind == TokKind::Number || prev.text == "return" ||
      (prev.kind == TokKind::Punct && prev.text != "*" && prev.text != "&" && prev.text != ")" && prev.text != "]"))
    return false;
  // nvcc's host preprocessing turns __global__ / __device__ / __host__ into
  // __attribute__((global)) / ((device)) / ((host)): read them before attributes are dropped.
  bool has_void = false, has_host = false, has_device = false, pointer_return = false;
  for (size_t k = 0; k + 3 < specs.size(); ++k)
    if (specs[k].text == "__attribute__" && specs[k + 1].text == "(" && specs[k + 2].text == "(") {
      const std::string& a = specs[k + 3].text;
      d.global_fn = d.global_fn || a == "global";
      has_device = has_device || a == "device";
      has_host = has_host || a == "host";
    }
  std::vector<Token> words = drop_attributes(specs);
  // Only what follows the last ')' belongs to this declaration (earlier: a macro invocation).
  for (size_t k = words.size(); k-- > 0;)
    if (words[k].text == ")") {
      words.erase(words.begin(), words.begin() + static_cast<long>(k) + 1);
      break;
    }
  if (words.empty()) return false;
  for (size_t k = 0; k < words.size(); ++k) {
    const Token& w = words[k];
    if (w.text == "template") return false;
    if (w.text == "extern" && k + 1 < words.size() && words[k + 1].kind == TokKind::String)
      d.c_linkage = words[k + 1].text == "C";
    if (w.text == "static") d.internal = true;
    if (w.kind == TokKind::String || decl_specifiers().count(w.text)) {
      has_host = has_host || w.text == "__host__";
      continue;
    }
    if (w.text == "void")
      has_void = true;
    else if (w.text == "__global__")
      d.global_fn = true;
    else if (w.text == "__device__")
      has_device = true;
    else if (w.text == "*" || w.text == "&")
      pointer_return = true;
  }
  d.device_only = has_device && !has_host;
  d.returns_void = has_void && !pointer_return;
  return true;
}

}  // namespace

std::vector<Token> drop_attributes(const std::vector<Token>& in) {
  std::vector<Token> out;
  for (size_t i = 0; i < in.size(); ++i) {
    const auto& t = in[i];
    bool call_like = t.kind == TokKind::Ident && (t.text == "__attribute__" || t.text == "__declspec" ||
                                                  t.text == "alignas" || t.text == "__align__");
    bool bracket = t.text == "[" && i + 1 < in.size() && in[i + 1].text == "[";
    if (!call_like && !bracket) {
      out.push_back(t);
      continue;
    }
    std::string open = call_like ? "(" : "[", close = call_like ? ")" : "]";
    size_t j = call_like ? i + 1 : i;
    if (j >= in.size() || in[j].text != open) {
      out.push_back(t);
      continue;
    }
    int depth = 0;
    for (; j < in.size(); ++j) {
      if (in[j].text == open) ++depth;
      if (in[j].text == close && --depth == 0) break;
    }
    i = j;
  }
  return out;
}

std::vector<SolveDecl> find_solve_decls(const std::vector<Token>& t) {
  std::vector<SolveDecl> found;
  std::vector<Scope> scopes;
  size_t decl_start = 0;  // first token of the current declaration at namespace scope
  for (size_t i = 0; i < t.size(); ++i) {
    bool at_ns = std::all_of(scopes.begin(), scopes.end(), [](const Scope& s) { return s.kind != ScopeKind::Other; });
    const std::string& x = t[i].text;
    if (t[i].kind == TokKind::Punct && x == "{") {
      scopes.push_back(at_ns ? scope_opened(t, i) : Scope{});
      decl_start = i + 1;
      continue;
    }
    if (t[i].kind == TokKind::Punct && x == "}") {
      if (!scopes.empty()) scopes.pop_back();
      decl_start = i + 1;
      continue;
    }
    if (!at_ns) continue;
    if (t[i].kind == TokKind::Punct && x == ";") {
      decl_start = i + 1;
      continue;
    }
    if (t[i].kind != TokKind::Ident || x != "solve" || i + 1 >= t.size() || t[i + 1].text != "(") continue;
    if (i > 0 && (t[i - 1].text == "::" || t[i - 1].text == "." || t[i - 1].text == "->")) continue;
    SolveDecl d;
    // The innermost linkage block decides unless the declaration says extern "..." itself.
    for (auto s = scopes.rbegin(); s != scopes.rend(); ++s)
      if (s->kind == ScopeKind::ExternC || s->kind == ScopeKind::ExternCxx) {
        d.c_linkage = s->kind == ScopeKind::ExternC;
        break;
      }
    for (const auto& s : scopes) {
      if (s.kind == ScopeKind::Unnamed) d.internal = true;
      if (s.kind == ScopeKind::Namespace) d.ns += (d.ns.empty() ? "" : "::") + s.name;
    }
    std::vector<Token> specs(t.begin() + static_cast<long>(decl_start), t.begin() + static_cast<long>(i));
    if (!read_specifiers(specs, d)) continue;
    d.open = i + 1;
    d.line = t[i].line;
    d.file = t[i].file;
    int depth = 0;
    size_t j = d.open;
    for (; j < t.size(); ++j) {
      if (t[j].text == "(") ++depth;
      if (t[j].text == ")" && --depth == 0) break;
    }
    if (j >= t.size())
      throw usage_error("solve( at line " + std::to_string(d.line) + " has no closing ')'",
                        "extern \"C\" void solve(const float* A, float* C, int N) { ... }");
    d.close = j;
    // After ')': '{' starts a definition, ';' ends a declaration (attributes/noexcept may come between).
    for (size_t k = j + 1; k < t.size(); ++k) {
      if (t[k].text == "{") {
        d.definition = true;
        break;
      }
      if (t[k].text == ";") break;
    }
    found.push_back(d);
    i = j;
  }
  return found;
}

}  // namespace kprof
