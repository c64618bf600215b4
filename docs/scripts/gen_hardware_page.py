#!/usr/bin/env python3
"""Generate the page "What the hardware does" from the committed measurements.

  gen_hardware_page.py --source S --template docs/pages/hardware.md
                       --out DIR/hardware.md [--solutions] [--banklab EXE]

Fills the `<!-- banklab:... -->` markers of the template with tables computed from
common/data/h200_wavefronts_named.csv, common/data/h200_cycles_named.csv and every
common/data/calibration_*.csv. No number on the page is typed by hand. With --banklab, the page
also shows `banklab compare` of each measurement file against the model.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from banklab.docs import site
from banklab.docs import lab_work  # noqa: E402
from banklab.lab import labs as banklab_labs  # noqa: E402  (BANKLAB_CLI: the command as a release builds it)
from banklab.docs import sources  # noqa: E402

ID_RE = re.compile(r"^n_(?P<family>.+)_w(?P<width>\d+)_(?P<op>ld|st)$")
WAVE_COLS = ["id", "op", "width", "mask", "offsets", "wavefronts", "bank_conflicts", "instructions"]
CYCLE_COLS = ["id", "op", "width", "cycles_per_warp_instruction", "grid_ms"]
COLUMNS = [("ld", 4), ("ld", 8), ("ld", 16), ("st", 4), ("st", 8), ("st", 16)]


def read_csv(path: Path, required: list[str]) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise sources.SiteError(f"{path}: no rows")
    missing = [c for c in required if c not in rows[0]]
    if missing:
        raise sources.SiteError(f"{path}: missing column(s) {', '.join(missing)}")
    for n, r in enumerate(rows, start=2):
        r["_line"] = n
        for key in ("width", "wavefronts", "bank_conflicts", "instructions"):
            if key in r:
                try:
                    r[key] = int(r[key])
                except ValueError:
                    raise sources.SiteError(f"{path}:{n}: {key} {r[key]!r} is not a whole number")
    return rows


def family_of(row) -> str:
    m = ID_RE.match(row["id"])
    if not m:
        raise sources.SiteError(f"line {row['_line']}: pattern id {row['id']!r} is not n_<family>_w<width>_<op>")
    return m.group("family")


def elements(row, lanes=8) -> str:
    """Element index (offset / width) of the first lanes, the same for every width of a family."""
    offs = [int(x) for x in row["offsets"].split()]
    return " ".join(str(o // row["width"]) for o in offs[:lanes])


# The accesses the labs ask about (default build only): their measured counts are answers, so the
# tables name the lab instead (the instructor build, --solutions, shows every count).
GRADED: list[tuple[str, str, tuple[str, int, list[int]]]] = []


def graded_lab(row) -> str | None:
    if row is None or str(row.get("mask", "ffffffff")).lower() != "ffffffff":
        return None
    return graded_lab_of((row["op"], int(row["width"]), [int(x) for x in row["offsets"].split()]))


def graded_lab_of(pat) -> str | None:
    """The lab whose question asks about this access (op, width, 32 offsets), or None."""
    for lab, _name, qp in GRADED:
        if lab_work.same_pattern(pat, qp):
            return lab
    return None


def cell(row, twin=None) -> str:
    """A table's cell; `twin` the same pattern and width as the other op (a load's store): when the
    twin is an access a lab asks about and costs the same, this count is that answer too (issue 44)."""
    if row is None:
        return "–"
    lab = graded_lab(row) or (graded_lab(twin) if twin is not None and twin["wavefronts"] == row["wavefronts"]
                              else None)
    if lab:
        return f"*lab {lab}*"
    w = str(row["wavefronts"])
    return f"**{w}**" if row["bank_conflicts"] > 0 else w


def family_label(family: str) -> str:
    m = re.match(r"^stride(\d+)_mask([0-9a-f]{8})$", family)
    if m:
        return f"stride {m.group(1)}, mask `{m.group(2)}`"
    m = re.match(r"^stride(\d+)$", family)
    if m:
        return f"stride {m.group(1)}"
    m = re.match(r"^pairxor(\d+)(_spread)?$", family)
    if m:
        return f"pairxor {m.group(1)}" + (" spread" if m.group(2) else "")
    return family.replace("_", " ")


def family_table(rows: list[dict], families: list[str], show_elements: bool = True,
                 lanes: int = 8) -> str:
    by = {(family_of(r), r["op"], r["width"]): r for r in rows}
    head = "| pattern | " + (f"elements of lanes 0–{lanes - 1} | " if show_elements else "") + \
        " | ".join(f"{op} {w} B" for op, w in COLUMNS) + " |"
    sep = "| --- | " + ("--- | " if show_elements else "") + " | ".join("---:" for _ in COLUMNS) + " |"
    out = [head, sep]
    for fam in families:
        cells = [by.get((fam, op, w)) for op, w in COLUMNS]
        present = [c for c in cells if c is not None]
        el = ""
        if show_elements:
            seqs = {elements(c, lanes) for c in present}
            el = f"`{seqs.pop()}` | " if len(seqs) == 1 else "(differs by width) | "
        twins = [by.get((fam, "st" if op == "ld" else "ld", w)) for op, w in COLUMNS]
        out.append(f"| {family_label(fam)} | {el}" + " | ".join(cell(c, t) for c, t in zip(cells, twins)) + " |")
    return "\n".join(out) + "\n"


def stride_key(fam: str) -> tuple:
    nums = [int(x) if x.isdigit() else x for x in re.findall(r"\d+|\D+", fam)]
    return tuple((0, x) if isinstance(x, int) else (1, x) for x in nums)


def tables(rows: list[dict]) -> dict[str, str]:
    fams = list(OrderedDict.fromkeys(family_of(r) for r in rows))
    strides = sorted([f for f in fams if re.fullmatch(r"stride\d+", f)], key=stride_key)
    masks = [f for f in fams if re.fullmatch(r"stride\d+_mask[0-9a-f]{8}", f)]
    tiles = [f for f in fams if f in ("col32x32", "col32x33", "xorswz_col", "v4_interleave")]
    sharing = [f for f in fams if f not in strides and f not in masks and f not in tiles]
    mask_rows = [r for r in rows if family_of(r) in masks]
    out = {
        "strides": family_table(rows, strides),
        "sharing": family_table(rows, sharing, lanes=32),
        "masks": family_table(mask_rows, masks, show_elements=False),
        "tiles": family_table(rows, tiles, lanes=32),
    }
    if GRADED:
        note = ("\n*lab NN*: an access a prediction of lab NN asks about. Work it out there; the "
                "instructor build of this site (`-DBANKLAB_DOCS_SOLUTIONS=ON`) shows its count.\n")
        for k in ("strides", "sharing", "masks", "tiles"):
            if "*lab " in out[k]:
                out[k] += note
    covered = set(strides) | set(masks) | set(tiles) | set(sharing)
    assert covered == set(fams)
    out["_count"] = f"{len(rows)} patterns in {len(fams)} families"
    return out


def merges(rows: list[dict]) -> str:
    by = {(family_of(r), r["op"], r["width"]): r for r in rows}
    lines = ["| pattern | width | load | store | the load was served as |",
             "| --- | ---: | ---: | ---: | --- |"]
    same = differ = 0
    for w in (8, 16):
        for fam in OrderedDict.fromkeys(family_of(r) for r in rows if r["width"] == w):
            ld, st = by.get((fam, "ld", w)), by.get((fam, "st", w))
            if ld is None or st is None:
                continue
            if ld["wavefronts"] == st["wavefronts"]:
                same += 1
                continue
            differ += 1
            larger = "one warp-wide group" if w == 8 else "two half-warps"
            note = f"{larger} (cheaper than the store)" if ld["wavefronts"] < st["wavefronts"] \
                else f"{larger} (dearer than the store)"
            lines.append(f"| {family_label(fam)} | {w} B | {cell(ld)} | {cell(st)} | {note} |")
    intro = (f"Of the {same + differ} 64- and 128-bit patterns measured both ways, {differ} cost a "
             f"different number of wavefronts as a load than as a store; the other {same} cost the "
             "same. The ones that differ:\n\n")
    return intro + "\n".join(lines) + "\n"


def stores(rows: list[dict]) -> str:
    by = {(family_of(r), r["op"], r["width"]): r for r in rows}
    out = []
    for w in (4, 8, 16):
        fams = [f for f in OrderedDict.fromkeys(family_of(r) for r in rows if r["width"] == w)
                if (f, "ld", w) in by and (f, "st", w) in by]
        eq = sum(by[(f, "ld", w)]["wavefronts"] == by[(f, "st", w)]["wavefronts"] for f in fams)
        out.append(f"- **{w}-byte** stores: {eq} of {len(fams)} patterns took as many wavefronts as the "
                   f"same pattern as a load" + ("." if w == 4 else
                   f" ({'half' if w == 8 else 'quarter'}-warp groups always; loads may merge)."))
    s0 = [by.get(("stride0", "st", w)) for w in (4, 8, 16)]
    if any(graded_lab(r) for r in s0 if r):
        out.append("- All 32 lanes writing **the same address** (stride 0): never a conflict (which "
                   "lane's value lands is not specified: do not rely on it). "
                   "How many wavefronts that takes is a question of lab "
                   f"{next(graded_lab(r) for r in s0 if r and graded_lab(r))}.")
    elif all(s0):
        out.append("- All 32 lanes writing **the same address** (stride 0): "
                   + ", ".join(f"{r['wavefronts']} wavefront{'s' if r['wavefronts'] != 1 else ''} at "
                               f"{r['width']} B" for r in s0)
                   + " — one write per word per group, never a conflict (which lane's value lands "
                   "is not specified: do not rely on it).")
    s32 = by.get(("stride32", "st", 4))
    if s32 and graded_lab(s32):
        out.append("- A column of `float tile[32][32]` written by a warp conflicts exactly as the load "
                   "does: stores conflict like loads.")
    elif s32:
        out.append(f"- A column of `float tile[32][32]` written by a warp: {s32['wavefronts']} wavefronts, "
                   "exactly as the load: stores conflict like loads.")
    return "\n".join(out) + "\n"


def parse_provenance(readme: Path) -> tuple[str, dict]:
    text = readme.read_text(encoding="utf-8")
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip() and not p.startswith("#")]
    first = " ".join(paras[0].split()) if paras else ""
    facts = {}
    m = re.search(r"(\d+)\s+SMs,\s*SM clock\s+(\d+)\s*MHz", text)
    if m:
        facts["sms"], facts["mhz"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"(\d+)\s+blocks\s*×\s*(\d+)\s+warps\s*×\s*(\d+)\s+iterations", text)
    if m:
        facts["blocks"], facts["warps"], facts["iters"] = map(int, m.groups())
    return first, facts


def throughput(waves: list[dict], cycles: list[dict], facts: dict) -> str:
    wf = {r["id"]: r for r in waves}
    joined = []
    for c in cycles:
        if c["id"] not in wf:
            raise sources.SiteError(f"h200_cycles_named.csv:{c['_line']}: {c['id']} has no wavefront measurement")
        cyc = float(c["cycles_per_warp_instruction"])
        joined.append((c, wf[c["id"]]["wavefronts"], cyc, float(c["grid_ms"])))
    dev = max(abs(cyc / w - 1.0) for _, w, cyc, _ in joined)
    out = [f"{len(joined)} load patterns, each run by 32 warps of one block on one SM in a loop "
           "(`clock64()`, best of 5 runs). Cycles per warp instruction against the measured wavefronts:\n"]
    groups = OrderedDict()
    for row in sorted(joined, key=lambda t: t[1]):
        groups.setdefault(row[1], []).append(row)
    have_grid = all(k in facts for k in ("blocks", "warps", "iters"))
    head = "| wavefronts | patterns | cycles per warp instruction | cycles per wavefront |"
    sep = "| ---: | ---: | ---: | ---: |"
    if have_grid:
        head += " whole chip, 128 B per wavefront |"
        sep += " ---: |"
    out += [head, sep]
    for w, rows in groups.items():
        cs = [r[2] for r in rows]
        rng = f"{min(cs):.3f}" if min(cs) == max(cs) else f"{min(cs):.3f} – {max(cs):.3f}"
        per = [r[2] / w for r in rows]
        prng = f"{min(per):.3f}" if min(per) == max(per) else f"{min(per):.3f} – {max(per):.3f}"
        line = f"| {w} | {len(rows)} | {rng} | {prng} |"
        if have_grid:
            instr = facts["blocks"] * facts["warps"] * facts["iters"]
            tbs = [instr * w * 128 / (r[3] * 1e-3) / 1e12 for r in rows]
            line += f" {statistics.median(tbs):.1f} TB/s |"
        out.append(line)
    out.append("")
    out.append(f"Across all {len(joined)} patterns the cycles per warp instruction equal the wavefront "
               f"count within **{dev * 100:.1f} %**: the SM serves **one wavefront (128 bytes) per clock**.")
    if "sms" in facts:
        peak = facts["sms"] * 128 * facts["mhz"] * 1e6 / 1e12
        out[-1] += (f" For the whole H200 that is {facts['sms']} SMs × 128 B × "
                    f"{facts['mhz'] / 1000:.2f} GHz = **{peak:.2f} TB/s** of shared-memory bandwidth, "
                    "divided by the wavefronts each instruction takes.")
    if have_grid:
        out[-1] += (f" The last column is the event-timed grid ({facts['blocks']} blocks × "
                    f"{facts['warps']} warps × {facts['iters']} iterations) counted the same way.")
    out.append("\n### All measured loads {#hardware_cycles_all}\n")
    out.append("| pattern | width | wavefronts | cycles per warp instruction | grid time (ms) |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    wrow = {r["id"]: r for r in waves}
    hidden = 0
    for c, w, cyc, ms in joined:
        lab = graded_lab(wrow[c["id"]])
        if lab:  # the cycles give the count away: the row is the instructor build's
            hidden += 1
            continue
        out.append(f"| `{c['id']}` | {c['width']} B | {w} | {cyc:.3f} | {ms:.4f} |")
    if hidden:
        out.append(f"\n{hidden} more loads are accesses the labs ask about; the instructor build "
                   "(`-DBANKLAB_DOCS_SOLUTIONS=ON`) lists them too.")
    return "\n".join(out) + "\n"


def instructions_section(readme: Path) -> str:
    """The section of common/data/README.md on ldmatrix, stmatrix, cp.async and atomics: its one copy."""
    text = readme.read_text(encoding="utf-8")
    m = re.search(r"^## What the H200 measured for ldmatrix[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        raise sources.SiteError(f"{readme}: no section '## What the H200 measured for ldmatrix ...'")
    return m.group(1).strip() + "\n"


def calibration(data: Path, h200: list[dict]) -> str:
    files = sorted(data.glob("calibration_*.csv"))
    if not files:
        return ("*No calibration file is committed yet.* Run `banklab calibrate --out "
                "common/data/calibration_<gpu>.csv` on a machine with a GPU and Nsight Compute, and "
                "commit the file: it appears here at the next build.\n")
    ref = {r["id"]: r for r in h200}
    out = ["| file | GPU | patterns | same wavefronts as the H200 file | different | patterns the H200 file does not have |",
           "| --- | --- | ---: | ---: | ---: | ---: |"]
    details = []
    for f in files:
        rows = read_csv(f, WAVE_COLS + ["gpu"])
        gpus = sorted({r["gpu"] for r in rows})
        same, diff, new = 0, [], 0
        for r in rows:
            h = ref.get(r["id"])
            if h is None or (h["op"], h["width"], h["mask"].lower(), h["offsets"].split()) != \
                    (r["op"], r["width"], r["mask"].lower(), r["offsets"].split()):
                new += 1
            elif h["wavefronts"] == r["wavefronts"]:
                same += 1
            else:
                diff.append((r, h))
        out.append(f"| `{f.name}` | {', '.join(gpus)} | {len(rows)} | {same} | {len(diff)} | {new} |")
        if diff:
            details.append(f"\n**{f.name}**: the patterns that differ\n")
            details.append("| pattern | H200 | " + ", ".join(gpus) + " |")
            details.append("| --- | ---: | ---: |")
            details += [f"| `{r['id']}` | {h['wavefronts']} | {r['wavefronts']} |" for r, h in diff]
    return "\n".join(out + details) + "\n"


def compare_with_model(banklab: str, files: list[Path], root: Path) -> str:
    out = []
    for f in files:
        r = subprocess.run([banklab, "compare", str(f)], capture_output=True, text=True,
                           env=dict(os.environ, NO_COLOR="1"))
        text = (r.stdout + r.stderr).strip()
        lines = text.splitlines()
        if len(lines) > 12:
            lines = lines[:5] + [f"... ({len(lines) - 10} lines left out)"] + lines[-5:]
        out.append(f"```\n$ {banklab_labs.BANKLAB_CLI} compare {f.relative_to(root)}\n" + "\n".join(lines) + "\n```\n")
        if r.returncode != 0:
            out.append(f"*`banklab compare` exited with status {r.returncode}: the model and this file disagree.*\n")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--template", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--solutions", action="store_true")
    ap.add_argument("--banklab", default="")
    ap.add_argument("--no-figures", action="store_true")
    a = ap.parse_args()
    root = a.source.resolve()
    data = root / "common" / "data"
    try:
        waves = read_csv(data / "h200_wavefronts_named.csv", WAVE_COLS)
        cycles = read_csv(data / "h200_cycles_named.csv", CYCLE_COLS)
        first, facts = parse_provenance(data / "README.md")
        if not a.solutions:
            GRADED.extend(lab_work.graded_patterns(root))
        t = tables(waves)
        fill = {
            "provenance": f"> **Where the numbers come from.** {first} This page holds {t['_count']} "
                          f"from `h200_wavefronts_named.csv` and {len(cycles)} throughput runs from "
                          "`h200_cycles_named.csv`.\n",
            "table strides": t["strides"], "table sharing": t["sharing"],
            "table masks": t["masks"], "table tiles": t["tiles"],
            "table merges": merges(waves),
            "stores": stores(waves),
            "throughput": throughput(waves, cycles, facts),
            "calibration": calibration(data, waves),
            "instructions": instructions_section(data / "README.md"),
        }
        if a.banklab:
            files = [data / "h200_wavefronts_named.csv"] + sorted(data.glob("calibration_*.csv"))
            fill["calibration"] += ("\nThe reference model (`banklab compare`) against every "
                                    "measurement file, run at this build:\n\n"
                                    + compare_with_model(a.banklab, files, root))
        text = a.template.read_text(encoding="utf-8")
        for key, value in fill.items():
            marker = f"<!-- banklab:{key} -->"
            if marker not in text:
                raise sources.SiteError(f"{a.template}: marker {marker} is missing")
            text = text.replace(marker, value)
        left = re.findall(r"<!-- banklab:[^>]*-->", text)
        if left:
            raise sources.SiteError(f"{a.template}: unknown marker(s) {left}")
        all_figs = sources.read_all_figures(root)
        shown = {f.name for f in site.figures_to_draw(all_figs, root, a.solutions, not a.no_figures)}
        # A drawing states its wavefronts: one of an access a lab asks about is that lab's answer,
        # so (default build) the page names the lab instead, as the tables do.
        by_name = {f.name: f for f in all_figs}

        def graded_figure(m: re.Match) -> str:
            f = by_name.get(m.group(1))
            lab = lab_work.graded_figure_lab(f, root) if f and not a.solutions else None
            if lab:
                return (f"*The drawing of `{f.spec}` is left out here: its wavefronts are the answer "
                        f"to a question of lab {lab}.*")
            return m.group(0)
        text = site.FIGURE_MARKER_RE.sub(graded_figure, text)
        rw = site.LinkRewriter(root, a.template, by_name, shown, a.solutions)
        text = site.rewrite(text, rw)
        site.write_if_changed(a.out, text)
    except sources.SiteError as e:
        site.fail(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
