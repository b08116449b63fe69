#include "kernel/preprocess.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/subprocess.hpp"
#include "core/text.hpp"

namespace kprof {
namespace {

constexpr size_t kMaxCacheEntries = 64;
constexpr uintmax_t kMaxCacheBytes = 64ull << 20;  ///< a CUTLASS kernel's entry is about 5 MB

/// Size and mtime of a file as one comparable string, "" when missing.
/// The preprocessed text without the lines of system headers (line-marker flag 3), and the
/// other files it read (line-marker names that exist on disk).
std::string drop_system_lines(const std::string& text, std::vector<std::string>& files) {
  std::string out;
  out.reserve(text.size() / 4);
  bool system = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (line.size() > 2 && line[0] == '#' && line[1] == ' ' && std::isdigit(static_cast<unsigned char>(line[2]))) {
      size_t q1 = line.find('"'), q2 = q1 == std::string_view::npos ? q1 : line.find('"', q1 + 1);
      std::string flags = q2 == std::string_view::npos ? "" : " " + std::string(line.substr(q2 + 1)) + " ";
      system = flags.find(" 3 ") != std::string::npos;
      if (!system && q2 != std::string_view::npos) {
        std::string name(line.substr(q1 + 1, q2 - q1 - 1));
        if (name[0] != '<' && std::find(files.begin(), files.end(), name) == files.end()) files.push_back(name);
      }
      out.append(line);
      out += '\n';
    } else if (!system) {
      out.append(line);
      out += '\n';
    }
    pos = end + 1;
  }
  return out;
}

/// Keeps the newest entries of `dir`: at most kMaxCacheEntries, kMaxCacheBytes in all.
void prune_cache(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".ii") entries.emplace_back(e.last_write_time(ec), e.path());
  std::sort(entries.rbegin(), entries.rend());  // newest first
  uintmax_t bytes = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    bytes += fs::file_size(entries[i].second, ec);
    if (i < kMaxCacheEntries && bytes <= kMaxCacheBytes) continue;
    fs::remove(entries[i].second, ec);
    fs::path deps = entries[i].second;
    fs::remove(deps.replace_extension(".deps"), ec);
  }
}

/// The cached text for `key` when every file it recorded is unchanged.
bool cache_lookup(const std::string& base, std::string& text) {
  if (!path_exists(base + ".ii") || !path_exists(base + ".deps")) return false;
  try {
    for (const auto& line : split(read_file(base + ".deps"), '\n')) {
      if (line.empty()) continue;
      size_t tab = line.find('\t');
      if (tab == std::string::npos || file_stamp(line.substr(tab + 1)) != line.substr(0, tab)) return false;
    }
    text = read_file(base + ".ii");
  } catch (const Error&) {
    return false;
  }
  return true;
}

void cache_store(const std::string& dir, const std::string& base, const std::string& text,
                 const std::vector<std::string>& files) {
  std::string deps;
  for (const auto& f : files)
    if (auto stamp = file_stamp(f); !stamp.empty()) deps += stamp + "\t" + f + "\n";
  try {
    write_file_atomic(base + ".ii", text);
    write_file_atomic(base + ".deps", deps);  // written last: an entry without it is never used
    prune_cache(dir);
  } catch (const Error&) {
    // a read-only cache folder only costs the next run the preprocessing again
  }
}

}  // namespace

std::vector<std::string> preprocessed_user_files(const std::string& text) {
  std::vector<std::string> files;
  drop_system_lines(text, files);
  return files;
}

std::vector<std::string> split_shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size())
        cur += line[++i];
      else
        cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::vector<std::string> host_preprocess_step(const std::string& dryrun_output) {
  for (const auto& raw : split(dryrun_output, '\n')) {
    std::string line = trim(raw);
    if (!starts_with(line, "#$ ")) continue;
    std::vector<std::string> w = split_shell_words(line.substr(3));
    if (std::find(w.begin(), w.end(), "-E") == w.end()) continue;
    if (std::any_of(w.begin(), w.end(), [](const std::string& x) { return starts_with(x, "-D__CUDA_ARCH__="); }))
      continue;  // the device pass
    std::vector<std::string> out;
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] == "-o" && i + 1 < w.size()) {
        ++i;
        continue;
      }
      out.push_back(w[i]);
    }
    return out;
  }
  return {};
}

std::string preprocess_cache_dir() {
  const std::string base = kprof_cache_dir();
  return base.empty() ? "" : join_path(base, "preprocessed");
}

HostPreprocess preprocess_host(const std::vector<std::string>& build_argv, const std::string& source,
                               double timeout_s) {
  auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  HostPreprocess res;
  if (build_argv.empty()) {
    res.problem = "no nvcc command";
    return res;
  }
  std::string src_text;
  try {
    src_text = read_file(source);
  } catch (const Error& e) {
    res.problem = e.what();
    return res;
  }
  uint64_t h = kFnvOffset;
  fnv1a(h, "kprof-preprocess-v1");
  for (size_t i = 0; i < build_argv.size(); ++i) {
    if (i > 0 && build_argv[i - 1] == "-o") continue;  // where the .so goes does not change the text
    fnv1a(h, build_argv[i]);
  }
  fnv1a(h, file_stamp(build_argv[0].find('/') == std::string::npos ? find_on_path(build_argv[0]) : build_argv[0]));
  fnv1a(h, src_text);
  const std::string dir = preprocess_cache_dir();
  const std::string base = dir.empty() ? "" : join_path(dir, fmt::format("{:016x}", h));
  if (!base.empty() && cache_lookup(base, res.text)) {
    res.ok = res.cached = true;
    res.wall_s = seconds();
    return res;
  }
  std::vector<std::string> dry = build_argv;
  dry.insert(dry.begin() + 1, "--dryrun");
  ProcessOptions po;
  po.timeout_s = timeout_s;
  ProcessResult plan = run_process(dry, po);
  std::vector<std::string> step = host_preprocess_step(plan.err + "\n" + plan.out);
  if (!plan.ok() || step.empty()) {
    res.problem = !plan.ok() ? "`nvcc --dryrun` failed: " + trim(plan.combined())
                             : "`nvcc --dryrun` shows no host preprocessing step";
    res.wall_s = seconds();
    return res;
  }
  ProcessResult pp = run_process(step, po);
  res.wall_s = seconds();
  if (!pp.ok()) {
    auto lines = split(trim(pp.err.empty() ? pp.out : pp.err), '\n');
    res.problem = "nvcc's host preprocessor failed" + (lines.empty() ? std::string() : ": " + trim(lines.front()));
    if (pp.timed_out) res.problem = fmt::format("nvcc's host preprocessor did not finish within {} s", timeout_s);
    return res;
  }
  std::vector<std::string> files = {source};
  res.text = drop_system_lines(pp.out, files);
  res.ok = true;
  if (!base.empty()) cache_store(dir, base, res.text, files);
  return res;
}

}  // namespace kprof
