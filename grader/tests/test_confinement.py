#!/usr/bin/env python3
"""Issues 21 and 30: the judge confines every submission in every mode it may run in, and limits
hold for the whole submission (the peak its cgroup saw, from probe.log, within the step's limit). Real cheat files (grader/selftest/cheats, appended to lab 05's
stub) go through `banklab-judge build`; each case proves its payload ran and that it failed.

  test_confinement.py --judge build/selftest/grader/banklab-judge --root .

Modes: bwrap (as root: bubblewrap started as root, the step dropping to its leased uid; as user
nobody: with a user namespace), and none (BANKLAB_BWRAP=/bin/false, as root and as a normal user:
the judge refuses, except a normal user's own build with BANKLAB_ALLOW_UNCONFINED=1).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None
NO_BWRAP = "/bin/false"  # stands for a machine where bubblewrap cannot start
PROBE_MEMORY_MIB = 1024 + 64 + 16  # the probe step's memory.max: its address space, /tmp and /dev
PEAK = re.compile(r"memory: peak (\d+) bytes of the step's limit (\d+) bytes")


KEY_SECRET = "TGT-for-instructor@EXAMPLE.EDU"
# Appended to lab 05's stub (BANKLAB_KEY_ID: the planted key's id): what a probe finds of the
# keys of whoever started the judge, its payload printed when found.
KEY_PROBE = r"""
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
namespace banklab_test_keys {
long kc(int op, long a, long b = 0, long c = 0) { return syscall(SYS_keyctl, op, a, b, c, 0L); }
std::string payload(long id) {
  char buf[256] = {};
  const long n = kc(KEYCTL_READ, id, reinterpret_cast<long>(buf), sizeof buf - 1);
  return n > 0 ? std::string(buf, n < 255 ? n : 255) : std::string("none (") + std::strerror(errno) + ")";
}
const int kLooked = [] {
  std::string seen = " by-id=" + payload(BANKLAB_KEY_ID);
  for (long ring : {KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING}) {
    const long k = kc(KEYCTL_SEARCH, ring, reinterpret_cast<long>("user"), reinterpret_cast<long>("krb5cc:instructor"));
    seen += " search" + std::to_string(ring) + "=" + (k >= 0 ? payload(k) : std::string("none (") + std::strerror(errno) + ")");
  }
  std::stringstream keys;
  keys << std::ifstream("/proc/keys").rdbuf();
  seen += " proc-keys=" + std::to_string(keys.str().size()) + "B" + (keys.str().find("krb5cc") != std::string::npos ? " names the key" : "");
  errno = 0;
  const long added = syscall(SYS_add_key, "user", "left-for-later", "x", 1, KEY_SPEC_USER_KEYRING);
  seen += std::string(" add_key=") + (added >= 0 ? "added" : std::strerror(errno));
  std::printf("TEST-KEYS-RAN%s\n", seen.c_str());
  std::fflush(stdout);
  return 0;
}();
}
"""


def processes_named(comm):
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == comm:
                        found.append(int(pid))
            except OSError:
                pass
    return found


class Confinement:
    """One mode of the judge (a mixin: each unittest.TestCase below names its mode). Every attack runs through `banklab-judge build`."""

    MODE = None  # what `banklab-judge sandbox` must say: "bwrap"
    USER = None  # None: as whoever runs this test; "nobody": through runuser (root only)
    ROOT = False  # needs a root judge
    ENV = {}

    @classmethod
    def setUpClass(cls):
        if (cls.ROOT or cls.USER) and os.geteuid() != 0:
            raise unittest.SkipTest("needs root")
        if cls.MODE == "bwrap" and cls.USER is None and os.geteuid() != 0 and cls.ROOT:
            raise unittest.SkipTest("needs root")
        cls.tmp = tempfile.mkdtemp(prefix="banklab-confine-test-")
        os.chmod(cls.tmp, 0o777)
        r = cls.judge("sandbox")
        cls.sandbox = r.stdout.splitlines()[0] if r.stdout else ""
        if cls.MODE == "bwrap" and not cls.sandbox.startswith("sandbox: bwrap"):
            raise unittest.SkipTest("bubblewrap does not run here: " + cls.sandbox)
        cls.has_cgroup = "a cgroup per step" in cls.sandbox
        with open(os.path.join(ARGS.root, "labs", "05_swizzle", "kernel.cu")) as f:
            cls.stub = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def command(cls, *args):
        cmd = [ARGS.judge, *args]
        if cls.USER:
            cmd = ["runuser", "-u", cls.USER, "--", *cmd]
        return cmd

    @classmethod
    def env(cls, **extra):
        env = dict(os.environ, **cls.ENV, **extra)
        env.pop("BANKLAB_ALLOW_UNCONFINED", None)
        env.update(extra)
        return env

    @classmethod
    def judge(cls, *args, **extra):
        return subprocess.run(cls.command(*args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=600, env=cls.env(**extra), cwd=cls.tmp)

    def source(self, name, text):
        path = os.path.join(self.tmp, name + ".cu")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        return path

    def cheat(self, case):
        """lab 05's stub with grader/selftest/cheats/CASE.cu appended (its MODE: append)."""
        with open(os.path.join(ARGS.root, "grader", "selftest", "cheats", case + ".cu")) as f:
            text = f.read()
        self.assertIn("// MODE: append", text)
        return self.source(case, self.stub + "\n" + text)

    def build(self, name, source, lab="05", **extra):
        work = os.path.join(self.tmp, "w-" + name)
        r = self.judge("build", "--lab", lab, "--source", source, "--work", work, **extra)
        log = ""
        if os.path.exists(os.path.join(work, "probe.log")):
            with open(os.path.join(work, "probe.log")) as f:
                log = f.read()
        return r, log

    def assert_ran(self, log, payload):
        self.assertIn(payload, log, "the payload never ran: the case proves nothing")

    def assert_peak_within_the_limit(self, log):
        """The most the whole step held at once (its cgroup's memory.max_usage_in_bytes on v1,
        memory.peak on v2, written by the judge into probe.log) stays within the step's limit."""
        if not self.has_cgroup:
            self.assertIn("limited per process only", log, "a judge without a cgroup says its limits are per process")
            return
        m = PEAK.search(log)
        self.assertIsNotNone(m, "probe.log has no memory peak of the step's cgroup: " + log[-300:])
        peak, limit = int(m.group(1)), int(m.group(2))
        self.assertEqual(limit, PROBE_MEMORY_MIB << 20, m.group(0))
        self.assertLessEqual(peak, limit, m.group(0))
        print(f"\n    {type(self).__name__}.{self.id().split('.')[-1]}: {m.group(0)}", file=sys.stderr)

    def test_the_judge_names_its_mode(self):
        self.assertTrue(self.sandbox.startswith("sandbox: " + self.MODE + " "), self.sandbox)

    def test_dev_shm_holds_no_more_than_the_step_may(self):
        r, log = self.build("shm", self.cheat("fills_dev_shm"))
        self.assert_ran(log, "BANKLAB-PAYLOAD-DEV-SHM")
        held = [int(m) for m in re.findall(r"BANKLAB-CHEAT-DEV-SHM held (\d+) MiB", log)]
        most = max(held, default=0)
        self.assertLessEqual(most, 16, "the sandbox's /dev is a 16 MiB tmpfs")
        self.assert_peak_within_the_limit(log)
        self.assertEqual([n for n in os.listdir("/dev/shm") if n.startswith("banklab-cheat-shm")], [],
                         "the submission's files in the machine's /dev/shm outlived the step")

    def test_memfd_pages_count_against_the_step(self):
        if not self.has_cgroup:
            self.skipTest("no cgroup here (" + self.sandbox + "): memfd pages are bounded per process only")
        r, log = self.build("memfd", self.cheat("memfd_past_the_address_space"))
        self.assert_ran(log, "BANKLAB-PAYLOAD-MEMFD")
        held = [int(m) for m in re.findall(r"BANKLAB-CHEAT-MEMFD held (\d+) MiB", log)]
        self.assertLessEqual(max(held, default=0), PROBE_MEMORY_MIB, log[-500:])
        self.assertNotIn("reached 1536 MiB", log)
        self.assert_peak_within_the_limit(log)

    def test_forked_processes_share_one_memory_limit(self):
        if not self.has_cgroup:
            self.skipTest("no cgroup here (" + self.sandbox + "): memory is bounded per process only")
        r, log = self.build("forked", self.cheat("forked_processes_share_the_memory"))
        self.assert_ran(log, "BANKLAB-PAYLOAD-FORKED-MEMORY")
        m = re.search(r"= (\d+) MiB held", log)
        if m:
            self.assertLessEqual(int(m.group(1)), PROBE_MEMORY_MIB, log[-500:])
        else:  # the first process itself was ended by the step's limit: its build cannot pass
            self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assert_peak_within_the_limit(log)
        self.assert_peak_counts_the_children(log)

    def assert_peak_counts_the_children(self, log):
        """Issue 45, item 6: the children are in the step's cgroup, so the peak it reports is at
        least the blocks its live children filled (a cgroup they were not in said 3 MB while six
        of them held 4,800 MiB)."""
        if not self.has_cgroup:
            return
        held = re.search(r"(\d+) of 6 children touched all 800 MiB and live", log)
        peak = PEAK.search(log)
        if held and peak:
            self.assertGreaterEqual(int(peak.group(1)), int(held.group(1)) * (800 << 20),
                                    "the step's peak is below what its children held: they were not in its cgroup: " +
                                    held.group(0) + "; " + peak.group(0))

    def test_a_fork_bomb_meets_the_steps_process_limit(self):
        # grader/selftest/cheats/fork_bomb.cu reports only its first process's failed forks, which
        # depend on timing; this one counts every live process of its uid (the sandbox's own, or
        # the leased uid's) while all of them wait.
        bomb = self.stub + r"""
#include <dirent.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <string>
namespace banklab_test_bomb {
const int kBomb = [] {
  std::printf("TEST-BOMB-RAN\n");
  std::fflush(stdout);
  const pid_t first = getpid();
  for (int i = 0; i < 10; ++i) fork();
  if (getpid() != first) for (;;) pause();
  sleep(2);
  int n = 0;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      std::ifstream f(std::string("/proc/") + e->d_name + "/status");
      for (std::string l; std::getline(f, l);)
        if (l.rfind("Uid:", 0) == 0) n += std::stoi(l.substr(4)) == (int)getuid();
    }
    closedir(d);
  }
  std::printf("TEST-BOMB processes=%d\n", n);
  return 0;
}();
}
"""
        r, log = self.build("bomb", self.source("bomb", bomb))
        self.assert_ran(log, "TEST-BOMB-RAN")
        m = re.search(r"TEST-BOMB processes=(\d+)", log)
        self.assertIsNotNone(m, log[-500:])
        self.assertLessEqual(int(m.group(1)), 64 + 4, "of 1024: the step's process limit (64) did not hold")

    def test_a_daemon_is_gone_when_the_judge_returns(self):
        tag = "bl-d%d" % (os.getpid() % 100000)
        marker = "/tmp/" + tag + "-marker"
        if os.path.exists(marker):
            os.unlink(marker)
        daemon = self.stub + r"""
#include <sys/prctl.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
namespace banklab_test_daemon {
const int kForked = [] {
  std::printf("TEST-DAEMON-RAN\n");
  std::fflush(stdout);
  if (fork() != 0) return 0;
  setsid();
  if (fork() != 0) _exit(0);
  prctl(PR_SET_NAME, "%s");
  sleep(3);  // outlives the probe, the build, the judge
  std::ofstream("%s") << "the daemon lived";
  _exit(0);
}();
}
""" % (tag, marker)
        r, log = self.build("daemon", self.source("daemon", daemon))
        self.assert_ran(log, "TEST-DAEMON-RAN")
        self.assertEqual(processes_named(tag), [], "a process of the submission outlived the judge")
        time.sleep(5)  # the daemon, alive, would have written its marker by now
        self.assertEqual(processes_named(tag), [])
        self.assertFalse(os.path.exists(marker))

    def test_all_user_namespaces_of_one_submission_do_not_stop_another(self):
        attack = subprocess.Popen(self.command("build", "--lab", "05", "--source", self.cheat("creates_every_user_namespace"),
                                               "--work", os.path.join(self.tmp, "w-userns")),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env(), cwd=self.tmp)
        deadline = time.time() + 240
        while not processes_named("bl-userns-hold") and attack.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        holding = bool(processes_named("bl-userns-hold"))
        good = os.path.join(ARGS.root, "solutions", "05_swizzle", "kernel.cu")
        r, _ = self.build("beside-userns", good)
        out, _ = attack.communicate(timeout=300)
        with open(os.path.join(self.tmp, "w-userns", "probe.log")) as f:
            log = f.read()
        self.assert_ran(log, "BANKLAB-PAYLOAD-USERNS")
        self.assertTrue(holding, "the attack was not holding its namespaces while the good build ran: " + log[-300:])
        self.assertEqual(r.returncode, 0, r.stdout)
        m = re.search(r"created (\d+) user namespaces, then (.*)", log)
        self.assertIsNotNone(m, log[-300:])
        if self.MODE == "bwrap" and "no user namespace inside" in self.sandbox:
            self.assertEqual(int(m.group(1)), 0, m.group(0))
        print("\n  %s: %s; the good build beside it: %s" % (type(self).__name__, m.group(0), r.stdout.strip().splitlines()[-1]),
              file=sys.stderr)

    def test_a_step_reads_nothing_its_ancestors_name(self):
        # A world-readable roster and an earlier OUT folder, named on the command line of a process
        # above the judge (as grade-class --roster and --out name them), and the judge itself.
        roster = os.path.join(self.tmp, "roster.csv")
        with open(roster, "w") as f:
            f.write("login,name,canvas_id\naadams,Ada Adams,4242\n")
        os.chmod(roster, 0o644)
        out = os.path.join(self.tmp, "earlier-out")
        os.makedirs(os.path.join(out, "results"), exist_ok=True)
        with open(os.path.join(out, "gradebook.csv"), "w") as f:
            f.write("student,score\naadams,97\n")
        for p in (out, os.path.join(out, "results")):
            os.chmod(p, 0o755)
        work = os.path.join(self.tmp, "w-ancestors")
        cmd = [sys.executable, "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[3:]))", roster, out,
               *self.command("build", "--lab", "05", "--source", self.cheat("reads_what_its_ancestors_name"), "--work", work)]
        subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, env=self.env(),
                           cwd=self.tmp)
        with open(os.path.join(work, "probe.log")) as f:
            log = f.read()
        self.assert_ran(log, "BANKLAB-PAYLOAD-READS-ANCESTORS")
        m = re.search(r"BANKLAB-PAYLOAD-READS-ANCESTORS ran: (\d+) processes seen, (\d+) paths named, (\d+) files read(.*)", log)
        self.assertIsNotNone(m, log[-500:])
        self.assertEqual(int(m.group(3)), 0, "the step read files of the host: " + m.group(0))
        self.assertLessEqual(int(m.group(1)), 3, "the step sees processes outside its sandbox: " + m.group(0))
        for secret in ("aadams", "Ada Adams", "97"):
            self.assertNotIn(secret, m.group(4))
        print(f"\n    {type(self).__name__}: {m.group(0)[:200]}", file=sys.stderr)

    def test_tmp_is_sized_and_nothing_written_outlives_the_step(self):
        # 256 MiB into the probe's /tmp (a 64 MiB tmpfs), then up to 200,000 empty files (inodes,
        # charged to the step's cgroup with the rest of its memory), in at most 20 s.
        flood = self.stub + r"""
#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
namespace banklab_test_flood {
const int kFlooded = [] {
  std::printf("TEST-FLOOD-RAN\n");
  std::fflush(stdout);
  std::vector<char> mib(1 << 20, 'x');
  long long bytes = 0;
  for (int f = 0; f < 8; ++f) {
    const int fd = open(("/tmp/flood-" + std::to_string(f)).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    for (int i = 0; fd >= 0 && i < 32; ++i) {
      const ssize_t n = write(fd, mib.data(), mib.size());
      if (n <= 0) break;
      bytes += n;
    }
    if (fd >= 0) close(fd);
  }
  const auto t0 = std::chrono::steady_clock::now();
  long long files = 0;
  for (; files < 200000 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20); ++files) {
    const int fd = open(("/tmp/bl-inode-" + std::to_string(files)).c_str(), O_WRONLY | O_CREAT, 0600);
    if (fd < 0) break;
    close(fd);
  }
  std::printf("TEST-FLOOD wrote %lld MiB and %lld files\n", bytes >> 20, files);
  std::fflush(stdout);
  return 0;
}();
}
"""
        before = {d: set(os.listdir(d)) for d in ("/tmp", "/var/tmp", "/dev/shm") if os.path.isdir(d)}
        r, log = self.build("flood", self.source("flood", flood))
        self.assert_ran(log, "TEST-FLOOD-RAN")
        m = re.search(r"TEST-FLOOD wrote (\d+) MiB and (\d+) files", log)
        self.assertIsNotNone(m, log[-500:])
        self.assertLessEqual(int(m.group(1)), 64, "the probe's /tmp is a 64 MiB tmpfs: " + m.group(0))
        self.assert_peak_within_the_limit(log)
        for d, names in before.items():
            new = [n for n in set(os.listdir(d)) - names if "flood" in n or n.startswith("bl-inode")]
            self.assertEqual(new, [], f"files of the step in the host's {d}")
        print(f"\n    {type(self).__name__}: {m.group(0)}", file=sys.stderr)

    def test_no_descriptor_of_the_callers_reaches_the_step(self):
        # The caller holds a file open at a low and at a high descriptor (above 1024) when it
        # starts the judge; the probe lists its own descriptors: none is that file.
        secret = os.path.join(self.tmp, "callers-file")
        with open(secret, "w") as f:
            f.write("the caller's\n")
        os.chmod(secret, 0o644)
        fds = [os.open(secret, os.O_RDONLY)]
        fds.append(os.dup2(fds[0], 2000))
        src = self.source("fds", self.stub + r"""
#include <dirent.h>
#include <unistd.h>
#include <cstdio>
#include <string>
namespace banklab_test_fds {
const int kListed = [] {
  std::string seen;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      char to[512] = {};
      const ssize_t n = readlink((std::string("/proc/self/fd/") + e->d_name).c_str(), to, sizeof to - 1);
      seen += std::string(" ") + e->d_name + "=" + (n > 0 ? std::string(to, n) : "?");
    }
    closedir(d);
  }
  std::printf("TEST-FDS-RAN%s\n", seen.c_str());
  std::fflush(stdout);
  return 0;
}();
}
""")
        work = os.path.join(self.tmp, "w-fds")
        try:
            subprocess.run(self.command("build", "--lab", "05", "--source", src, "--work", work), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=600, env=self.env(), cwd=self.tmp, pass_fds=fds)
        finally:
            for fd in fds:
                os.close(fd)
        with open(os.path.join(work, "probe.log")) as f:
            log = f.read()
        self.assert_ran(log, "TEST-FDS-RAN")
        line = re.search(r"TEST-FDS-RAN(.*)", log).group(1)
        self.assertNotIn("callers-file", line, "a descriptor of the caller's reached the step")
        self.assertNotIn(" 2000=", line)
        print(f"\n    {type(self).__name__}: the probe's descriptors:{line}", file=sys.stderr)

    def test_no_key_of_the_callers_reaches_the_step(self):
        # Issue 45, item 4: the caller holds a Kerberos-like key in its session keyring (a
        # pam_keyinit login, a systemd service), one its uid may read; the probe looks for it by its
        # id, by its name in its session, user and user-session keyrings, in /proc/keys, and tries
        # to leave a key of its own in its uid's user keyring.
        if not shutil.which("keyctl"):
            self.skipTest("keyutils' keyctl is not installed (tools/setup-debian --all installs it)")
        usable = subprocess.run(["keyctl", "session", "-", "keyctl", "show", "@s"], capture_output=True, text=True)
        if usable.returncode != 0:  # a container whose seccomp profile fails the keyring calls: no key to reach
            self.skipTest("keyrings cannot be used here: " + (usable.stderr or usable.stdout).strip()[:200])
        template = self.source("keys-template", self.stub + KEY_PROBE)
        src, work = os.path.join(self.tmp, "keys.cu"), os.path.join(self.tmp, "w-keys")
        # One session of the caller's: the key planted, its id written into the probe, the judge
        # run; then the control: the same probe, run from that session outside the sandbox, reads it.
        script = ('id=$(keyctl add user krb5cc:instructor "$0" @s) && keyctl setperm "$id" 0x3f3f0000 && '
                  'sed "s/BANKLAB_KEY_ID/$id/" "$1" > "$2" && chmod 644 "$2" && '
                  '"$3" build --lab 05 --source "$2" --work "$4"; echo "judge exit $?"; '
                  'echo "control:"; cp "$4/probe" "$4.probe" && chmod 755 "$4.probe" && "$4.probe" </dev/null 2>&1 | grep TEST-KEYS-RAN; '
                  'k=$(keyctl search @u user left-for-later 2>/dev/null) && keyctl unlink "$k" @u >/dev/null')  # the control's
        cmd = ["keyctl", "session", "-", "sh", "-c", script, KEY_SECRET, template, src, ARGS.judge, work]
        if self.USER:
            cmd = ["runuser", "-u", self.USER, "--", *cmd]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                           env=self.env(), cwd=self.tmp)
        judged, _, control = r.stdout.partition("control:")
        self.assertIn(KEY_SECRET, control, "the control did not read the caller's key: the case proves nothing: " + r.stdout[-800:])
        with open(os.path.join(work, "probe.log")) as f:
            log = f.read()
        self.assert_ran(log, "TEST-KEYS-RAN")
        line = re.search(r"TEST-KEYS-RAN(.*)", log).group(1)
        self.assertNotIn(KEY_SECRET, log + judged, "the step read its caller's key")
        self.assertNotIn("names the key", line, "the step saw the caller's key in /proc/keys")
        self.assertNotIn("add_key=added", line, "the step left a key in its uid's user keyring")
        print(f"\n    {type(self).__name__}: the probe found{line}; the control found{control.split('TEST-KEYS-RAN')[-1].rstrip()}",
              file=sys.stderr)

    def test_every_solution_builds(self):
        if self.USER:
            self.skipTest("once per mode: as root")
        from banklab.lab import labs as banklab_labs   # the one reader of what a lab is
        labs = banklab_labs.find_labs(ARGS.root)
        self.assertGreaterEqual(len(labs), 7)
        for n, lab in labs.items():
            with self.subTest(lab=lab.folder):
                r, _ = self.build("sol" + n, str(lab.solution), lab=n)
                self.assertEqual(r.returncode, 0, r.stdout)


class Bwrap(Confinement, unittest.TestCase):
    """As whoever runs the test; as root: bubblewrap started as root, the step as its leased uid."""
    MODE = "bwrap"

    def test_a_root_judges_step_is_its_leased_uid_with_no_capability(self):
        if os.geteuid() != 0:
            self.skipTest("needs root")
        self.assertIn("as root (no user namespace needed)", self.sandbox)
        src = self.source("looks", self.stub + r"""
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <string>
namespace banklab_test_uid {
const int kLooked = [] {
  std::string caps;
  std::ifstream f("/proc/self/status");
  for (std::string l; std::getline(f, l);)
    if (l.rfind("CapEff:", 0) == 0 || l.rfind("CapBnd:", 0) == 0 || l.rfind("NoNewPrivs:", 0) == 0) caps += l + " ";
  std::printf("TEST-UID-RAN uid=%d groups=%d sid=%d %s\n", (int)getuid(), getgroups(0, nullptr), (int)getsid(0), caps.c_str());
  if (access("/etc/shadow", F_OK) == 0) std::printf("TEST-UID-SEES /etc/shadow\n");
  if (access("JUDGE_PATH", F_OK) == 0) std::printf("TEST-UID-SEES the judge\n");
  std::fflush(stdout);
  return 0;
}();
}
""".replace("JUDGE_PATH", ARGS.judge))
        r, log = self.build("uid-looks", src)
        self.assert_ran(log, "TEST-UID-RAN")
        m = re.search(r"TEST-UID-RAN uid=(\d+) groups=(\d+) sid=(\d+) (.*)", log)
        self.assertNotIn(int(m.group(1)), (0, 65534), "a uid of its own, not root or the shared nobody")
        self.assertEqual(int(m.group(2)), 0, "no supplementary group")
        self.assertRegex(m.group(4), r"CapEff:\s+0+ CapBnd:\s+0+ NoNewPrivs:\s+1")
        self.assertNotIn("TEST-UID-SEES", log)


class BwrapAsNobody(Confinement, unittest.TestCase):
    """A normal user's judge with bubblewrap: no uid lease, no cgroup, the sandbox's own limits."""
    MODE = "bwrap"
    USER = "nobody"


class NoSandbox(unittest.TestCase):
    """A normal user where bubblewrap cannot start: the judge refuses, in every mode, and says what
    to install; BANKLAB_ALLOW_UNCONFINED=1 (not graded) is a student's own choice for their own file."""
    AS_ROOT = False

    def run_judge(self, *args, **env):
        cmd = [ARGS.judge, *args]
        if os.geteuid() == 0 and not self.AS_ROOT:
            cmd = ["runuser", "-u", "nobody", "--", *cmd]
        full = dict(os.environ, BANKLAB_BWRAP=NO_BWRAP)
        full.pop("BANKLAB_ALLOW_UNCONFINED", None)
        full.update(env)
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600, env=full,
                              cwd=self.tmp)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="banklab-confine-none-")
        os.chmod(self.tmp, 0o777)
        self.solution = os.path.join(ARGS.root, "solutions", "05_swizzle", "kernel.cu")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_judge_refuses_and_says_what_to_install(self):
        r = self.run_judge("sandbox")
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertTrue(r.stdout.startswith("no sandbox: "), r.stdout)
        self.assertIn("apt-get install bubblewrap", r.stdout)
        for extra in ([], ["--graded"], ["--fresh-container"], ["--graded", "--fresh-container"]):
            with self.subTest(flags=extra):
                work = os.path.join(self.tmp, "w" + "".join(extra))
                r = self.run_judge("build", *extra, "--lab", "05", "--source", self.solution, "--work", work)
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertIn("refuses", r.stdout)
                self.assertIn("apt-get install bubblewrap", r.stdout)
                self.assertFalse(os.path.exists(os.path.join(work, "answers.txt")))
        work = os.path.join(self.tmp, "w-graded-allowed")
        r = self.run_judge("build", "--graded", "--lab", "05", "--source", self.solution, "--work", work,
                           BANKLAB_ALLOW_UNCONFINED="1")
        self.assertEqual(r.returncode, 1, "graded mode never builds unconfined: " + r.stdout)

    def test_a_student_may_build_their_own_file_unconfined_when_they_ask(self):
        if self.AS_ROOT:
            work = os.path.join(self.tmp, "w-root-allowed")
            r = self.run_judge("build", "--lab", "05", "--source", self.solution, "--work", work, BANKLAB_ALLOW_UNCONFINED="1")
            self.assertEqual(r.returncode, 1, "root never builds unconfined: " + r.stdout)
            self.assertFalse(os.path.exists(os.path.join(work, "answers.txt")))
            return
        work = os.path.join(self.tmp, "w-allowed")
        r = self.run_judge("build", "--lab", "05", "--source", self.solution, "--work", work, BANKLAB_ALLOW_UNCONFINED="1")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("without a sandbox", r.stdout)


@unittest.skipUnless(os.geteuid() == 0, "needs root")
class NoSandboxAsRoot(NoSandbox):
    """Root where bubblewrap cannot start (a container without namespaces): no hand-made jail, the
    judge refuses like any other (issue 30: the uid mode is gone)."""
    AS_ROOT = True


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--root", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.judge, ARGS.root = os.path.abspath(ARGS.judge), os.path.abspath(ARGS.root)
    unittest.main(argv=[sys.argv[0], "-v", *rest])
