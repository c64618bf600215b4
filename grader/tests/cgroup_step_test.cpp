// A step's cgroup (grader/judge/sandbox_cgroup.cpp) is made even where a judge killed before its
// cleanup left step cgroups behind under the same pid (pids come back; the old names were
// step-PID-N, N from 0): such a leftover once made a submission "not graded". And such leftovers
// are removed once they are old and their judge is gone, never a live judge's.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ctime>

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

TEST(StepCgroup, OldLeftoversOfAJudgeThatIsGoneAreRemovedAndNothingElse) {
  const judge::CgroupPlace& place = judge::cgroup_place();
  if (place.version == 0) GTEST_SKIP() << "no step cgroups here: " << place.why_not;
  const pid_t gone = fork();  // a pid no process has once it is waited for
  if (gone == 0) _exit(0);
  ASSERT_GT(gone, 0);
  waitpid(gone, nullptr, 0);
  const std::time_t old = std::time(nullptr) - judge::kLeftoverStepCgroupAgeS - 60;
  struct Planted {
    std::string dir;
    bool old, removable;
  };
  std::vector<Planted> planted;
  for (const std::string& parent : place.parents) {
    const std::string g = std::to_string(gone), me = std::to_string(getpid());
    for (const Planted& p : {Planted{parent + "/step-" + g + "-0-7", true, true},
                             Planted{parent + "/trial-" + g, true, true},
                             Planted{parent + "/step-" + g + "-1-7", false, false},  // too young
                             Planted{parent + "/step-" + me + "-900-7", true, false}})  // its judge runs
      if (mkdir(p.dir.c_str(), 0755) == 0) planted.push_back(p);
  }
  ASSERT_FALSE(planted.empty());
  bool aged = true;
  for (const Planted& p : planted)
    if (p.old) {
      const timespec times[2] = {{old, 0}, {old, 0}};
      aged = aged && utimensat(AT_FDCWD, p.dir.c_str(), times, 0) == 0;
    }
  // (Its count is not compared: a judge starting beside this test may remove them first.)
  if (aged) judge::remove_leftover_step_cgroups(place);
  std::vector<bool> exists;
  for (const Planted& p : planted) {
    struct stat st {};
    exists.push_back(stat(p.dir.c_str(), &st) == 0);
    rmdir(p.dir.c_str());
  }
  if (!aged) GTEST_SKIP() << "this cgroup file system keeps its directories' times";
  for (std::size_t i = 0; i < planted.size(); ++i) EXPECT_EQ(exists[i], !planted[i].removable) << planted[i].dir;
}
