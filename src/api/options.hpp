// The option table: every option of every public command, stated once, and every face built from
// it (the command line and --help: cli/table_options.hpp; the Python API's signatures and .pyi,
// the MCP tools' input schemas and the pytest gate: python/kprof/_options.py over option_table_json()).
// A row's default is read from the constant of the stage that owns it (timing, ncu, analysis,
// verify, env, kernel, device); a default that is a rule (1500 ms, or 3000 with --iters; the
// implementation from the file's extension; atol from ref.py or the dtype) is stated as that rule.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kprof::api {

/// What an option's value is. Flag: present or not. Int / Number: one value (Number: a double).
/// Text / Path: one string. Texts / Paths: the option repeated, one value each time.
enum class OptionType { Flag, Int, Number, Text, Path, Texts, Paths };

/// One option of one or more commands.
struct OptionRow {
  std::string flag;                   ///< "--warmup-ms": the long name on the command line
  std::string short_name;             ///< "-o" or ""
  std::vector<std::string> commands;  ///< the commands that take it ("profile", "run", "__runner", ...)
  OptionType type = OptionType::Flag;
  std::string unit;                   ///< "ms", "s", "%", "calls", "" (none)
  std::vector<std::string> choices;   ///< allowed values ("kprof", "sections", "full"); empty = any
  std::optional<double> min, max;     ///< inclusive range of a number (min_exclusive: > min)
  bool min_exclusive = false;         ///< true: the value must be greater than min (a positive number)
  std::string field;                  ///< the request field it sets ("profile.warmup_ms", "call_timeout_s")
  std::string default_value;          ///< the default as the command line writes it ("100", "kprof"); "" none
  std::string default_rule;           ///< when the default is a rule, the rule in words ("" otherwise)
  std::string help;                   ///< the --help text (without the default, which --help adds)
  std::string alias_of;               ///< "--implementation" for "--backend": the same field under another name
  std::string needs;                  ///< an option it needs ("--decide", "--slurm", "--lock"), "" none
  std::vector<std::string> excludes;  ///< options it cannot be given with
  bool hidden = false;                ///< not shown in --help (internal or A/B measurement options)
  bool python = true;                 ///< a keyword of the Python API and a property of the MCP tools
  /// false: the command checks the choices itself with its own message (--implementation:
  /// core/implementation.hpp), so CLI11 does not.
  bool cli_checks_choices = true;

  /// The keyword of the Python API and the MCP property: the long name without "--", '-' -> '_'.
  std::string keyword() const;
  /// True when the row applies to `command`.
  bool in(const std::string& command) const;
};

/// The public commands, in --help order, each with its rows in the table.
const std::vector<std::string>& public_commands();

/// Every row, in the order --help lists them.
const std::vector<OptionRow>& option_table();

/// The row of `flag` ("--timeout") for `command` ("env"). Throws std::out_of_range when there is
/// none (a programming error: the command line registers only rows of the table).
const OptionRow& option_row(const std::string& command, const std::string& flag);

/// The rows of `command`, in table order.
std::vector<const OptionRow*> command_rows(const std::string& command);

/// The table as JSON for the Python package and the MCP server: {"kprof_version", "commands":
/// {name: [row, ...]}}, each row {flag, short, keyword, type, unit, choices, min, max,
/// min_exclusive, field, default, default_rule, help, needs, excludes, hidden, python}; a default is
/// typed (a number for Int/Number, a bool for a Flag, a string otherwise, null when none).
nlohmann::json option_table_json();

/// The options of `command` as a Markdown table (docs/OPTIONS.md is these tables, generated).
std::string option_table_markdown(const std::string& command);

/// The closest option keyword of `command` to `word` (Python's difflib ratio >= 0.6, then the
/// smallest edit distance), or "" when none is close.
std::string closest_keyword(const std::string& command, const std::string& word);

}  // namespace kprof::api
