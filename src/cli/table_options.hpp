// Registers an option on a CLI11 subcommand from its row of the option table (api/options.hpp):
// its names, help, default shown by --help, choices, range and visibility all come from the row;
// the command only binds the row to the field of its typed request.
#pragma once

#include <CLI/CLI.hpp>

#include <set>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "cli/validators.hpp"

namespace kprof {

/// Applies `row`'s default text, choices, range and visibility to `opt`. An INT or FLOAT row gets
/// one check (validators.hpp NumberRule: "must be an integer, got 'abc'", "must be between 1 and
/// 1000, got 5000") and its type in --help from the row: "INT in [0 - 4095]", "FLOAT > 0", "INT".
inline CLI::Option* apply_row(CLI::Option* opt, const api::OptionRow& row) {
  if (!row.default_value.empty()) opt->default_str(row.default_value);
  if (!row.choices.empty() && row.cli_checks_choices) opt->check(CLI::IsMember(row.choices));
  if (row.type == api::OptionType::Int || row.type == api::OptionType::Number) {
    NumberRule rule;
    rule.integer = row.type == api::OptionType::Int;
    rule.min = row.min;
    rule.max = row.max;
    rule.min_exclusive = row.min_exclusive;
    opt->check(number_validator(rule));
    opt->type_name((rule.integer ? "INT" : "FLOAT") + rule.shown());
  }
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

/// The long names of `sub`'s options given on the command line (for api/rules.hpp
/// check_option_rules and the requests' validate()).
inline std::set<std::string> given_options(const CLI::App* sub) {
  std::set<std::string> given;
  for (const CLI::Option* o : sub->get_options())
    if (o->count() > 0 && !o->get_lnames().empty()) given.insert("--" + o->get_lnames().front());
  return given;
}

}  // namespace kprof
