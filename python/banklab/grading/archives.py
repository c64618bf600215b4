"""Opening a student's archive (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz) so that it can cost
nobody but that student.

An upload is unpacked in a process of its own (unpack_upload() starts this file with --unpack),
which limits its own address space (UNPACK_MEMORY_BYTES, RLIMIT_AS) and CPU time before it reads a
byte, and is killed at UNPACK_TIMEOUT_S; whatever goes wrong in it (a refused entry, MemoryError,
a crash, the timeout) comes back as UnsafeArchive with the reason, for that student's row alone.

Every size is checked before it is spent: a tar is read header block by block from a streaming
decompressor (never Python's tarfile, which reads a GNU long name or a pax header whole before
anyone can look at its size): an extended header over ARCHIVE_MAX_HEADER_BYTES is refused from its
size field, and every decompressed byte (headers, skipped entries) counts against
ARCHIVE_MAX_TOTAL_BYTES as it is produced. A zip's end-of-central-directory record (and its zip64
record) is read first: more than ARCHIVE_MAX_ENTRIES entries or a central directory over
ARCHIVE_MAX_DIRECTORY_BYTES is refused before `zipfile` parses anything. Python 3 standard library.
"""

from __future__ import annotations

import bz2
import json
import lzma
import os
import re
import signal
import stat
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path, PurePosixPath

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
#: A renamed kernel: kernel.cu.txt (what some browsers and mail clients make of a .cu file).
RENAMED_SUFFIX = ".cu.txt"
#: Limits on one archive: entries, bytes of one file, bytes of all files (after decompression).
ARCHIVE_MAX_ENTRIES = 1000
ARCHIVE_MAX_FILE_BYTES = 8 << 20           # the judge reads at most 8 MiB of a source
ARCHIVE_MAX_TOTAL_BYTES = 64 << 20
#: A GNU long name or link, or a pax header: its data is read whole, so it is refused above this.
ARCHIVE_MAX_HEADER_BYTES = 64 << 10
#: A zip's central directory is parsed whole by zipfile: refused above this (1000 entries with
#: names of a few hundred bytes fit many times over).
ARCHIVE_MAX_DIRECTORY_BYTES = 1 << 20
#: The unpacking process's own limits: address space (beyond what the interpreter maps at start),
#: and wall-clock seconds before it is killed.
UNPACK_MEMORY_BYTES = 256 << 20
UNPACK_TIMEOUT_S = 30.0
ARCHIVE_REFUSED = "was not unpacked"
#: Files and folders an upload carries that are nobody's kernel: macOS's resource forks and
#: folder settings, Windows' thumbnails (Blackboard's submission receipts are handled apart).
_JUNK_DIRS = ("__MACOSX",)
_JUNK_NAMES = (".DS_Store", "Thumbs.db", "desktop.ini")


def ignored(rel: Path | PurePosixPath) -> bool:
    """Whether a file of an upload is junk nobody handed in on purpose (dot files, __MACOSX/...)."""
    return (any(part in _JUNK_DIRS or part.startswith(".") for part in rel.parts)
            or rel.name in _JUNK_NAMES)


def is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


class UnsafeArchive(ValueError):
    """An archive the grader refuses to unpack (its message says which entry and why)."""


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _safe_member_path(name: str) -> PurePosixPath:
    """The relative path an archive entry may be written to, or UnsafeArchive: no absolute path,
    no drive, no `..`, no backslash tricks, nothing empty."""
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm):
        raise UnsafeArchive(f"its entry {name!r} is an absolute path")
    parts = [x for x in norm.split("/") if x not in ("", ".")]
    if any(x == ".." for x in parts):
        raise UnsafeArchive(f"its entry {name!r} climbs out of the archive (..)")
    if not parts:
        raise UnsafeArchive(f"its entry {name!r} has no name")
    return PurePosixPath(*parts)


def _wanted(rel: PurePosixPath) -> bool:
    """The entries worth taking out of an upload: kernels (.cu). Nothing else is ever searched."""
    return rel.name.endswith(".cu")


class _Budget:
    """Decompressed bytes left to the whole archive."""
    def __init__(self):
        self.left = ARCHIVE_MAX_TOTAL_BYTES

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise UnsafeArchive(f"it unpacks to more than {_mib(ARCHIVE_MAX_TOTAL_BYTES)}")


def _copy_limited(read, dest: Path, budget: _Budget | None, name: str, size: int | None = None) -> None:
    """Copy an entry's bytes (read(n) -> bytes) to a new file `dest` (never an existing one, never
    through a link), stopping at the per-file and whole-archive limits whatever a header claims."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    written = 0
    with os.fdopen(fd, "wb") as out:
        while size is None or written < size:
            chunk = read(1 << 16 if size is None else min(1 << 16, size - written))
            if not chunk:
                if size is not None:
                    raise UnsafeArchive(f"it ends in the middle of its entry {name!r}")
                break
            written += len(chunk)
            if budget is not None:
                budget.spend(len(chunk))
            if written > ARCHIVE_MAX_FILE_BYTES:
                raise UnsafeArchive(f"its entry {name!r} unpacks to more than {_mib(ARCHIVE_MAX_FILE_BYTES)}")
            out.write(chunk)


# --------------------------------------------------------------------------- tar, streamed

class _Inflating:
    """A file read through its decompressor (gzip, bzip2, xz or none, told by its first bytes),
    `read(n)` never producing more than n bytes, every byte produced spent from the budget.
    Concatenated streams (gzip members, bzip2 or xz streams) are read one after another."""

    MAGIC = {"gz": b"\x1f\x8b", "bz2": b"BZh", "xz": b"\xfd7zXZ\x00"}

    def __init__(self, f, budget: _Budget):
        self.f, self.budget = f, budget
        self.pending = f.read(6)        # input not handed to the decompressor yet
        self.kind = next((k for k, m in self.MAGIC.items() if self.pending.startswith(m)), "")
        self.dec = self._new() if self.kind else None

    def _new(self):
        return (zlib.decompressobj(31) if self.kind == "gz" else bz2.BZ2Decompressor()
                if self.kind == "bz2" else lzma.LZMADecompressor(memlimit=128 << 20))

    def _chunk(self, n: int) -> bytes:
        """Up to n bytes of the archive's own bytes; b"" at its end."""
        if not self.kind:
            data, self.pending = (self.pending or self.f.read(min(n, 1 << 16))), b""
            self.pending = data[n:]
            return data[:n]
        while True:
            if self.dec.eof:                      # the next member or stream, if any
                rest = self.dec.unused_data + self.pending or self.f.read(1 << 16)
                if not rest.startswith(self.MAGIC[self.kind]):
                    return b""
                self.dec, self.pending = self._new(), rest
            wants = not self.pending if self.kind == "gz" else self.dec.needs_input
            if wants and not self.pending:
                self.pending = self.f.read(1 << 16)
                if not self.pending:
                    raise UnsafeArchive("it ends in the middle of its compressed data")
            if self.kind == "gz":
                out = self.dec.decompress(self.pending, n)
                self.pending = self.dec.unconsumed_tail
            else:
                data, self.pending = (self.pending, b"") if self.dec.needs_input else (b"", self.pending)
                out = self.dec.decompress(data, max_length=n)
            if out:
                return out

    def read(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self._chunk(n - len(out))
            if not chunk:
                break
            self.budget.spend(len(chunk))
            out += chunk
        return bytes(out)


def _cstr(b: bytes) -> str:
    return b.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _number(field: bytes, what: str) -> int:
    """A tar header's number: octal text, or GNU's base-256 (first byte 0x80); never negative."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    if field[:1] == b"\xff":
        raise UnsafeArchive(f"a header gives a negative {what}")
    text = field.split(b"\0", 1)[0].strip(b" ")
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise UnsafeArchive(f"a header's {what} is not a number ({text[:20]!r})") from None


def _pax(data: bytes) -> dict[str, str]:
    """A pax header's records ("LEN key=value\\n"), as {key: value}."""
    out, pos = {}, 0
    while pos < len(data) and data[pos:pos + 1] not in (b"", b"\0"):
        sp = data.find(b" ", pos)
        if sp < 0:
            raise UnsafeArchive("a pax header is malformed")
        n = int(data[pos:sp]) if data[pos:sp].isdigit() else 0
        if n <= sp - pos or pos + n > len(data):
            raise UnsafeArchive("a pax header is malformed")
        key, _, value = data[sp + 1:pos + n - 1].partition(b"=")
        out[key.decode("utf-8", "replace")] = value.decode("utf-8", "surrogateescape")
        pos += n
    return out


_REGULAR, _DIR = (b"0", b"\0", b"7"), (b"5",)
_EXTENDED = (b"L", b"K", b"x", b"g")


def _tar_entries(s: _Inflating):
    """(name, kind "file" | "dir", size) of each entry of a tar stream, header block by block;
    the caller reads or skips exactly `size` bytes of data before asking for the next."""
    long_name, pax, count = None, {}, 0
    while True:
        block = s.read(512)
        if len(block) < 512 or block == bytes(512):
            if len(block) not in (0, 512):
                raise UnsafeArchive("it ends in the middle of a header")
            return
        if int(_cstr(block[148:156]).strip() or "-1", 8) != sum(block[:148]) + 256 + sum(block[156:]):
            raise UnsafeArchive("it is not a tar archive (a header's checksum is wrong)")
        count += 1
        if count > 2 * ARCHIVE_MAX_ENTRIES:
            raise UnsafeArchive(f"it has more than {ARCHIVE_MAX_ENTRIES} entries")
        kind, size = block[156:157], _number(block[124:136], "size")
        if kind in _EXTENDED:
            if size > ARCHIVE_MAX_HEADER_BYTES:
                raise UnsafeArchive(f"it holds a header of {size} bytes (a long name or a pax header: at "
                                    f"most {_mib(ARCHIVE_MAX_HEADER_BYTES)} are read)")
            data = s.read(-(-size // 512) * 512)[:size]
            if len(data) < size:
                raise UnsafeArchive("it ends in the middle of a header")
            if kind == b"L":
                long_name = _cstr(data)
            elif kind == b"x":
                pax = _pax(data)
            continue
        name = _cstr(block[0:100])
        if block[257:262] == b"ustar" and block[345:346] != b"\0":
            name = _cstr(block[345:500]) + "/" + name
        name = pax.get("path") or long_name or name
        if "size" in pax:
            if not pax["size"].isdigit():
                raise UnsafeArchive(f"a pax header's size is not a number ({pax['size'][:20]!r})")
            size = int(pax["size"])
        long_name, pax = None, {}
        if kind not in _REGULAR + _DIR:
            _safe_member_path(name)
            raise UnsafeArchive(f"its entry {name!r} is a link or a special file")
        yield name, ("dir" if kind in _DIR else "file"), (0 if kind in _DIR else size)


def _unpack_tar(f, dest: Path, out: dict) -> None:
    budget = _Budget()
    s = _Inflating(f, budget)
    files = 0
    for name, kind, size in _tar_entries(s):
        files += 1
        if files > ARCHIVE_MAX_ENTRIES:
            raise UnsafeArchive(f"it has more than {ARCHIVE_MAX_ENTRIES} entries")
        rel = _safe_member_path(name)
        if size > ARCHIVE_MAX_FILE_BYTES:
            raise UnsafeArchive(f"its entry {name!r} unpacks to more than {_mib(ARCHIVE_MAX_FILE_BYTES)}")
        pad = -(-size // 512) * 512 - size
        if kind == "file" and not ignored(rel) and is_archive(rel.name):
            out["nested"].append(str(rel))
        if kind == "dir" or ignored(rel) or not _wanted(rel):
            left = size + pad
            while left > 0:                          # skipped, yet decompressed: it is spent
                got = len(s.read(min(left, 1 << 16)))
                if not got:
                    raise UnsafeArchive(f"it ends in the middle of its entry {name!r}")
                left -= got
            continue
        _copy_limited(s.read, dest / rel, None, name, size)
        if len(s.read(pad)) < pad:
            raise UnsafeArchive(f"it ends in the middle of its entry {name!r}")


# --------------------------------------------------------------------------- zip

def _check_zip_directory(f, total: int) -> None:
    """Refuse a zip whose end-of-central-directory record (or zip64 record, which zipfile reads
    when its locator is there) announces more than ARCHIVE_MAX_ENTRIES entries or a central
    directory over ARCHIVE_MAX_DIRECTORY_BYTES, before zipfile reads that directory whole."""
    back = min(total, 22 + 0xFFFF + 20)
    f.seek(total - back)
    tail = f.read(back)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise UnsafeArchive("it is not a zip archive (no end-of-central-directory record)")
    _, _, _, entries, cd_size, _, _ = struct.unpack("<HHHHIIH", tail[at + 4:at + 22])
    if at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":
        (z64_at,) = struct.unpack("<Q", tail[at - 12:at - 4])
        if z64_at > total - 56:
            raise UnsafeArchive("its zip64 directory record lies outside the file")
        f.seek(z64_at)
        rec = f.read(56)
        if rec[:4] != b"PK\x06\x06":
            raise UnsafeArchive("its zip64 directory record is missing")
        entries, cd_size = struct.unpack("<QQ", rec[32:48])
    if entries > ARCHIVE_MAX_ENTRIES:
        raise UnsafeArchive(f"it has more than {ARCHIVE_MAX_ENTRIES} entries ({entries})")
    if cd_size > ARCHIVE_MAX_DIRECTORY_BYTES:
        raise UnsafeArchive(f"its directory of entries is {cd_size} bytes (at most "
                            f"{_mib(ARCHIVE_MAX_DIRECTORY_BYTES)} are read)")
    f.seek(0)


def _unpack_zip(f, dest: Path, out: dict) -> None:
    f.seek(0, os.SEEK_END)
    _check_zip_directory(f, f.tell())
    budget = _Budget()
    with zipfile.ZipFile(f) as z:
        infos = z.infolist()
        if len(infos) > ARCHIVE_MAX_ENTRIES:
            raise UnsafeArchive(f"it has more than {ARCHIVE_MAX_ENTRIES} entries")
        for info in infos:
            rel = _safe_member_path(info.filename)
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode) if mode else 0
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise UnsafeArchive(f"its entry {info.filename!r} is a link or a special file")
            if not info.is_dir() and not ignored(rel) and is_archive(rel.name):
                out["nested"].append(str(rel))
            if info.is_dir() or ignored(rel) or not _wanted(rel):
                continue          # never decompressed: costs nothing, written nowhere
            if info.file_size > ARCHIVE_MAX_FILE_BYTES:
                raise UnsafeArchive(f"its entry {info.filename!r} unpacks to more than "
                                    f"{_mib(ARCHIVE_MAX_FILE_BYTES)}")
            with z.open(info) as src:
                _copy_limited(src.read, dest / rel, budget, info.filename)


def _unpack_here(archive: Path, dest: Path) -> dict:
    """What the unpacking process does: {"nested": [archives found inside]}, or UnsafeArchive
    (MemoryError is left to the process, which knows its limit)."""
    out: dict = {"nested": []}
    try:
        with open(archive, "rb") as f:
            (_unpack_zip if archive.name.lower().endswith(".zip") else _unpack_tar)(f, dest, out)
    except UnsafeArchive:
        raise
    except FileExistsError as e:
        raise UnsafeArchive(f"it holds the same file twice ({Path(e.filename).name})") from e
    except (zipfile.BadZipFile, EOFError, OSError, RuntimeError, NotImplementedError, ValueError,
            struct.error, zlib.error, lzma.LZMAError) as e:
        raise UnsafeArchive(f"it cannot be read ({type(e).__name__}: {e})") from e
    return out


def unpack_upload(archive: Path, dest: Path, *, memory: int = UNPACK_MEMORY_BYTES,
                  timeout: float = UNPACK_TIMEOUT_S) -> list[str]:
    """Unpack the .cu files of `archive` into the empty folder `dest` in a process of its own
    (address space `memory`, killed after `timeout` s); returns the archives found inside it (never
    opened), or raises UnsafeArchive with the reason, whatever happened to that process.
    Every entry is checked, taken out or not: a link, a device or a FIFO refuses the whole
    archive, as do an absolute path, a `..`, more than ARCHIVE_MAX_ENTRIES entries, a file over
    ARCHIVE_MAX_FILE_BYTES, a header over ARCHIVE_MAX_HEADER_BYTES and more than
    ARCHIVE_MAX_TOTAL_BYTES decompressed (counted while decompressing). Only regular .cu files are
    written, each to a new file of `dest`. __MACOSX/ and dot files are skipped."""
    cmd = [sys.executable, "-I", "-S", str(Path(__file__).resolve()), "--unpack", str(archive), str(dest),
           str(memory), str(max(1, int(timeout)))]
    # Imported here, not above: the unpacking process runs this file alone (python -I -S), with
    # the standard library only.
    from banklab.grading.invocation import wait_or_kill_group   # noqa: PLC0415
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    text, killed = wait_or_kill_group(p, timeout)
    if killed:
        raise UnsafeArchive(f"it was still unpacking after {timeout:g} s and was stopped")
    try:
        answer = json.loads(text.decode("utf-8", "replace").strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = None
    if isinstance(answer, dict) and p.returncode == 0 and "nested" in answer:
        return [str(x) for x in answer["nested"]]
    if isinstance(answer, dict) and "refused" in answer:
        raise UnsafeArchive(str(answer["refused"]))
    rc = p.returncode
    why = (f"was killed by signal {-rc} ({signal.Signals(-rc).name})" if rc < 0 and -rc in signal.valid_signals()
           else f"exited with status {rc}")
    if rc in (-signal.SIGXCPU, -signal.SIGKILL):
        why += f": it took too long (at most {timeout:g} s)"
    raise UnsafeArchive(f"the process unpacking it {why} (memory limit {_mib(memory)})")


def _unpacking_process(argv: list[str]) -> int:
    """`python/banklab/grading/archives.py --unpack ARCHIVE DEST MEMORY SECONDS`: limit this process, unpack,
    print one JSON line ({"nested": [...]} or {"refused": why})."""
    import resource
    archive, dest, memory, seconds = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    # `memory` on top of what the interpreter already maps, whatever this Python's size.
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + memory, mapped + memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (ARCHIVE_MAX_FILE_BYTES + 1, ARCHIVE_MAX_FILE_BYTES + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)          # a too-big write fails (OSError) instead
    try:
        answer = _unpack_here(archive, dest)
        rc = 0
    except UnsafeArchive as e:
        answer, rc = {"refused": str(e)}, 1
    except MemoryError:
        answer, rc = {"refused": f"it needs more than {_mib(memory)} of memory to unpack"}, 1
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return rc


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--unpack":
        sys.exit(_unpacking_process(sys.argv[2:]))
    print("usage: python/banklab/grading/archives.py --unpack ARCHIVE DEST MEMORY_BYTES SECONDS", file=sys.stderr)
    sys.exit(2)
