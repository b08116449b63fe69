// The ncu options of a profile (flows/profile.hpp) and of the one session of `kprof run`
// (flows/ncu_standby.hpp): the catalog metrics, the metric set, kprof's source-counter section.
#pragma once

#include <string>

#include "flows/profile_settings.hpp"
#include "kernel/kernel_spec.hpp"
#include "stages/ncu/runner.hpp"

namespace kprof {

/// Writes kprof's source-counter section (stages/ncu/source_section.hpp) KprofSourceCounters.section into BASE/ncu-sections-<16 hex digits of the text's FNV-1a
/// hash>/ unless that file already holds the text; returns that folder, or "" with `why` set when it
/// cannot be written (BASE a file, not writable).
std::string write_kprof_source_section(const std::string& base, std::string* why = nullptr);

/// The folder holding KprofSourceCounters.section, written when missing (atomically; checked on
/// each call, written again only when the file has gone; thread-safe):
/// kprof_cache_dir()/ncu-sections-<16 hex digits>, or the same name under $TMPDIR (else /tmp) when
/// there is no cache folder or it cannot be written. "" when neither can be written (the caller
/// then collects ncu's stock SourceCounters section); `why` (optional) says why.
std::string kprof_source_section_folder(std::string* why = nullptr);

/// The ncu options every profile of `spec` shares (catalog metrics for its GPU, metric set,
/// --ncu-timeout, progress, source counters: with the "kprof" set kprof's own source-counter
/// section, written to its cache folder here (ncu's stock SourceCounters, with one warning, when it
/// cannot be written; always with stock_source_section or another metric set));
/// target and report are the caller's.
NcuRunOptions session_ncu_options(const KernelSpec& spec, const ProfileSettings& settings);

/// The ncu options of a profile in a session of its own (session_ncu_options, report
/// OUT_DIR/profile.ncu-rep); the target is the caller's: `kprof __runner ...`, or the standby's
/// `kprof __session ...` (StandbySession::for_profile).
NcuRunOptions own_session_ncu_options(const KernelSpec& spec, const ProfileSettings& settings,
                                      const std::string& out_dir);

}  // namespace kprof
