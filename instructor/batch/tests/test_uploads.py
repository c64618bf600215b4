"""Uploads that must cost nobody but their author, uploads chosen or refused openly, and identities
as each LMS defines them (issue 30 families 2 and 5, issue 31 items 3 to 5), graded by
instructor/batch/grade-class with the TEST DOUBLE judge (tests/fake_judge.py):

- HostileArchives: a 1 MB-class .tar.gz whose GNU long-name header is 2 GiB, a .tar.xz whose pax
  header is 5 GiB, a zip whose central directory holds 300,000 entries (each made in the test,
  small on disk) beside honest students: the class run finishes with bounded memory and time (its
  whole process tree under an address-space cap, as in a container), the honest students are graded,
  each hostile one is named as not unpacked with the reason; the same class through a Slurm array
  (a stand-in sbatch that runs each task here: every task lists the whole class); the unpacking
  process's own memory and time limits turn into that student's reason;
- ChoosingAnUpload: a stale kernel.cu beside kernel_final.zip, a kernel beside an unreadable
  archive, a zip inside a zip, a zip holding a kernel and another zip are refused with the list;
  the same kernel twice is graded once; the feedback names the file graded and the files ignored;
- Identities: a folder named after a classmate's login takes nobody's row; Canvas's squashed-name
  prefix is never a login; Moodle's flat download is read; every import file with a row no LMS can
  match is named with its fix; two students resolving to one identity are both refused.

  python3 -m unittest discover -s instructor/batch/tests -p 'test_uploads.py' -v
"""

import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile
import zlib
import lzma
from pathlib import Path

HERE = Path(__file__).resolve().parent
from banklab.grading import archives   # noqa: E402

FAKE = HERE / "fake_judge.py"
GRADE_CLASS = HERE.parent / "grade-class"
SOLVED = "// FAKE-JUDGE: solved\n"
STUB = "// FAKE-JUDGE: stub\n"
#: The address space the whole grade-class run is given (a container's cap), and what any one of
#: its processes may reach in RSS.
RUN_AS_CAP = 1536 << 20
RSS_BOUND_KIB = 128 << 10          # grade-class and its unpacker: about 25 MiB here

# grade-class under RLIMIT_AS, and the largest RSS of any process of its tree (KiB) on stdout.
CAPPED = """import resource, subprocess, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL)
sys.stdout.write("%d %d\\n" % (r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
"""


def grade_class(subs: Path, out: Path, *args, lab="05", env=None, capped=False, timeout=600):
    cmd = [sys.executable, str(GRADE_CLASS), str(subs), "--out", str(out), "--lab", lab, "-j", "2",
           "--timeout", "60", "--judge", str(FAKE), *map(str, args)]
    if capped:
        cmd = [sys.executable, "-c", CAPPED.format(cap=RUN_AS_CAP)] + cmd
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    r.seconds = time.monotonic() - t0
    if capped:
        last = r.stdout.strip().splitlines()[-1].split()
        r.returncode, r.maxrss_kib = int(last[0]), int(last[1])
    return r


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def put(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return path


def make_zip(path: Path, entries: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


# ----------------------------------------------------------------------------- hostile archives

def tar_header(name: bytes, size: int, kind: bytes) -> bytes:
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108], h[108:116], h[116:124] = b"0000644\0", b"0000000\0", b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"%011o\0" % 0
    h[148:156] = b" " * 8
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def kernel_entry(text: str) -> bytes:
    data = text.encode()
    return tar_header(b"kernel.cu", len(data), b"0") + data + bytes(-len(data) % 512) + bytes(1024)


def huge_header_tar(path: Path, kind: bytes, gib: int, codec: str) -> Path:
    """A tar whose first header is an extended one (b"L": a GNU long name, b"x": a pax header) of
    `gib` GiB of zeros, then a kernel: compressed as concatenated members (gzip) or streams (xz),
    the zeros compressed once, so that it is small on disk and fast to make."""
    chunk = 64 << 20
    comp = ((lambda b: zlib.compress(b, 9, wbits=31)) if codec == "gz"
            else (lambda b: lzma.compress(b, preset=0)))
    zeros = comp(bytes(chunk))
    head_name = b"././@LongLink" if kind == b"L" else b"PaxHeaders/kernel.cu"
    with open(path, "wb") as f:
        f.write(comp(tar_header(head_name, gib << 30, kind)))
        for _ in range((gib << 30) // chunk):
            f.write(zeros)
        f.write(comp(kernel_entry(SOLVED)))
    return path


def huge_directory_zip(path: Path, entries: int) -> Path:
    """A zip whose central directory holds `entries` entries, every one naming the same empty
    local file (so it is the directory alone that is big: about 50 bytes an entry)."""
    name = b"a.cu"
    local = (b"PK\x03\x04" + (20).to_bytes(2, "little") + bytes(8) + bytes(4) + bytes(8)
             + len(name).to_bytes(2, "little") + bytes(2) + name)
    one = (b"PK\x01\x02" + (20).to_bytes(2, "little") * 2 + bytes(8) + bytes(12)
           + len(name).to_bytes(2, "little") + bytes(8) + bytes(4) + bytes(4) + name)
    cd = one * entries
    eocd = (b"PK\x05\x06" + bytes(4) + (min(entries, 0xFFFF)).to_bytes(2, "little") * 2
            + len(cd).to_bytes(4, "little") + len(local).to_bytes(4, "little") + bytes(2))
    path.write_bytes(local + cd + eocd)
    return path


FAKE_SBATCH = """#!/bin/sh
# A stand-in for sbatch: runs each task of the array here, one after another, then prints its id.
array=""; out=""
for x in "$@"; do
  case "$x" in --array=*) array="${x#--array=}";; --output=*) out="${x#--output=}";; esac
  script="$x"
done
last="${array#0-}"; last="${last%%%*}"
i=0
while [ "$i" -le "$last" ]; do
  SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=4242 sh "$script" > "$(echo "$out" | sed "s/%a/$i/")" 2>&1
  i=$((i + 1))
done
echo 4242
"""


class HostileArchives(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-hostile-"))
        cls.tmp.chmod(0o755)
        s = cls.subs = cls.tmp / "export"
        for i in range(4):
            put(s / f"honest{i}" / "kernel.cu", SOLVED)
        put(s / "stub" / "kernel.cu", STUB)
        make_zip(s / "zipped" / "submission.zip", {"kernel.cu": SOLVED.encode()})
        cls.gz = huge_header_tar(put(s / "longname" / "kernel.tar.gz", b""), b"L", 2, "gz")
        cls.xz = huge_header_tar(put(s / "pax" / "kernel.tar.xz", b""), b"x", 5, "xz")
        cls.zip = huge_directory_zip(put(s / "directory" / "kernel.zip", b""), 300_000)
        cls.run_ = grade_class(s, cls.tmp / "out", capped=True)
        cls.rows = {r["student"]: r for r in read_csv(cls.tmp / "out" / "results.csv")}
        cls.book = {r["student"]: r for r in read_csv(cls.tmp / "out" / "gradebook.csv")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_uploads_are_small_on_disk(self):
        for f in (self.gz, self.xz, self.zip):
            self.assertLess(f.stat().st_size, 16 << 20, f)
        self.assertLess(self.gz.stat().st_size, 3 << 20)
        self.assertLess(self.xz.stat().st_size, 2 << 20)

    def test_the_class_run_finishes_under_a_memory_cap_with_bounded_rss_and_time(self):
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)
        self.assertNotIn("Traceback", self.run_.stderr)
        self.assertNotIn("MemoryError", self.run_.stderr)
        self.assertLess(self.run_.maxrss_kib, RSS_BOUND_KIB, "a process of the run grew past 128 MiB")
        self.assertLess(self.run_.seconds, 120)

    def test_every_honest_student_is_graded(self):
        for st in ("honest0", "honest1", "honest2", "honest3", "zipped"):
            self.assertGreater(float(self.rows[st]["points"]), 0, st)
        self.assertEqual(self.book["stub"]["not judged"], "")

    def test_each_hostile_upload_is_its_authors_alone_and_named_with_the_reason(self):
        for st, upload, why in (("longname", "kernel.tar.gz", "a header of 2147483648 bytes"),
                                ("pax", "kernel.tar.xz", "a header of 5368709120 bytes"),
                                ("directory", "kernel.zip", "more than 1000 entries")):
            with self.subTest(st):
                note = self.book[st]["not judged"]
                self.assertIn(f"{upload} was not unpacked", note)
                self.assertIn(why, note)
                self.assertIn(why, self.rows[st]["not judged"])
                self.assertIn(float(self.rows[st]["points"] or 0), (0.0,))

    def test_every_slurm_task_lists_the_whole_class_and_still_grades_its_shard(self):
        bindir = self.tmp / "bin"
        put(bindir / "sbatch", FAKE_SBATCH).chmod(0o755)
        put(bindir / "squeue", "#!/bin/sh\nexit 0\n").chmod(0o755)
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}")
        out = self.tmp / "slurm-out"
        r = grade_class(self.subs, out, "--engine", "slurm", "--slurm-shard", "3", "--slurm-poll", "0.5",
                        env=env, capped=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        logs = sorted((out / "slurm").glob("*/task-*.out"))
        self.assertEqual(len(logs), 2)                       # 6 honest submissions, 3 a task
        for log in logs:
            self.assertIn("3 of 3 graded", log.read_text())
            self.assertNotIn("Traceback", log.read_text())
        self.assertLess(r.maxrss_kib, RSS_BOUND_KIB)
        rows = {x["student"]: x for x in read_csv(out / "results.csv")}
        for st in ("honest0", "honest1", "honest2", "honest3", "zipped"):
            self.assertEqual(rows[st]["points"], self.rows[st]["points"], st)
        book = {x["student"]: x for x in read_csv(out / "gradebook.csv")}
        self.assertIn("a header of 5368709120 bytes", book["pax"]["not judged"])

    def test_the_unpacking_process_limits_become_that_students_reason(self):
        d = Path(tempfile.mkdtemp(dir=self.tmp))
        seven = tar_header(b"build.o", 7 << 20, b"0") + bytes(7 << 20)      # skipped, yet decompressed
        big = put(self.tmp / "plain.tar.xz", lzma.compress(seven * 4 + kernel_entry(SOLVED), preset=0))
        with self.assertRaisesRegex(archives.UnsafeArchive, "still unpacking after 0.01 s and was stopped"):
            archives.unpack_upload(big, Path(tempfile.mkdtemp(dir=d)), timeout=0.01)
        # xz -9e: its decoder needs a 64 MiB dictionary, more than 32 MiB of address space gives.
        wide = put(self.tmp / "wide.tar.xz", lzma.compress(kernel_entry(SOLVED), preset=9 | lzma.PRESET_EXTREME))
        with self.assertRaisesRegex(archives.UnsafeArchive, "it needs more than 32 MiB of memory to unpack"):
            archives.unpack_upload(wide, Path(tempfile.mkdtemp(dir=d)), memory=32 << 20)
        for archive in (big, wide):                 # within the default limits: the kernel, nothing else
            ok = Path(tempfile.mkdtemp(dir=d))
            self.assertEqual(archives.unpack_upload(archive, ok), [])
            self.assertEqual([p.name for p in ok.rglob("*") if p.is_file()], ["kernel.cu"])
            self.assertEqual((ok / "kernel.cu").read_text(), SOLVED)

    def test_a_tar_split_over_several_gzip_members_or_xz_streams_is_read_whole(self):
        raw = (tar_header(b"notes.txt", 3000, b"0") + bytes(3000) + bytes(-3000 % 512)
               + tar_header(b"sub/", 0, b"5") + kernel_entry(SOLVED))
        cuts = (0, 700, 1500, 2100, len(raw))               # members that cut headers and data alike
        for comp in (lambda b: zlib.compress(b, 6, wbits=31), lzma.compress):
            p = put(self.tmp / "split.tar.gz", b"".join(comp(raw[a:b]) for a, b in zip(cuts, cuts[1:])))
            dest = Path(tempfile.mkdtemp(dir=self.tmp))
            self.assertEqual(archives._unpack_here(p, dest), {"nested": []})      # the reader, in this process
            self.assertEqual((dest / "kernel.cu").read_text(), SOLVED)

    def test_a_tar_is_read_in_each_format_and_codec_and_a_header_within_the_limit_passes(self):
        import tarfile
        for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT):
            for mode in ("w", "w:gz", "w:bz2", "w:xz"):
                with self.subTest(fmt=fmt, mode=mode):
                    p = self.tmp / f"fmt{fmt}.tar{mode[1:].replace(':', '.')}"
                    with tarfile.open(p, mode, format=fmt) as t:
                        for name, data in ((f"top/{'d' * 120}/kernel.cu", SOLVED.encode()),
                                           ("top/notes/é.txt", b"x" * 3000), ("top/old.zip", b"PK")):
                            info = tarfile.TarInfo(name)
                            info.size = len(data)
                            t.addfile(info, io.BytesIO(data))
                    dest = Path(tempfile.mkdtemp(dir=self.tmp))
                    self.assertEqual(archives._unpack_here(p, dest), {"nested": ["top/old.zip"]})
                    files = [q for q in dest.rglob("*") if q.is_file()]
                    self.assertEqual([q.name for q in files], ["kernel.cu"])
                    self.assertEqual(files[0].read_text(), SOLVED)


# ----------------------------------------------------------------------------- choosing an upload

class ChoosingAnUpload(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-choose-"))
        cls.tmp.chmod(0o755)
        s = cls.tmp / "export"
        put(s / "stale" / "kernel.cu", STUB)                   # the old stub beside the real file
        make_zip(s / "stale" / "kernel_final.zip", {"kernel.cu": SOLVED.encode()})
        put(s / "broken" / "kernel.cu", SOLVED)
        put(s / "broken" / "kernel_v2.zip", b"PK\x03\x04 not really a zip")
        make_zip(s / "nested" / "submission.zip", {"inner.zip": zip_bytes({"kernel.cu": SOLVED.encode()})})
        make_zip(s / "nestedplus" / "submission.zip", {"kernel.cu": STUB.encode(),
                                                       "old/kernel.zip": zip_bytes({"kernel.cu": SOLVED.encode()})})
        put(s / "twice" / "kernel.cu", SOLVED)                  # the same kernel, loose and zipped
        make_zip(s / "twice" / "kernel.zip", {"kernel.cu": SOLVED.encode()})
        put(s / "twice" / "report.pdf", b"%PDF-1.4")
        put(s / "plain" / "kernel.cu", SOLVED)
        put(s / "checkout" / "labs" / "05_swizzle" / "kernel.cu", SOLVED)   # a checkout: its own files
        put(s / "checkout" / "labs" / "05_swizzle" / "README.md", "handout")  # are no uploads
        put(s / "checkout" / "notes.pdf", b"%PDF-1.4")
        for i in range(21):                                    # more archives than are ever opened
            make_zip(s / "hoard" / f"part{i:02}.zip", {"kernel.cu": SOLVED.encode()})
        cls.run_ = grade_class(s, cls.tmp / "out")
        cls.book = {r["student"]: r for r in read_csv(cls.tmp / "out" / "gradebook.csv")}
        cls.rows = {r["student"]: r for r in read_csv(cls.tmp / "out" / "results.csv")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def feedback(self, st):
        return (self.tmp / "out" / "feedback" / f"{st}.md").read_text(encoding="utf-8")

    def test_grade_class_exits_zero(self):
        self.assertEqual(self.run_.returncode, 0, self.run_.stderr)
        self.assertNotIn("Traceback", self.run_.stderr)

    def test_several_uploads_holding_a_kernel_are_refused_with_the_list(self):
        for st, listed in (("stale", ("kernel.cu", "kernel_final.zip: kernel.cu")),
                           ("broken", ("kernel.cu", "kernel_v2.zip was not unpacked")),
                           ("nestedplus", ("submission.zip: kernel.cu", "submission.zip holds an archive inside it (old/kernel.zip)"))):
            with self.subTest(st):
                note = self.book[st]["not judged"]
                self.assertIn("more than one upload could be lab 05's kernel, so none was graded", note)
                for name in listed:
                    self.assertIn(name, note)
                self.assertEqual(float(self.rows[st]["points"] or 0), 0.0)
                self.assertIn("more than one upload", self.feedback(st))

    def test_any_failure_while_reading_one_students_files_is_that_students_reason(self):
        from banklab.grading import uploads as bu
        def find(lab, lab_dir):
            if lab == "05":
                raise OSError(5, "Input/output error")
            return None, "no kernel.cu"
        got = bu.sources_guarded(find, {"04": "04_padding", "05": "05_swizzle"}, single=False)
        self.assertEqual(list(got), ["05"])
        self.assertIsNone(got["05"][0])
        self.assertIn("this student's files could not be read (OSError: [Errno 5] Input/output error)", got["05"][1])
        self.assertTrue(bu.names_a_problem(got["05"][1]))

    def test_a_hoard_of_archives_is_refused_unopened(self):
        note = self.book["hoard"]["not judged"]
        self.assertIn("21 archives were handed in (the grader opens at most 20), so none was opened", note)

    def test_a_zip_inside_a_zip_is_reported_as_such(self):
        note = self.book["nested"]["not judged"]
        self.assertIn("submission.zip holds an archive inside it (inner.zip)", note)
        self.assertIn("not an archive inside an archive", note)
        self.assertNotIn("no kernel.cu", note)

    def test_the_feedback_names_the_file_graded_and_the_files_ignored(self):
        self.assertEqual(self.book["twice"]["not judged"], "")
        self.assertGreater(float(self.rows["twice"]["points"]), 0)
        self.assertEqual(self.rows["twice"]["points"], self.rows["plain"]["points"])
        fb = self.feedback("twice")
        self.assertIn("File graded: kernel.cu.", fb)
        self.assertIn("Handed in and not graded: kernel.zip: kernel.cu (the same file), report.pdf.", fb)
        html = (self.tmp / "out" / "feedback" / "twice.html").read_text(encoding="utf-8")
        self.assertIn("File graded: kernel.cu.", html)
        self.assertIn("File graded: kernel.cu.\n", self.feedback("plain"))
        self.assertIn("File graded: labs/05_swizzle/kernel.cu. Handed in and not graded: notes.pdf.\n",
                      self.feedback("checkout"))
        self.assertNotIn("not graded:", self.feedback("plain").split("File graded")[1].split("\n")[0])


# ----------------------------------------------------------------------------- identities

CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                 '"Adams, Alice",1001,S1001,aadams,Sec 1\n"Brown, Bob",1002,S1002,bbrown,Sec 1\n')


class Identities(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="banklab-ids-"))
        cls.tmp.chmod(0o755)
        cls.roster = put(cls.tmp / "roster.csv", CANVAS_ROSTER)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_export(self, name, files: dict, *args):
        subs, out = self.tmp / name, self.tmp / f"{name}-out"
        for rel, text in files.items():
            put(subs / rel, text)
        r = grade_class(subs, out, *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r, out

    def test_a_folder_named_after_a_classmates_login_takes_nobodys_row(self):
        files = {"aadams/kernel.cu": SOLVED, "Alice Adams/kernel.cu": STUB}
        r, out = self.run_export("steal", files, "--roster", self.roster)
        lms = {x["Student"]: x for x in read_csv(out / "lms.csv")[1:]}
        for st in ("aadams", "Alice Adams"):
            self.assertEqual((lms[st]["ID"], lms[st]["SIS User ID"], lms[st]["SIS Login ID"]), ("", "", ""), st)
        bb = read_csv(out / "lms-blackboard.csv")
        self.assertEqual({x["Username"] for x in bb if x["Last Name"] in ("aadams", "Adams")}, {""})
        self.assertNotIn("Adams", {x["Last Name"] for x in bb if x["Username"]})   # the roster's absent: theirs only
        ids = {x["student"]: x for x in read_csv(out / "identities.csv")}
        self.assertEqual(ids["aadams"]["status"], "to confirm")
        self.assertIn("SIS Login ID", ids["aadams"]["basis"])
        self.assertIn("full name", ids["Alice Adams"]["basis"])
        self.assertIn("not written to any LMS file", r.stderr)
        # Without a roster, the folder's name is written as no login either.
        r2, out2 = self.run_export("steal-bare", files)
        self.assertEqual({x["SIS Login ID"] for x in read_csv(out2 / "lms.csv")[1:]}, {""})
        self.assertIn("lms.csv: 2 of 2 row(s) have no ID / SIS User ID / SIS Login ID", r2.stderr)
        # The instructor confirms both proposals: they resolve to one identity, so both are refused.
        confirm = self.tmp / "steal-confirm.csv"
        confirm.write_text("student,ID,SIS User ID,login,name,confirm\n"
                           "aadams,1001,S1001,aadams,,yes\nAlice Adams,1001,S1001,aadams,,yes\n")
        r3, out3 = self.run_export("steal", {}, "--roster", self.roster, "--identities", confirm)
        self.assertIn("refused: 'Alice Adams', 'aadams' all resolve to", r3.stderr)
        lms3 = {x["Student"]: x for x in read_csv(out3 / "lms.csv")[1:]}
        self.assertEqual({lms3[st]["ID"] for st in ("aadams", "Alice Adams")}, {""})
        # Confirming the right one writes it, to that row only.
        confirm.write_text("student,ID,SIS User ID,login,name,confirm\nAlice Adams,1001,S1001,aadams,,yes\n")
        _, out4 = self.run_export("steal", {}, "--roster", self.roster, "--identities", confirm)
        lms4 = {x["Student"]: x for x in read_csv(out4 / "lms.csv")[1:]}
        self.assertEqual((lms4["Alice Adams"]["ID"], lms4["Alice Adams"]["SIS Login ID"], lms4["Alice Adams"]["Section"]),
                         ("1001", "aadams", "Sec 1"))
        self.assertEqual(lms4["aadams"]["ID"], "")

    def test_canvas_names_its_files_after_a_name_and_the_ids_come_from_the_export(self):
        files = {"adamsalice_1001_51001_kernel.cu": SOLVED, "brownbob_LATE_1002_51002_kernel-1.cu": STUB}
        _, out = self.run_export("canvas", files, "--roster", self.roster)
        lms = {x["Student"]: x for x in read_csv(out / "lms.csv")[1:]}
        self.assertEqual([lms["adamsalice"][k] for k in ("ID", "SIS User ID", "SIS Login ID", "Section")],
                         ["1001", "S1001", "aadams", "Sec 1"])
        self.assertEqual(lms["brownbob"]["SIS Login ID"], "bbrown")
        self.assertEqual({x["Username"] for x in read_csv(out / "lms-blackboard.csv")}, {"aadams", "bbrown"})
        _, bare = self.run_export("canvas-bare", files)
        lms = {x["Student"]: x for x in read_csv(bare / "lms.csv")[1:]}
        self.assertEqual((lms["adamsalice"]["ID"], lms["adamsalice"]["SIS Login ID"]), ("1001", ""))
        self.assertEqual({x["Username"] for x in read_csv(bare / "lms-blackboard.csv")}, {""})

    def test_moodles_flat_download_is_read_with_its_participant_ids(self):
        files = {"Alice Adams_2000101_assignsubmission_file_kernel.cu": SOLVED,
                 "Bob Brown_2000102_assignsubmission_file_lab05.cu": SOLVED,
                 "Bob Brown_2000102_assignsubmission_onlinetext_onlinetext.html": "<p>done</p>"}
        r, out = self.run_export("moodle-flat", files)
        book = {x["student"]: x for x in read_csv(out / "gradebook.csv")}
        self.assertEqual(set(book), {"Alice Adams", "Bob Brown"})
        self.assertEqual({x["not judged"] for x in book.values()}, {""})
        sheet = {x["Full name"]: x["Identifier"] for x in read_csv(out / "lms-moodle-lab05.csv")}
        self.assertEqual(sheet, {"Alice Adams": "Participant 2000101", "Bob Brown": "Participant 2000102"})
        self.assertNotIn("lms-moodle-lab05.csv", r.stderr)        # every row has its Identifier
        self.assertNotIn("lms.csv:", r.stderr)     # a Moodle course: no warning about Canvas's file (issue 46)

    def test_an_import_file_with_an_empty_id_column_is_warned_about_with_the_fix(self):
        r, _ = self.run_export("logins", {"aadams/kernel.cu": SOLVED, "bbrown/kernel.cu": SOLVED})
        self.assertIn("lms-moodle-lab05.csv: 2 of 2 row(s) have no Identifier, so Moodle cannot match them", r.stderr)
        self.assertIn("grade Moodle's own download", r.stderr)
        self.assertIn("Download grading worksheet", r.stderr)
        self.assertIn("lms-blackboard.csv: 2 of 2 row(s) have no Username / Student ID", r.stderr)


if __name__ == "__main__":
    unittest.main()
