"""Reports made from graded results (banklab.grading.result.LabResult): the gradebook, per-student
feedback (Markdown and HTML, with `banklab explain` drawings), the class summary, and the
platform files (JUnit XML, Gradescope results.json, PrairieLearn results.json, a GitHub job
summary). Every file shows the points table it was scored with. Standard library only."""

from __future__ import annotations

import html
import json
import re
import statistics
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from banklab.grading import status as bs
from banklab.grading import cleantext as ct   # text a student chose: Markdown, JSON (issue 45)
from banklab.grading.result import LabResult, fmt_points
from banklab.grading.identity import late_labs   # the LMS's late marker, kept with each result
# The one CSV writer (banklab/grading/csvfile.py) and how a result is worded (banklab/grading/wording.py):
# below this module, so that the status file and the platform files use them without importing it.
from banklab.grading.csvfile import write_csv
from banklab.grading.wording import (
    STATUS_WORD, explain_lines, failure_groups, student_message,
    lab_points as _lab_points, tests_named as _names, total_points as _total_points)


# --------------------------------------------------------------------------- drawings

class Explainer:
    """Runs `banklab explain --line` for the access lines named in teaching messages; caches
    the terminal text and the SVG of each line. Without the banklab binary, returns None."""

    def __init__(self, banklab: Path | None):
        self.banklab = banklab
        self.cache: dict[str, tuple[str, str] | None] = {}

    def draw(self, line: str) -> tuple[str, str] | None:
        if self.banklab is None:
            return None
        if line not in self.cache:
            with tempfile.TemporaryDirectory() as tmp:
                svg = Path(tmp) / "a.svg"
                r = subprocess.run([str(self.banklab), "explain", "--line", line, "--color", "never",
                                    "--svg", str(svg)], capture_output=True, text=True, timeout=30)
                self.cache[line] = ((r.stdout, svg.read_text()) if r.returncode == 0 and svg.is_file()
                                    else None)
        return self.cache[line]


# --------------------------------------------------------------------------- gradebook

def by_student(results: list[LabResult]) -> tuple[list[str], dict[str, dict[str, LabResult]]]:
    """The labs graded (sorted) and each student's result per lab: the gradebook's and the LMS
    file's rows."""
    by: dict[str, dict[str, LabResult]] = {}
    for r in results:
        by.setdefault(r.student, {})[r.lab] = r
    return sorted({r.lab for r in results}), by


def problems_of(results: list[LabResult]) -> str:
    """What kept a lab from being judged, by lab: an upload the grader did not recognise (named),
    a refused archive or link, several files, a work folder --keep-work could not keep whole; ""
    when every lab handed in was judged."""
    rs = sorted(results, key=lambda r: r.lab)
    return "; ".join([f"lab {r.lab}: " + (f"not graded: {r.not_graded}" if r.not_graded else r.judge_note)
                      for r in rs if r.not_graded or (r.judge_note and not r.source)]
                     + [f"lab {r.lab}: {r.kept_work}" for r in rs if r.kept_work])


def write_gradebook(results: list[LabResult], path: Path, lab_ids: dict | None = None,
                    names: dict[str, str] | None = None) -> None:
    """One row per student, a column per lab (its points), one saying whether that lab's grade is
    complete (every test judged, GPU tier included), the total, the incomplete labs, and what
    could not be judged and why (an unrecognised upload is named there, never a silent 0); a
    column "labNN late" where the LMS marked a submission of the lab late (`lab_ids`: the identity
    saved with each result, banklab.grading.identity.late_labs); a column "name" where the roster names a
    student otherwise than the export does (`names`: banklab.grading.identity.roster_name).
    Student names are verbatim (a name that a spreadsheet would run is quoted: csv_cell())."""
    labs, by = by_student(results)
    varied = {r.lab for r in results if r.variant is not None or _variant_unknown(r)}
    emulated = {r.lab for r in results if r.emulated}   # a column "labNN emulated" where any was
    late = {st: late_labs(lab_ids or {}, st) for st in by}
    marked = set().union(*late.values()) if late else set()
    named = {st: (names or {}).get(st, "") for st in by}
    head = ["student"] + (["name"] if any(named.values()) else [])
    for lab in labs:
        mx = max(r.max_points for r in results if r.lab == lab)
        head += [f"lab{lab} ({fmt_points(mx)})", f"lab{lab} complete"] + ([f"lab{lab} variant"] if lab in varied else [])
        head += [f"lab{lab} late"] if lab in marked else []
        head += [f"lab{lab} emulated"] if lab in emulated else []
    rows = []
    for student in sorted(by):
        row, total, inc = [student], 0.0, []      # total: None once a lab is not graded
        row += [named[student]] if any(named.values()) else []
        for lab in labs:
            r = by[student].get(lab)
            if r is None:
                row += ["", ""] + ([""] if lab in varied else []) + ([""] if lab in marked else [])
                row += [""] if lab in emulated else []
                continue
            if r.not_graded:        # no number: the lab's cell is blank, the last column says why
                row += ["", "not graded"]
                total = None
            elif bs.not_judged(r):  # nothing gradable handed in: no number, not complete, not in the total
                row += ["", "not judged"]
            else:
                total = None if total is None else total + r.points
                row += [r.points, r.complete]
            if lab in varied:       # the student's variant graded ("unknown": not graded, see why)
                row.append("unknown" if _variant_unknown(r) else "" if r.variant is None else r.variant)
            if lab in marked:       # the LMS's own late marker (Canvas's _LATE), kept as it said
                row.append("late" if lab in late[student] else "")
            if lab in emulated:     # how many GPU tests the emulator judged, not a GPU ("" none)
                row.append(len(r.emulated) or "")
            if not r.complete or bs.not_judged(r):
                inc.append(lab)
        if all(bs.not_judged(r) for r in by[student].values()):
            total = None            # nothing of theirs was judged: no total (not a 0)
        rows.append(row + ["" if total is None else round(total, 3), " ".join(inc),
                           problems_of(list(by[student].values()))])
    write_csv(path, head + ["total", "incomplete labs", "not judged"], rows)


def _variant_unknown(r: LabResult) -> bool:
    """A lab left ungraded because the student's variant cannot be known (assigned.py)."""
    return r.variant is None and "has a variant per student" in (r.ungraded or "")


def variant_line(r: LabResult) -> str:
    """'Graded as lab 05 variant 3 (col = 7, ...).' for a lab with variants, else ""."""
    if r.variant is None:
        return ""
    from banklab.grading.assigned import describe
    params = describe(r.lab, r.variant)
    return (f"Graded as lab {r.lab} variant {r.variant}" + (f" ({params})" if params else "")
            + (", the lab as written" if r.variant == 0 else "") + ".")


def write_results_csv(results: list[LabResult], path: Path) -> None:
    """One row per (student, lab) graded: the long form, with the failed tests and the tests judged on
    the emulator, not a GPU (`emulated_tests`)."""
    write_csv(path, ["student", "lab", "points", "max", "complete", "failed_tests", "not judged", "emulated_tests"],
              ([r.student, r.lab, "" if r.not_graded or bs.not_judged(r) else r.points, r.max_points,
                "not graded" if r.not_graded else "not judged" if bs.not_judged(r) else r.complete,
                "" if bs.not_judged(r) else ";".join(v.test for v in r.failed),
                f"not graded: {r.not_graded}" if r.not_graded else (r.judge_note if not r.source else ""),
                ";".join(v.test for v in r.emulated)]
               for r in sorted(results, key=lambda r: (r.student, r.lab))))


# --------------------------------------------------------------------------- messages the student reads

# --------------------------------------------------------------------------- feedback

def _verdict_rows(r: LabResult) -> list[tuple[str, str, str, str]]:
    return [(v.test, v.tier + (" (emulated)" if v.emulated else ""), STATUS_WORD[v.status] + (f" ({v.note})" if v.note else ""),
             f"{fmt_points(v.points)} / {fmt_points(v.max_points)}") for v in r.verdicts]


#: A teaching message longer than this (a compiler's flood) is cut in the feedback, keeping its
#: start and its end (where the judge puts the command to run): the whole of it is one command away.
MESSAGE_CAP = 6000


def capped(msg: str, cap: int = MESSAGE_CAP) -> str:
    if len(msg) <= cap:
        return msg
    head, tail = msg[: cap - 1500], msg[-1200:]
    return (f"{head}\n[... {len(msg) - len(head) - len(tail)} characters cut here: build your file "
            f"yourself to see the whole message ...]\n{tail}")


#: Drawings kept as pictures (SVG) per lab in the HTML feedback; the others are shown as the text
#: drawing `banklab explain` prints (what the Markdown feedback shows), each access once.
SVG_PER_LAB = 1
_RECT_RE = re.compile(r'<rect x="([^"]*)" y="([^"]*)"((?: [a-z-]+="[^"]*")+)/>')


def compact_svg(svg: str, prefix: str) -> str:
    """The same picture, smaller: each rectangle drawn 20 times or more with the same size and
    colours (the empty cells of the bank grid) is defined once and placed with <use>."""
    counts: dict[str, int] = {}
    for m in _RECT_RE.finditer(svg):
        counts[m.group(3)] = counts.get(m.group(3), 0) + 1
    common = {a: f"{prefix}r{i}" for i, a in enumerate(a for a, n in counts.items() if n >= 20)}
    if not common:
        return svg
    def use(m):
        ref = common.get(m.group(3))
        return f'<use href="#{ref}" x="{m.group(1)}" y="{m.group(2)}"/>' if ref else m.group(0)
    body = _RECT_RE.sub(use, svg)
    defs = "<defs>" + "".join(f'<rect id="{ref}"{a}/>' for a, ref in common.items()) + "</defs>"
    at = body.find(">", body.find("<svg")) + 1
    return body[:at] + defs + body[at:]


def upload_line(r: LabResult) -> str:
    """Which file of the upload was graded, and what else was handed in and not graded."""
    if not r.source:
        return ""
    ign = r.ignored[:6] + ([f"{len(r.ignored) - 6} more"] if len(r.ignored) > 6 else [])
    shown = Path(r.source).name if r.source.startswith("/") else r.source    # never a grader's own path
    return f"File graded: {shown}." + (f" Handed in and not graded: {', '.join(ign)}." if ign else "")


#: The feedback's line for a submission the LMS marked late (the grade is not changed by it).
LATE_LINE = "Handed in late: the LMS marks this submission late (its points are not changed by that here)."


def _lab_heading(r: LabResult) -> str:
    """A lab's points in the feedback: "not judged" where nothing gradable was handed in (its tests
    never ran: no 0 and no FAILED line), else wording's."""
    if bs.not_judged(r):
        return f"not judged (nothing gradable was handed in; {fmt_points(r.max_points)} points possible)"
    return _lab_points(r)


def _total_heading(results: list[LabResult]) -> str:
    if results and all(bs.not_judged(r) for r in results):
        return "not judged: nothing gradable was handed in"
    return _total_points(results)


def feedback_markdown(student: str, results: list[LabResult], ex: Explainer, late: set[str] = frozenset(),
                      name: str = "") -> str:
    """The student's feedback; `late`: the labs the LMS marked late (banklab.grading.identity.late_labs);
    `name`: the roster's name for them where it is not `student` (banklab.grading.identity.roster_name)."""
    out = [f"# Feedback for {ct.md_text(name or student)}", ""]
    drawn: set[str] = set()
    out += [f"**Total: {_total_heading(results)}**", ""]
    for r in sorted(results, key=lambda r: r.lab):
        out += [f"## Lab {r.lab}: {_lab_heading(r)}", ""]
        out += [ct.md_text(upload_line(r)), ""] if upload_line(r) else []
        out += [LATE_LINE, ""] if r.lab in late else []
        out += [variant_line(r), ""] if variant_line(r) else []
        if r.judge_note and not r.not_graded:
            out += [f"> Not judged: {ct.md_text(r.judge_note)}.", ""]
        if bs.not_judged(r):            # no test ran: no table of FAILED tests
            continue
        if not r.complete:
            out += [f"> {ct.md_text(r.incomplete_line())}", ""]
        out += [f"> {r.emulated_line()}", ""] if r.emulated_line() else []
        out += ["| test | tier | result | points |", "| --- | --- | --- | --- |"]
        out += [f"| `{t}` | {tier} | {s} | {p} |" for t, tier, s, p in _verdict_rows(r)]
        out.append("")
        for msg, vs in failure_groups(r):
            if all(v.status == "skipped" for v in vs) and len(vs) > 1:
                out += [f"{len(vs)} tests not judged: {msg.removeprefix('not judged: ')}", ""]
                continue
            word = STATUS_WORD[vs[0].status]
            out += [f"### {_names(vs)} ({word})", ""]
            if len(vs) > 1:
                out += ["Tests: " + ", ".join(f"`{v.test}`" for v in vs), ""]
            out += [*ct.md_code(capped(student_message(msg)).rstrip()), ""]
            for line in explain_lines(msg):
                d = ex.draw(line)
                if d and line not in drawn:
                    drawn.add(line)
                    out += ["```text", d[0].rstrip(), "```", ""]
                elif d:
                    out += ["(The drawing of this access is above.)", ""]
        out += [f"Points table: `{r.points_table}`; tier graded: {r.tier}.", ""]
    return "\n".join(out)


def feedback_html(student: str, results: list[LabResult], ex: Explainer, late: set[str] = frozenset(),
                  name: str = "") -> str:
    e = html.escape
    student = name or student             # the heading and the title: the roster's name where it has one
    out = ["<!doctype html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Feedback for {e(student)}</title>",
           "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
           "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px}"
           ".failed{color:#b00}.skipped{color:#666}pre{background:#f4f4f4;padding:6px;overflow:auto}"
           "</style></head><body>",
           f"<h1>Feedback for {e(student)}</h1>",
           f"<p><strong>Total: {e(_total_heading(results))}</strong></p>"]
    drawn: set[str] = set()
    for r in sorted(results, key=lambda r: r.lab):
        pictures = 0
        out.append(f"<h2>Lab {e(r.lab)}: {e(_lab_heading(r))}</h2>")
        out += [f"<p>{e(upload_line(r))}</p>"] if upload_line(r) else []
        out += [f"<p>{e(LATE_LINE)}</p>"] if r.lab in late else []
        out += [f"<p>{e(variant_line(r))}</p>"] if variant_line(r) else []
        if r.judge_note and not r.not_graded:
            out.append(f"<p class=\"failed\">Not judged: {e(r.judge_note)}.</p>")
        if bs.not_judged(r):            # no test ran: no table of FAILED tests
            continue
        if not r.complete:
            out.append(f"<p class=\"skipped\"><strong>{e(r.incomplete_line())}</strong></p>")
        if r.emulated_line():
            out.append(f"<p>{e(r.emulated_line())}</p>")
        out.append("<table><tr><th>test</th><th>tier</th><th>result</th><th>points</th></tr>")
        for v, (t, tier, s, p) in zip(r.verdicts, _verdict_rows(r)):
            out.append(f"<tr class=\"{v.status}\"><td><code>{e(t)}</code></td><td>{tier}</td>"
                       f"<td>{e(s)}</td><td>{p}</td></tr>")
        out.append("</table>")
        for msg, vs in failure_groups(r):
            if all(v.status == "skipped" for v in vs) and len(vs) > 1:
                out.append(f"<p class=\"skipped\">{len(vs)} tests not judged: {e(msg.removeprefix('not judged: '))}</p>")
                continue
            out.append(f"<h3 class=\"{vs[0].status}\">{e(_names(vs))}</h3><pre>{e(capped(student_message(msg)).rstrip())}</pre>")
            for line in explain_lines(msg):
                d = ex.draw(line)
                if not d:
                    continue
                if line in drawn:
                    out.append("<p>(The drawing of this access is above.)</p>")
                    continue
                drawn.add(line)
                svg = d[1][d[1].find("<svg"):] if "<svg" in d[1] else ""
                if svg and pictures < SVG_PER_LAB:
                    pictures += 1
                    out.append(f"<figure>{compact_svg(svg, f'f{len(drawn)}')}</figure>")
                else:
                    out.append(f"<details open><summary>the drawing of this access</summary>"
                               f"<pre>{e(d[0].rstrip())}</pre></details>")
        out.append(f"<p>Points table: <code>{e(r.points_table)}</code>; tier graded: {e(r.tier)}.</p>")
    out.append("</body></html>")
    return "\n".join(out)


# --------------------------------------------------------------------------- class summary

def histogram(values: list[float], maximum: float, bins: int = 10) -> list[int]:
    counts = [0] * bins
    for v in values:
        i = bins - 1 if maximum <= 0 else min(int(v / maximum * bins), bins - 1)
        counts[i] += 1
    return counts


def class_summary(results: list[LabResult], top: int = 10) -> tuple[str, dict]:
    by_lab: dict[str, list[LabResult]] = {}
    for r in results:
        by_lab.setdefault(r.lab, []).append(r)
    data = {"labs": {}, "most_failed": []}
    md = ["# Class summary", "",
          "Submissions: students who handed something in for the lab; the points are those of the "
          "graded ones (a submission not graded, or with nothing gradable in it, has no number).", ""]
    md += ["| lab | submissions | nothing handed in | not graded | graded | max | mean | median | min | best "
           "| full marks |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for lab in sorted(by_lab):
        rs = by_lab[lab]
        counts = bs.summary_counts(rs)
        pts = [r.points for r in rs if bs.has_number(r)]
        mx = max(r.max_points for r in rs)
        d = dict(counts, max=mx, mean=round(statistics.mean(pts), 2) if pts else None,
                 median=statistics.median(pts) if pts else None, min=min(pts, default=None),
                 best=max(pts, default=None),
                 full_marks=sum(1 for r in rs if bs.has_number(r) and r.points >= r.max_points > 0),
                 incomplete=sum(1 for r in rs if not r.complete or bs.not_judged(r)), histogram=histogram(pts, mx))
        data["labs"][lab] = d
        num = lambda x: "" if x is None else fmt_points(x)      # noqa: E731
        md.append(f"| {lab} | {d['submissions']} | {d['nothing_handed_in']} | {d['not_graded']} | {d['graded']} | "
                  f"{fmt_points(mx)} | {num(d['mean'])} | {num(d['median'])} | {num(d['min'])} | {num(d['best'])} "
                  f"| {d['full_marks']} |")
    md += ["", "## Points distribution per lab (10 bins of the lab's maximum)", ""]
    for lab in sorted(by_lab):
        h = data["labs"][lab]["histogram"]
        mx = data["labs"][lab]["max"]
        md += [f"Lab {lab}:", "", "```text"]
        for i, c in enumerate(h):
            lo, hi = mx * i / 10, mx * (i + 1) / 10
            md.append(f"{fmt_points(round(lo, 1)):>6}-{fmt_points(round(hi, 1)):<6} {'#' * c} {c}")
        md += ["```", ""]
    md += ["## Most-failed tests per lab", ""]
    data["most_failed"] = {}
    for lab in sorted(by_lab):
        fails = Counter(v.test for r in by_lab[lab] for v in r.failed)
        inc = sum(1 for r in by_lab[lab] if not r.complete or bs.not_judged(r))
        d = data["labs"][lab]
        md += [f"### Lab {lab} ({d['submissions']} submissions"
               + (f", {d['nothing_handed_in']} student(s) handed in nothing" if d["nothing_handed_in"] else "")
               + (f", {d['not_graded']} NOT graded" if d["not_graded"] else "")
               + (f", {inc} without every test judged: incomplete" if inc else "") + ")", ""]
        if not fails:
            md += ["No test failed.", ""]
        else:
            md += ["| test | submissions failing it |", "| --- | --- |"]
            for test, n in fails.most_common(top):
                md.append(f"| `{test}` | {n} |")
            md.append("")
        data["most_failed"][lab] = [{"test": t, "failed": n} for t, n in fails.most_common(top)]
    tables = sorted({(r.lab, r.points_table) for r in results})
    md += ["", "Points tables: " + ", ".join(f"lab {lab} `{t}`" for lab, t in tables), ""]
    data["points_tables"] = {lab: t for lab, t in tables}
    return "\n".join(md), data


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ct.tree(data), indent=1) + "\n")
