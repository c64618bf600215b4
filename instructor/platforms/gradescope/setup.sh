#!/usr/bin/env bash
# Gradescope autograder image setup (runs once, as root, when the autograder is built).
# The autograder zip (instructor/platforms/gradescope/make-zip) holds this file, run_autograder,
# banklab.env (the lab of this assignment) and the course files (a grading image, make-release
# --grading: the student release with grader/points/, the answers, the instructor's kit and, if
# wanted, the instructor-only checks); Gradescope unpacks it to /autograder/source.
# Base image: Gradescope's Ubuntu 24.04 (Python 3.12, CMake 3.28; 22.04's are too old). It has
# no GPU: nvcc comes from NVIDIA's Ubuntu repository, and the default grade judges the GPU tier on
# the judge's emulator (graded: --tier all --graded --emulate-gpu; timing not judged); on your own
# GPU image the same default judges it on the GPU. BANKLAB_GRADE_ARGS="--tier cpu" in banklab.env
# (make-zip --grade-args) grades the CPU tier only (every grade then says it is incomplete).
# Tested in a fresh Debian 12 root made with debootstrap (test platforms.*); Ubuntu itself could
# not be tried where this was written (only Debian's package registry was reachable).
set -euo pipefail
SRC=${BANKLAB_SOURCE:-/autograder/source}
exec bash "$SRC/instructor/platforms/install-grader.sh" "$SRC"
