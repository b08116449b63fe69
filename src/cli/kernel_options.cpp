#include "cli/kernel_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "api/rules.hpp"
#include "cli/table_options.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/text.hpp"
#include "stages/timing/timing.hpp"

namespace kprof {

namespace {

/// The command whose table rows `sub` registers: its name ("__runner" for the session's parser too).
std::string table_command(const CLI::App* sub) {
  const std::string& n = sub->get_name();
  return n == "check" || n == "profile" || n == "run" ? n : "__runner";
}

}  // namespace

void add_kernel_options(CLI::App* sub, KernelCliOptions& o, bool several, bool with_ref, bool with_output) {
  const std::string cmd = table_command(sub);
  if (several)
    sub->add_option("kernels", o.kernels,
                    "Kernel files: .cu (cuda-cpp, cutlass) or .py (triton, cute-dsl); "
                    "several versions of one kernel are compared")
        ->required()
        ->check(CLI::ExistingFile);
  else
    sub->add_option("kernel", o.kernels, "Kernel file: .cu (cuda-cpp, cutlass) or .py (triton, cute-dsl)")
        ->required()
        ->expected(1)
        ->check(CLI::ExistingFile);
  add_table_option(sub, cmd, "--implementation", o.spec.implementation);
  add_table_option(sub, cmd, "--backend", o.spec.implementation);  // excludes --implementation: the table's rule
  add_table_option(sub, cmd, "--so", o.so_paths);
  add_table_option(sub, cmd, kNvccFlagOption, o.spec.nvcc_flags);
  add_table_option(sub, cmd, "--build", o.spec.build);
  add_table_option(sub, cmd, "--arch", o.spec.arch);
  add_table_option(sub, cmd, "--size", o.spec.sizes);
  add_table_option(sub, cmd, "--ptr-size", o.spec.ptr_size);
  add_table_option(sub, cmd, "--seed", o.spec.seed)->check([](const std::string& s) {
    return s.empty() || s[0] == '-' ? std::string("the seed is a non-negative integer") : std::string();
  });
  add_table_option(sub, cmd, "--gpu", o.spec.gpu);
  add_table_option(sub, cmd, "--timeout", o.spec.timeout_s);
  if (with_ref) {
    add_table_option(sub, cmd, "--ref", o.ref)->required()->check(CLI::ExistingFile);
    add_table_option(sub, cmd, "--atol", o.atol);
    add_table_option(sub, cmd, "--rtol", o.rtol);
    add_table_option(sub, cmd, "--trials", o.trials);
  }
  if (with_output) {
    add_table_option(sub, cmd, "--output-dir", o.output_dir);
    add_table_option(sub, cmd, "--no-html", o.no_html);
  }
  sub->allow_extras();
  std::string before = sub->get_footer();
  sub->footer(
      (before.empty() ? std::string() : before + "\n\n") +
      "Dimensions: every --NAME=VALUE that is not an option above is a dimension passed to the kernel, "
      "e.g. --N=1024 --D=512 (integers), --alpha=0.5 (float scalars).\nnvcc flags after `--` (-- -DUSE_DOUBLE "
      "-Iinc) are used by --build and to read solve() as they compile it.\nExit codes: 0 success, 1 the checked "
      "thing failed, 2 usage or input error.");
}

void add_profile_options(CLI::App* sub, ProfileCliOptions& o) {
  const std::string cmd = sub->get_name();
  add_table_option(sub, cmd, "--warmup", o.warmup_calls);
  add_table_option(sub, cmd, "--warmup-ms", o.warmup_ms);  // excludes --warmup: the table's rule
  add_table_option(sub, cmd, "--iters", o.iters)->each([&o](const std::string&) { o.iters_given = true; });
  add_table_option(sub, cmd, "--noise-target", o.noise_target_pct);
  const api::OptionRow& budget = api::option_row(cmd, "--time-budget-ms");
  add_table_option(sub, cmd, "--time-budget-ms", o.time_budget_ms)
      ->description(budget.help + " (default " + budget.default_rule + ")");
  add_table_option(sub, cmd, "--throttle-threshold", o.throttle_threshold_pct);
  add_table_option(sub, cmd, "--discard-throttled", o.discard_throttled);
  add_table_option(sub, cmd, "--input-sets", o.input_sets);
  add_table_option(sub, cmd, "--no-l2-flush", o.no_l2_flush);
  add_table_option(sub, cmd, "--metrics", o.metric_set);
  add_table_option(sub, cmd, "--ncu-timeout", o.ncu_timeout_s);
  add_table_option(sub, cmd, "--no-ncu", o.no_ncu);
  // Two flags rather than CLI11's "--source,!--no-source", whose help reads "--no-source{false}".
  auto* on = add_table_flag_callback(sub, cmd, "--source", [&o] { o.source = true; });
  add_table_flag_callback(sub, cmd, "--no-source", [&o] { o.source = false; })->excludes(on);
  add_table_option(sub, cmd, "--stock-source-section", o.stock_source_section);
  add_table_option(sub, cmd, "--sass", o.sass);
  add_table_option(sub, cmd, "--top", o.top);
  add_table_option(sub, cmd, "--no-roofline", o.no_roofline);
  add_table_option(sub, cmd, "--html-no-source", o.html_no_source);
}

namespace {

/// The long option names of `app` ("--iters"), without help/version flags.
std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options())
    for (const auto& n : opt->get_lnames())
      if (n != "help" && n != "version") out.push_back("--" + n);
  return out;
}

}  // namespace

size_t typo_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein's table plus the swap of two neighbours.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string nearest_name(const std::string& word, const std::vector<std::string>& names, size_t max_edits,
                         const std::function<bool(const std::string& name)>& continues) {
  std::string best, continued;
  size_t best_d = max_edits + 1, continuing = 0;
  for (const auto& name : names) {
    if (size_t d = typo_distance(word, name); d < best_d) best_d = d, best = name;
    if (continues(name)) ++continuing, continued = name;
  }
  return !best.empty() ? best : continuing == 1 ? continued : std::string();
}

std::string option_note(const CLI::App& sub, const std::string& name, bool short_names) {
  std::string n = to_lower(name);
  for (char& c : n)
    if (c == '_') c = '-';
  if (n.rfind("--", 0) != 0) n = "--" + n;
  const auto own = long_options(sub);
  if (n != name && std::find(own.begin(), own.end(), n) != own.end()) return "did you mean " + n + "?";
  const CLI::App* root = sub.get_parent();
  std::vector<std::string> owners;
  if (root)
    for (const CLI::App* other : root->get_subcommands({}))
      if (other != &sub && !other->get_group().empty()) {
        auto theirs = long_options(*other);
        if (std::find(theirs.begin(), theirs.end(), n) != theirs.end())
          owners.push_back("`kprof " + other->get_name() + "`");
      }
  if (!owners.empty())
    return fmt::format("{} is an option of {}, not of `kprof {}`", n, fmt::join(owners, " and "), sub.get_name());
  // A kernel command takes any --NAME=VALUE as a dimension: there only names of 4+ letters are
  // matched, so --N or --K never are. The other commands take no dimension: any name is matched
  // ("--tpo" -> --top), a name of 1-2 letters to within 1 edit.
  if (n.size() < 6 && sub.get_allow_extras() && !short_names) return "";  // "--" + 4 letters
  // Up to 1 edit for a name of 1-2 letters, else 2; else the one option `n` is the start of, at a '-'.
  auto nearest = [&n](const std::vector<std::string>& options) {
    return nearest_name(n, options, n.size() < 5 ? 1 : 2, [&n](const std::string& o) {
      return o.size() > n.size() && o.compare(0, n.size(), n) == 0 && o[n.size()] == '-';
    });
  };
  if (auto best = nearest(own); !best.empty()) return "did you mean " + best + "?";
  if (root)
    for (const CLI::App* other : root->get_subcommands({}))
      if (other != &sub && !other->get_group().empty())
        if (auto best = nearest(long_options(*other)); !best.empty())
          return fmt::format("did you mean {}? (an option of `kprof {}`, not of `kprof {}`)", best, other->get_name(),
                             sub.get_name());
  return "";
}

std::string misplaced_option(const CLI::App& sub, const std::string& word, const std::string& value, bool attached,
                             std::string& hint) {
  const std::string name = word.substr(0, word.find('='));
  if (name.rfind("--", 0) != 0 || name.size() < 3 || name == "--help" || name == "--version") return "";
  if (sub.get_option_no_throw(name) != nullptr) return "";
  const bool kernel_command = sub.get_allow_extras();
  const bool numeric = parse_number(value).has_value() && value.find(',') == std::string::npos;
  const std::string note = option_note(sub, name);
  bool flag = false;  // another command's option that takes no value: `value` is not its
  if (const CLI::App* root = sub.get_parent())
    for (const CLI::App* other : root->get_subcommands({}))
      if (const CLI::Option* opt = other->get_option_no_throw(name)) flag = opt->get_type_size() == 0;
  // The next word is shown only when it can be this option's value (not another option: `--bulid -o`).
  const bool shows_value = !value.empty() && !flag && value.rfind("-", 0) != 0;
  const std::string shown = attached ? "'" + word + "'" : "'" + name + (shows_value ? " " + value : "") + "'";
  hint = "run `kprof " + sub.get_name() + " --help` for its options";
  if (note.empty()) {
    if (kernel_command && !attached && numeric) {
      // `--tpo 3`: a dimension written with a space, or a misspelt option of a short name.
      const std::string near = option_note(sub, name, /*short_names=*/true);
      hint = "write " + name + "=" + value + (near.empty() ? "" : " for a dimension; " + near);
      return shown + ": a dimension is given with '=', not a space";
    }
    return "";
  }
  // `--iters=5` may be a parameter of solve() or setup(): the kernel decides (validate_spec).
  if (kernel_command && attached && numeric) return "";
  // An attached value that is not a number cannot be a dimension either (dimensions are numbers).
  if (kernel_command)
    hint = attached
               ? "if " + name + " is a parameter of solve() or setup(), its value is a number (" + name + "=8); " + hint
               : "if " + name + " is a parameter of solve() or setup(), give it as " + name + "=VALUE; " + hint;
  return shown + ": " + note;
}

void finish_kernel_options(CLI::App* sub, KernelCliOptions& o) {
  for (const auto& w : sub->remaining()) {
    std::string name = w.substr(0, w.find('='));
    // A word with '-' in its name cannot be a dimension: a misspelt option ("--ncu-timout=5").
    if (name.rfind("--", 0) == 0 && name.find('-', 2) != std::string::npos)
      if (auto note = option_note(*sub, name); !note.empty())
        throw usage_error("'" + w + "' is not an option of `kprof " + sub->get_name() + "`: " + note,
                          "run `kprof " + sub->get_name() + " --help` for its options");
    // `--metrics=full`: another command's option, and not a number, so not a dimension either.
    std::string hint;
    bool attached = w.find('=') != std::string::npos;
    if (auto why = misplaced_option(*sub, w, attached ? w.substr(w.find('=') + 1) : "", attached, hint); !why.empty())
      throw usage_error(why, hint);
  }
  api::check_option_rules(table_command(sub), given_options(sub));  // the rows' needs / excludes
  api::validate(o, /*several=*/sub->get_name() == "run");
  if (!o.output_dir.empty() && sub->get_option_no_throw("--output-dir"))
    if (auto why = output_dir_problem(o.output_dir); !why.empty())
      throw usage_error("-o " + o.output_dir + ": " + why,
                        "give a folder for the reports (created when missing), "
                        "e.g. -o profile_out");
  if (!sub->get_group().empty()) o.spec.command = sub->get_name();  // named by the kernel's hints
  parse_dim_args(sub->remaining(), o.spec.dims);
  for (const auto& d : o.spec.dims.all())
    if (auto note = option_note(*sub, "--" + d.name); !note.empty()) o.spec.dim_notes[d.name] = note;
}

KernelSpec spec_for(const KernelCliOptions& o, size_t index) {
  KernelSpec s = o.spec;
  s.kernel = o.kernels.at(index);
  if (!o.so_paths.empty()) s.so_path = o.so_paths.at(index);
  return s;
}

std::vector<std::string> rewrite_nvcc_flags(const std::vector<std::string>& argv) {
  const bool kernel_command =
      argv.size() > 1 && (argv[1] == "check" || argv[1] == "profile" || argv[1] == "run" || argv[1] == "__runner");
  std::vector<std::string> out;
  bool after = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (after)
      out.push_back(std::string(kNvccFlagOption) + "=" + argv[i]);
    else if (kernel_command && i >= 2 && argv[i] == "--")
      after = true;
    else
      out.push_back(argv[i]);
  }
  return out;
}

}  // namespace kprof
