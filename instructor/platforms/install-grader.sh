#!/usr/bin/env bash
# Installs what the grader needs on a fresh Debian 12 or Ubuntu 24.04 image and builds the judge,
# once, as root: the install steps of Gradescope's setup.sh and of PrairieLearn's Dockerfile.
#   instructor/platforms/install-grader.sh COURSE_DIR
# COURSE_DIR holds the course files (a grading image, make-release --grading or --with-kit: a
# student release with grader/points/ and this kit, instructor/; --with-instructor adds the
# instructor-only checks). The judge is built into COURSE_DIR/build/judge; it is
# compiled from grader/ alone and never includes a student's file.
# CUDA: an nvcc already there (PATH, /usr/local/cuda/bin) is used; otherwise cuda-nvcc 13.0 comes
# from NVIDIA's repository for this distribution (Debian 12: debian12, Ubuntu 24.04: ubuntu2404).
# Tested (test platforms.*) in a fresh Debian 12 root made with debootstrap, with the host's CUDA
# toolkit bound in; Ubuntu's image could not be tried there (only Debian's registry is reachable).
set -euo pipefail
SRC=${1:?usage: install-grader.sh COURSE_DIR}
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ca-certificates wget cmake ninja-build g++ python3 \
  libgtest-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev bubblewrap libseccomp-dev >/dev/null
# (Debian 12's CMake 3.25.1 and CUDA 13: the project's CMakeLists works around FindCUDAToolkit's
# nvToolsExt bug itself.)
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "install-grader: Python 3.11 or newer is needed (Debian 12, Ubuntu 24.04)" >&2; exit 1; }
nvcc=$(command -v nvcc || true)
[[ -z "$nvcc" && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z "$nvcc" ]]; then
  . /etc/os-release
  repo="${ID}${VERSION_ID//./}"
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${repo}/x86_64/cuda-keyring_1.1-1_all.deb"
  dpkg -i cuda-keyring_1.1-1_all.deb && rm -f cuda-keyring_1.1-1_all.deb
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends cuda-nvcc-13-0 cuda-cudart-dev-13-0 >/dev/null
  nvcc=/usr/local/cuda-13.0/bin/nvcc
fi
"$nvcc" --version | tail -1
cmake -S "$SRC" -B "$SRC/build/judge" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
  ${BANKLAB_CMAKE_ARGS:-} >/dev/null
cmake --build "$SRC/build/judge" --target banklab_judge banklab
echo "install-grader: built $(find "$SRC/build/judge" -name banklab-judge -type f | head -1)"
