// Instructor-only checks of lab 04 (left out of the student release): the transpose's
// shared-memory instructions at the edges of a matrix whose sides are not multiples of 32,
// where only the leading lanes are active (see edge_tiles.hpp). Failing case: the stub (and
// solutions/04_padding/cases/bad/pad_two.patch for lab 04); passing: every solution and valid alternative.
#include <gtest/gtest.h>

#include "edge_tiles.hpp"
#include "grader/grader.hpp"

TEST(Lab04InstructorEdgeTiles, PartialRowWritesAtTheRightEdgeAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(
      instructor::with_leading_lanes(grader::answers().access("row_write"), "row write"),
      "at the right edge of a matrix only the first lanes of a row write are active; they must still hit "
      "different banks (a full-width conflict-free row write does)."));
}

TEST(Lab04InstructorEdgeTiles, PartialColumnReadsAtTheBottomEdgeAreConflictFree) {
  BANKLAB_EXPECT(grader::AllAtMinimumWavefronts(
      instructor::with_leading_lanes(grader::answers().access("column_read"), "column read"),
      "at the bottom edge of a matrix only the first lanes of a column read are active (rows 0..h-1 of the "
      "tile); they must still hit different banks. A layout that is conflict-free for all 32 lanes is."));
}
