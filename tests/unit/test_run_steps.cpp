// The state-free pieces of `kprof run` (flows/run/run_steps.hpp).
#include <gtest/gtest.h>

#include "flows/run/run_steps.hpp"

using namespace kprof;

TEST(RunSteps, DropPendingKeepsTheOthersInOrderWithTheirRows) {
  std::vector<PendingProfile> pending(4);
  for (size_t i = 0; i < pending.size(); ++i) pending[i].name = "v" + std::to_string(i);
  std::vector<size_t> rows = {0, 2, 3, 5};
  drop_pending(pending, rows, {false, true, false, true});
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].name, "v0");
  EXPECT_EQ(pending[1].name, "v2");
  EXPECT_EQ(rows, (std::vector<size_t>{0, 3}));
  drop_pending(pending, rows, {false, false});
  EXPECT_EQ(pending.size(), 2u);
  drop_pending(pending, rows, {true, true});
  EXPECT_TRUE(pending.empty());
  EXPECT_TRUE(rows.empty());
}

TEST(RunSteps, NewRowNamesTheVersionAndItsFolder) {
  RunRequest req;
  req.output_dir = "out";
  req.versions.resize(2);
  req.versions[1].kernel = "k/v1.cu";
  VersionRow r = new_row(req, {"v0", "v1"}, 1);
  EXPECT_EQ(r.name, "v1");
  EXPECT_EQ(r.kernel, "k/v1.cu");
  EXPECT_EQ(r.folder, "out/v1");
}
