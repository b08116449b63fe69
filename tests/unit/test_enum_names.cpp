// The one enum-name table (core/enum_names.hpp) and the names kprof's reports read back.
#include <gtest/gtest.h>

#include "core/enum_names.hpp"
#include "kernel/guarded_call.hpp"
#include "stages/results/units.hpp"
#include "stages/results/versions.hpp"
#include "stages/verify/sanitizer.hpp"

using namespace kprof;

namespace {
enum class Fruit { Apple, Pear, Plum };
constexpr auto kFruit = enum_names<Fruit>({{Fruit::Apple, "apple"}, {Fruit::Pear, "pear"}}, "unknown");
}  // namespace

TEST(EnumNames, NamesParsesAndFallsBack) {
  static_assert(std::string_view(kFruit.name(Fruit::Pear)) == "pear", "constexpr lookup");
  EXPECT_STREQ(kFruit.name(Fruit::Apple), "apple");
  EXPECT_STREQ(kFruit.name(Fruit::Plum), "unknown");  // a value missing from the table
  EXPECT_EQ(kFruit.parse("pear"), Fruit::Pear);
  EXPECT_FALSE(kFruit.parse("Pear").has_value());  // exact names only
  EXPECT_FALSE(kFruit.parse("unknown").has_value());
}

TEST(EnumNames, ReportIdsReadBackToTheirValues) {
  for (auto s : {UnitStatus::Ok, UnitStatus::Wrong, UnitStatus::BuildError, UnitStatus::LoadError, UnitStatus::Timeout,
                 UnitStatus::Crash, UnitStatus::ProfileUnavailable, UnitStatus::NotRun})
    EXPECT_EQ(parse_unit_status(unit_status_id(s)), s) << unit_status_id(s);
  for (auto s : {VersionStatus::Pass, VersionStatus::Fail, VersionStatus::LoadError, VersionStatus::CheckError,
                 VersionStatus::NotRun, VersionStatus::Unchecked})
    EXPECT_EQ(parse_version_status(version_status_id(s)), s) << version_status_id(s);
  for (auto s : {ProfileStatus::Classified, ProfileStatus::NotClassified, ProfileStatus::NotProfiled})
    EXPECT_EQ(parse_profile_status(profile_status_id(s)), s) << profile_status_id(s);
  for (auto t : {SanitizerTool::Memcheck, SanitizerTool::Racecheck, SanitizerTool::Initcheck, SanitizerTool::Synccheck})
    EXPECT_EQ(parse_sanitizer_tool(sanitizer_tool_name(t)), t) << sanitizer_tool_name(t);
  for (auto k : {FaultKind::LaunchError, FaultKind::KernelError, FaultKind::Timeout})
    EXPECT_EQ(parse_fault_kind(fault_kind_id(k)), k) << fault_kind_id(k);
  EXPECT_EQ(unit_status_id(UnitStatus::ProfileUnavailable), "profile_unavailable");
  EXPECT_EQ(change_id(Change::Same), "same");
  EXPECT_EQ(change_name(Change::Same), "same (within noise)");
}
