# Sourced by the bench/device_*.sh scripts (one place for the judge's build on the GPU machine):
#   source bench/lib/build_judge.sh; build_judge DIR [SRC]   builds banklab_judge of this tree (or of
#                                                            the tree SRC) in DIR
# (Release, sm_90, CLI11 from .carry/cli11, libseccomp from .carry/seccomp where the machine has none; kept between calls while the machine is warm), installs
# .carry/bwrap/bwrap where the sandbox finds it, lets the sandbox's uid read the tree, and sets J to
# the judge. Logs: $out/configure.log, $out/build.log (their tails on failure). With DRY_RUN=1
# nothing is built: J=/nonexistent and nvidia-smi answers "no GPU (dry run)".
build_judge() {
  local dir=$1 src=${2:-.}
  if [[ ${DRY_RUN:-} == 1 ]]; then
    J=/nonexistent; nvidia-smi() { echo "no GPU (dry run)"; }
    return 0
  fi
  if [[ -x .carry/bwrap/bwrap && ! -x /usr/local/bin/bwrap ]]; then
    cp .carry/bwrap/bwrap /usr/local/bin/bwrap && chmod 755 /usr/local/bin/bwrap
  fi
  # libseccomp (the steps' filter over the keyring calls): the machine's, else a carried copy of
  # Debian's header and static library (.carry/seccomp/{include,lib}; the device reaches no registry).
  # GoogleTest: the machine's, else built from a carried source (.carry/googletest, Debian's
  # /usr/src/googletest) into /tmp/gtest, once while the machine is warm.
  if [[ -d .carry/googletest ]] && ! ls /usr/lib/x86_64-linux-gnu/cmake/GTest /usr/lib/cmake/GTest \
       /usr/local/lib/cmake/GTest /tmp/gtest/lib/cmake/GTest >/dev/null 2>&1; then
    { cmake -S .carry/googletest -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/tmp/gtest \
        -DCMAKE_POLICY_VERSION_MINIMUM=3.5 && cmake --build /tmp/gtest-build -j "$(nproc)" && cmake --install /tmp/gtest-build; } \
      > "$out/gtest.log" 2>&1 || { tail -n 30 "$out/gtest.log"; return 1; }
  fi
  [[ -d /tmp/gtest ]] && export CMAKE_PREFIX_PATH=/tmp/gtest${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  local seccomp=()
  if [[ ! -f /usr/include/seccomp.h && -f .carry/seccomp/include/seccomp.h ]]; then
    seccomp=(-DBANKLAB_SECCOMP_INCLUDE="$PWD/.carry/seccomp/include" -DBANKLAB_SECCOMP_LIBRARY="$PWD/.carry/seccomp/lib/libseccomp.a")
  fi
  (cd "$src" && chmod -R a+rX labs solutions grader common instructor tools bench trace python 2>/dev/null)  # read by the sandbox's uid
  # CLI11 and nlohmann-json from this tree's .carry: a tree SRC copied without its .carry (the older
  # and newer trees of device_verdicts_before_after.sh) finds them only so.
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$PWD/.carry/cli11;$PWD/.carry/nlohmann_json" "${seccomp[@]}" > "$out/configure.log" 2>&1 &&
    cmake --build "$dir" --target banklab_judge -j "$(nproc)" > "$out/build.log" 2>&1 ||
    { tail -n 30 "$out/configure.log" "$out/build.log"; return 1; }
  J=$dir/grader/banklab-judge
}

# build_judge DIR, then the model's `banklab` command in the same build (it renders a variant's
# solved file: banklab.lab.variants), exported as BANKLAB_CLI. With DRY_RUN=1 nothing is built.
build_judge_and_cli() {
  local dir=$1
  build_judge "$dir" || return 1
  [[ ${DRY_RUN:-} == 1 ]] && return 0
  cmake --build "$dir" --target banklab -j "$(nproc)" >> "$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; return 1; }
  export BANKLAB_CLI=$dir/tools/banklab
}
