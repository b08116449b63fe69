// Reading a Python file (ref.py, a triton / cute-dsl kernel module) with Python's `ast`, without
// running it or importing what it imports, so a broken file is an input error (exit 2) before any
// GPU work.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kprof {

/// Checks that `path` parses and binds every name of `names` (a def, an assignment or an import;
/// a star import may provide them). Throws usage_error (exit 2): a syntax error as
/// "path:line: SyntaxError: msg in `line text`" with `syntax_hint`; a missing name as
/// "path defines no function `name`" with `missing_hint`. Returns without checking a file that
/// does not end in .py, cannot be read (the loader reports that) or when Python cannot start.
void check_python_source(const std::string& path, const std::vector<std::string>& names, const std::string& syntax_hint,
                         const std::string& missing_hint);

/// Checks a triton / cute-dsl kernel module: it parses and binds `setup` and `run_kernel`
/// (check_python_source). Throws usage_error (exit 2).
void check_kernel_module_source(const std::string& path);

/// The parameter names of the module-level `def name(...)` of `path` (ast, not run), "**" for a
/// **kwargs catch-all; nullopt when there is none, the file does not parse or Python cannot start.
std::optional<std::vector<std::string>> python_function_params(const std::string& path, const std::string& name);

}  // namespace kprof
