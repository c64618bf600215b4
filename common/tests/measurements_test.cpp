// The model against every measured pattern committed under common/data/.
#include <gtest/gtest.h>

#include <filesystem>

#include "banklab/model.hpp"
#include "banklab/pattern_io.hpp"

namespace banklab {
namespace {

std::vector<Measurement> load(const std::string& name) {
  return read_measurements_file(std::string(BANKLAB_DATA_DIR) + "/" + name);
}

void expect_model_matches(const std::vector<Measurement>& rows) {
  for (const Measurement& m : rows) {
    const Analysis r = analyze(m.access);
    EXPECT_EQ(r.wavefronts, m.wavefronts) << m.id << " (line " << m.line << ")";
    EXPECT_EQ(r.conflicts(), m.bank_conflicts)
        << m.id << ": Nsight Compute's counter should equal wavefronts - minimum";
  }
}

TEST(Measurements, TheH200FileHoldsAll260Patterns) {
  EXPECT_EQ(load("h200_wavefronts_named.csv").size(), 260u);
}

TEST(Measurements, TheModelMatchesEveryMeasuredH200Pattern) {
  expect_model_matches(load("h200_wavefronts_named.csv"));
}

TEST(Measurements, TheModelMatchesEveryCalibrationFileCommitted) {
  // banklab calibrate writes calibration_*.csv; every one committed must match in full.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(BANKLAB_DATA_DIR)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("calibration_", 0) != 0 || e.path().extension() != ".csv") continue;
    ++files;
    SCOPED_TRACE(name);
    expect_model_matches(load(name));
  }
  if (files == 0) GTEST_SKIP() << "no calibration_*.csv committed yet";
}

}  // namespace
}  // namespace banklab
