// A step's cgroup (grader/judge/sandbox_cgroup.cpp) is made even where a judge killed before its
// cleanup left step cgroups behind under the same pid (pids come back; the old names were
// step-PID-N, N from 0): such a leftover once made a submission "not graded".
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sandbox_cgroup.hpp"

TEST(StepCgroup, ALeftoverOfAKilledJudgeWithThisPidIsPassedOver) {
  const judge::CgroupPlace& place = judge::cgroup_place();
  if (place.version == 0) GTEST_SKIP() << "no step cgroups here: " << place.why_not;
  std::vector<std::string> planted;
  for (const std::string& parent : place.parents)
    for (int i = 0; i < 16; ++i) {
      const std::string d = parent + "/step-" + std::to_string(getpid()) + "-" + std::to_string(i);
      if (mkdir(d.c_str(), 0755) == 0) planted.push_back(d);
    }
  judge::StepCgroup step;
  const bool made = step.make(256LL << 20, 64);
  const std::vector<std::string> dirs = step.dirs;
  step.remove();
  for (const std::string& d : planted) rmdir(d.c_str());
  ASSERT_FALSE(planted.empty());
  EXPECT_TRUE(made);
  EXPECT_EQ(dirs.size(), place.parents.size());
}
