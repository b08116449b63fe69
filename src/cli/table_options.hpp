// Registers an option on a CLI11 subcommand from its row of the option table (api/options.hpp):
// its names, help, default shown by --help, choices, range and visibility all come from the row;
// the command only binds the row to the field of its typed request.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "cli/validators.hpp"

namespace kprof {

/// Applies `row`'s default text, choices, range and visibility to `opt`.
inline CLI::Option* apply_row(CLI::Option* opt, const api::OptionRow& row) {
  if (!row.default_value.empty()) opt->default_str(row.default_value);
  if (!row.choices.empty() && row.cli_checks_choices) opt->check(CLI::IsMember(row.choices));
  if (row.min && row.min_exclusive && *row.min == 0)
    opt->check(positive_number());
  else if (row.min && row.max)
    opt->check(CLI::Range(*row.min, *row.max));
  else if (row.min && *row.min == 0)
    opt->check(non_negative_number());
  if (row.type == api::OptionType::Texts || row.type == api::OptionType::Paths) opt->allow_extra_args(false);
  if (row.hidden) opt->group("");
  return opt;
}

/// Adds option `flag` of command `command` (its table row) to `sub`, bound to `target`: a flag for
/// a bool, an option with a value otherwise. Throws std::out_of_range for a flag not in the table.
template <class V>
CLI::Option* add_table_option(CLI::App* sub, const std::string& command, const std::string& flag, V& target) {
  const api::OptionRow& row = api::option_row(command, flag);
  const std::string names = row.short_name.empty() ? row.flag : row.flag + "," + row.short_name;
  CLI::Option* opt;
  if constexpr (std::is_same_v<V, bool>)
    opt = sub->add_flag(names, target, row.help);
  else
    opt = sub->add_option(names, target, row.help);
  return apply_row(opt, row);
}

/// A flag of the table whose effect is `fn` (for two flags that set one field: --source / --no-source).
template <class F>
CLI::Option* add_table_flag_callback(CLI::App* sub, const std::string& command, const std::string& flag, F fn) {
  const api::OptionRow& row = api::option_row(command, flag);
  return apply_row(sub->add_flag_callback(row.flag, fn, row.help), row);
}

}  // namespace kprof
