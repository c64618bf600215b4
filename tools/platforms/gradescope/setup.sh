#!/usr/bin/env bash
# Gradescope autograder image setup (runs once, as root, when the autograder is built).
# The autograder zip holds this file, run_autograder, and the course files (a student release
# made by tools/make-release, plus grader/points/ and, if wanted, instructor/): Gradescope
# unpacks it to /autograder/source. Choose Gradescope's Ubuntu 24.04 base image (Python 3.12 for
# tomllib, CMake 3.28; 22.04's Python 3.10 and CMake 3.22 are too old). It has no GPU, so the
# CUDA compiler comes from NVIDIA's Ubuntu repository and grading runs the CPU tier.
# For a GPU tier you need your own GPU image: pass --tier all --graded in run_autograder.
set -euo pipefail
SRC=${BANKLAB_SOURCE:-/autograder/source}
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ca-certificates wget cmake ninja-build g++ python3 \
  libgtest-dev libcli11-dev libbenchmark-dev
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "setup.sh: Python 3.11 or newer is needed (use the Ubuntu 24.04 base image)" >&2; exit 1; }
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  . /etc/os-release
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${ID}${VERSION_ID//./}/x86_64/cuda-keyring_1.1-1_all.deb"
  dpkg -i cuda-keyring_1.1-1_all.deb
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends cuda-nvcc-13-0 cuda-cudart-dev-13-0
fi
# The judge is compiled once, here; it never includes a student's file.
cmake -S "$SRC" -B "$SRC/build/judge" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$SRC/build/judge" --target banklab_judge
