#!/usr/bin/env bash
# Issues 30 (family 6) and 45 (items 4, 6), on the GPU machine (Ubuntu 24.04, cgroup v2): the
# judge's step cgroups in cgroup v2 hold forked children, memfds, /dev/shm and a /tmp flood at the
# step's limit (the peak from memory.peak, the OOM kill from memory.events), as root and as user
# nobody in a cgroup delegated to it (as systemd-run --user --scope -p Delegate=yes gives), and
# nobody without one says its limits are per process, and grading that counts (--require-step-limits,
# --graded) refuses there before any step of the file, while root's and the delegated judge grade
# with it: grader/tests/test_step_limits.py (on a
# cgroup v1 machine its root cases run in v1 and the delegated ones skip with their reason); then
# the judge's unit tests of a step's limit and of the caller's keys (root and nobody). The judge
# needs libseccomp to confine: the machine's, else a carried copy (.carry/seccomp).
#   bench/experiments/cgroup_v2/device_cgroup_v2.sh            (the test's output on the terminal and in $OUT, or ./out;
#                                                               everything in one archive, $OUT/cgroup_v2.tar.gz)
# Run as root. Builds the judge itself (build/cg); installs the carried bubblewrap
# (.carry/bwrap/bwrap) as /usr/local/bin/bwrap where no bwrap exists; where AppArmor forbids
# unprivileged user namespaces (Ubuntu 24.04), lifts that for the run and restores it at its end.
set -uo pipefail
out=${OUT:-$PWD/out}; mkdir -p "$out"
src=$(cd "$(dirname "$0")/../../.." && pwd)
# A world-readable copy: the judge run as nobody reads its own sources (probe files, headers).
rm -rf /tmp/cgv2 && mkdir -p /tmp/cgv2/tree &&
  tar -C "$src" --exclude=./build --exclude=./out -cf - . | tar -C /tmp/cgv2/tree -xf - && chmod -R a+rX /tmp/cgv2
cd /tmp/cgv2/tree
{
  echo "== machine: $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), $(id -un)"
  grep -E ' - cgroup2? ' /proc/self/mountinfo | awk '{print "   mount:", $5, $(NF-2), $NF}'
  echo "   /proc/self/cgroup: $(tr '\n' ' ' </proc/self/cgroup)"
  for f in cgroup.controllers cgroup.subtree_control; do
    echo "   /sys/fs/cgroup/$f: $(cat /sys/fs/cgroup/$f 2>&1)"
  done
  echo "   swap: $(awk '/SwapTotal/ {print $2, $3}' /proc/meminfo); unprivileged user namespaces: $(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null || echo n/a) (apparmor restriction), $(sysctl -n kernel.unprivileged_userns_clone 2>/dev/null || echo n/a) (clone)"
  if ! command -v bwrap >/dev/null; then
    install -m 0755 .carry/bwrap/bwrap /usr/local/bin/bwrap && echo "   installed .carry/bwrap/bwrap as /usr/local/bin/bwrap"
  fi
  echo "   bwrap: $(command -v bwrap) $(bwrap --version 2>&1)"
  # Ubuntu 24.04 forbids unprivileged user namespaces to programs without an AppArmor profile (the
  # carried bwrap): nobody's judge could then not start bubblewrap. Lifted for this run only.
  if [ "$(sysctl -n kernel.apparmor_restrict_unprivileged_userns 2>/dev/null)" = 1 ]; then
    sysctl -qw kernel.apparmor_restrict_unprivileged_userns=0 && trap 'sysctl -qw kernel.apparmor_restrict_unprivileged_userns=1' EXIT &&
      echo "   kernel.apparmor_restrict_unprivileged_userns set to 0 for this run (1 again at its end)"
  fi
  # libseccomp (the steps' filter over the keyring calls): the machine's, else a carried copy of
  # Debian's header and library (.carry/seccomp/{include,lib}; the device reaches no registry).
  seccomp=()
  if [ ! -f /usr/include/seccomp.h ] && [ -f .carry/seccomp/include/seccomp.h ]; then
    seccomp=(-DBANKLAB_SECCOMP_INCLUDE=$PWD/.carry/seccomp/include -DBANKLAB_SECCOMP_LIBRARY=$PWD/.carry/seccomp/lib/libseccomp.so)
    echo "   libseccomp: the carried one (.carry/seccomp)"
  fi
  t0=$SECONDS
  cmake -S . -B build/cg -G Ninja -DCMAKE_PREFIX_PATH=$PWD/.carry/cli11 -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 "${seccomp[@]}" >"$out/cg_configure.log" 2>&1 || { tail -30 "$out/cg_configure.log"; exit 1; }
  cmake --build build/cg --target banklab_judge judge_unit_tests -j 16 >"$out/cg_build.log" 2>&1 ||
    { grep -B2 -A8 -m5 error "$out/cg_build.log"; exit 1; }
  chmod -R a+rX /tmp/cgv2
  J=$PWD/build/cg/grader/banklab-judge
  echo "== built in $((SECONDS - t0)) s"
  echo "root:   $($J sandbox 2>&1)"
  echo "nobody: $(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups -- $J sandbox 2>&1)"
  # Issue 45: grading that counts, lab 05's stub, root (a cgroup per step: graded) and nobody in
  # root's own cgroup (none: refused, not graded, no step of the file run).
  echo "== banklab-judge grade --require-step-limits (lab 05's stub, CPU tier)"
  mkdir -p /tmp/cgv2/req && chmod 777 /tmp/cgv2/req
  for who in root nobody; do
    pre=(); [ $who = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
    (cd /tmp/cgv2/req && "${pre[@]}" $J grade --lab 05 --source /tmp/cgv2/tree/labs/05_swizzle/kernel.cu \
      --work /tmp/cgv2/req/w-$who --json /tmp/cgv2/req/g-$who.json --tier cpu --require-step-limits >/tmp/cgv2/req/$who.log 2>&1)
    python3 - /tmp/cgv2/req/g-$who.json $who /tmp/cgv2/req/w-$who <<'PY'
import json, os, sys
b = next(v for v in json.load(open(sys.argv[1]))["verdicts"] if v["test"] == "Lab05.Build")
ran = os.path.exists(os.path.join(sys.argv[3], "probe.log"))
print(f"{sys.argv[2]}: Build {b['status']}; probe ran: {'yes' if ran else 'no'}; {b['message'][:400]}")
PY
  done
  echo "== grader/tests/test_step_limits.py"
  python3 grader/tests/test_step_limits.py --judge "$J" --root .
  echo "== test exit status: $?"
  # Issue 45: a 256 MiB step whose four children fill 200 MiB each (run_steps itself), and no key
  # of the caller's reaches a step, as root and as nobody.
  U=$PWD/build/cg/grader/judge_unit_tests
  echo "== judge_unit_tests (root): StepCgroup.*, Keyrings.*, LeasedUidKeyrings.*"
  $U --gtest_filter='StepCgroup.*:Keyrings.*:LeasedUidKeyrings.*'
  echo "== judge_unit_tests (nobody): Keyrings.*"
  (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups -- $U --gtest_filter='Keyrings.*')
  echo "== grader/tests/test_confinement.py -k test_no_key (needs keyutils' keyctl)"
  python3 grader/tests/test_confinement.py --judge "$J" --root . -k test_no_key
} 2>&1 | tee "$out/cgroup_v2.txt"
tar -C "$out" --exclude=cgroup_v2.tar.gz -czf /tmp/cgv2/cgroup_v2.tar.gz . && mv /tmp/cgv2/cgroup_v2.tar.gz "$out/"
