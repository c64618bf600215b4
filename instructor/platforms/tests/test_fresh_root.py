"""The platforms' install and grade steps, run in a fresh Debian 12 root made with debootstrap.

One root for both platforms, from a tarball cached in the build folder ($BANKLAB_PLATFORMS_CACHE,
made once with `debootstrap --variant=minbase bookworm`: about 2 minutes). Each run unpacks a
fresh copy and enters it with bubblewrap (the host's CUDA toolkit bound read-only at
/usr/local/cuda, the network shared for apt), then:

- Gradescope: unzips `make-zip --lab 05` to /autograder/source, runs its setup.sh (apt-get
  installs, the judge is built), puts a bare kernel.cu (the lab 05 solution) in
  /autograder/submission and runs run_autograder with the zip's default setting: the GPU tier
  judged on the emulator (no GPU in the root), graded; results.json must give the solution's
  points but its timing tests' (not judged, never a failed line), tag the GPU tests "emulated",
  say the grade is incomplete, and show no instructor check;
- PrairieLearn: runs the Dockerfile's install step (instructor/platforms/install-grader.sh) on a
  student release copied to /banklab, the one course path, then `run` on /grade: a compile error
  is `gradable: false` with the compiler's message in `format_errors`, the solution is graded
  (the GPU tier on the emulator, by default: its message says so, the timing tests not judged).

Only Debian is reachable from here: Gradescope's Ubuntu 24.04 image itself is not tried.
Needs root, debootstrap and bwrap (tools/setup-debian --all); otherwise the test is skipped.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CACHE = Path(os.environ.get("BANKLAB_PLATFORMS_CACHE", ROOT / "build" / "platforms"))
CUDA = Path(os.path.realpath("/usr/local/cuda"))
TARBALL = CACHE / "debian12-minbase.tar"
MIRROR = os.environ.get("BANKLAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")

from banklab.lab import labs as banklab_labs   # noqa: E402
from banklab.grading import points as bpt   # noqa: E402
from banklab.grading import invocation   # noqa: E402


def why_not() -> str:
    if os.geteuid() != 0:
        return "not root (debootstrap and a root inside bubblewrap need it)"
    for tool in ("debootstrap", "bwrap", "tar"):
        if shutil.which(tool) is None:
            return f"{tool} not found (tools/setup-debian --all installs it)"
    if not (CUDA / "bin" / "nvcc").is_file():
        return f"no CUDA toolkit at {CUDA} to bind into the root"
    if not (ROOT / "solutions").is_dir():
        return "no solutions/ (a student release)"
    return ""


def base_tarball() -> Path:
    """The debootstrap root, made once and kept in the build folder."""
    if TARBALL.is_file():
        return TARBALL
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="debootstrap-", dir=CACHE))
    try:
        subprocess.run(["debootstrap", "--variant=minbase", "bookworm", str(tmp / "root"), MIRROR],
                       check=True, stdout=subprocess.DEVNULL, timeout=1200)
        subprocess.run(["tar", "-C", str(tmp / "root"), "-cf", str(tmp / "root.tar"), "."], check=True)
        (tmp / "root.tar").rename(TARBALL)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return TARBALL


def in_root(root: Path, script: str, env: dict | None = None, timeout: int = 3000) -> subprocess.CompletedProcess:
    # The toolkit at its own path, and /usr/local/cuda a link to it, as NVIDIA's packages lay it out.
    link = root / "usr" / "local" / "cuda"
    if not link.is_symlink():
        if link.is_dir():
            link.rmdir()
        link.symlink_to(CUDA.name)
    # The machine's cgroups, as a platform's container that lets its grader make cgroups has them:
    # grading that counts needs a cgroup per step (--require-step-limits), and refuses without one.
    cmd = ["bwrap", "--bind", str(root), "/", "--dev", "/dev", "--proc", "/proc",
           "--bind", "/sys/fs/cgroup", "/sys/fs/cgroup",
           "--ro-bind", str(CUDA), str(CUDA), "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf",
           "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--clearenv",
           "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "--setenv", "HOME", "/root", "--setenv", "LANG", "C.UTF-8"]
    for k, v in (env or {}).items():
        cmd += ["--setenv", k, v]
    return subprocess.run(cmd + ["bash", "-c", script], capture_output=True, text=True, timeout=timeout)


WHY = why_not()


@unittest.skipIf(WHY, WHY)
class PlatformsInAFreshDebianRoot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="fresh-root-", dir=CACHE if CACHE.is_dir() else None))
        cls.root = cls.tmp / "root"
        cls.root.mkdir()
        subprocess.run(["tar", "-C", str(cls.root), "-xf", str(base_tarball())], check=True)
        # The second judge build (PrairieLearn's) reuses the first one's objects: a compiler cache
        # inside the root, so that the test fits CI; the install steps themselves are unchanged.
        cls.env = {"CCACHE_DIR": "/var/cache/banklab-ccache", "CCACHE_BASEDIR": "/",
                   "BANKLAB_CMAKE_ARGS": "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"}
        r = in_root(cls.root, "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache >/dev/null")
        assert r.returncode == 0, r.stdout + r.stderr
        cls.solution = (ROOT / "solutions" / "05_swizzle" / "kernel.cu").read_text()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_1_the_gradescope_zip_for_one_lab_grades_a_bare_upload(self):
        z = self.tmp / "autograder.zip"
        subprocess.run([sys.executable, str(ROOT / "instructor/platforms/gradescope/make-zip"), str(z), "--lab", "05"],
                       check=True, capture_output=True, timeout=600)
        src = self.root / "autograder" / "source"
        with zipfile.ZipFile(z) as zf:
            zf.extractall(src)
            for info in zf.infolist():                 # zipfile drops the modes: as Gradescope keeps them
                mode = info.external_attr >> 16
                if mode:
                    (src / info.filename).chmod(mode & 0o777)
        sub = self.root / "autograder" / "submission"
        sub.mkdir(parents=True)
        (sub / "kernel.cu").write_text(self.solution)
        r = in_root(self.root, "bash /autograder/source/setup.sh", self.env)
        self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-4000:])
        r = in_root(self.root, "/autograder/source/run_autograder", self.env)
        self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-4000:])
        d = json.loads((self.root / "autograder" / "results" / "results.json").read_text())
        table = bpt.load_points(ROOT, "05")
        listed = invocation.list_tests(self._judge(src), "05")
        timed = {t.full_name for t in banklab_labs.find_labs(ROOT)["05"].tests() if t.timed}
        alloc = table.allocate(n for n, _ in listed)
        self.assertTrue(timed and timed <= set(alloc))
        # The default: every test judged but the timing tests (not judged on the emulator, no failed line).
        self.assertAlmostEqual(d["score"], sum(v for n, v in alloc.items() if n not in timed), places=2,
                               msg=d.get("output"))
        self.assertIn("Incomplete grade", d["output"])
        self.assertIn("were judged on the emulator", d["output"])
        self.assertFalse([t for t in d["tests"] if "Instructor" in t["name"]])
        gpu = [t for t in d["tests"] if any(t["name"] == f"lab05 {n}" for n, tier in listed if tier == "gpu")]
        self.assertTrue(gpu and all(t.get("tags") == ["emulated"] and t["status"] == "passed" for t in gpu), gpu)
        self.assertFalse([t for t in d["tests"] if t.get("status") == "failed"], d["tests"])

    def _judge(self, src: Path) -> Path:
        """The judge built in the root, run from the host to list its tests."""
        return next(p for p in (src / "build" / "judge").rglob("banklab-judge") if p.is_file())

    def test_2_the_prairielearn_install_steps_run_and_a_compile_error_is_not_gradable(self):
        rel = self.root / "banklab"
        subprocess.run([sys.executable, str(ROOT / "instructor" / "make-release"), "--grading", str(self.tmp / "release")],
                       check=True, capture_output=True, timeout=600)
        shutil.copytree(self.tmp / "release", rel)
        docker = (ROOT / "instructor/platforms/prairielearn/Dockerfile").read_text()
        self.assertIn("FROM debian:12", docker)
        self.assertIn("RUN bash /banklab/instructor/platforms/install-grader.sh /banklab", docker)
        r = in_root(self.root, "bash /banklab/instructor/platforms/install-grader.sh /banklab", self.env)
        self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-4000:])
        for name, text in (("broken", self.solution.replace("namespace predict {", "namespace predict {\nint x = ;", 1)),
                           ("solved", self.solution)):
            g = self.root / "grade"
            shutil.rmtree(g, ignore_errors=True)
            (g / "student").mkdir(parents=True)
            (g / "data").mkdir()
            (g / "student" / "kernel.cu").write_text(text)
            (g / "data" / "data.json").write_text('{"params": {"banklab_lab": "05", "banklab_variant": 0}}')
            r = in_root(self.root, "bash /banklab/instructor/platforms/prairielearn/run", self.env)
            self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-4000:])
            d = json.loads((g / "results" / "results.json").read_text())
            with self.subTest(name):
                if name == "broken":
                    self.assertIs(d["gradable"], False)
                    self.assertIn("error", d["format_errors"][0])
                    self.assertIn("kernel.cu", d["format_errors"][0])
                else:
                    self.assertIs(d["gradable"], True)
                    self.assertGreater(d["score"], 0)
                    self.assertLess(d["score"], 1)          # timing not judged: incomplete, never full marks
                    self.assertIn("incomplete", d["message"])
                    self.assertIn("(GPU tier on the emulator)", d["message"])
        info = json.loads((ROOT / "instructor/platforms/prairielearn/question/info.json").read_text())
        opts = info["externalGradingOptions"]
        self.assertTrue(opts["entrypoint"].startswith("/banklab/"))
        self.assertGreater(opts["timeout"], 280)       # run's outer limit, itself above the judge's


if __name__ == "__main__":
    if WHY:
        print(f"SKIP: {WHY}")
        sys.exit(77)
    unittest.main(verbosity=2)
