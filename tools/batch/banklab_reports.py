"""Reports made from graded results (banklab_grading.LabResult): the gradebook, per-student
feedback (Markdown and HTML, with `banklab explain` drawings), the class summary, and the
platform files (JUnit XML, Gradescope results.json, PrairieLearn results.json, a GitHub job
summary). Every file shows the points table it was scored with. Standard library only."""

from __future__ import annotations

import csv
import html
import json
import statistics
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from banklab_grading import LabResult, Verdict, explain_lines, fmt_points

STATUS_WORD = {"passed": "passed", "failed": "FAILED", "skipped": "skipped"}


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

def write_gradebook(results: list[LabResult], path: Path) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "lab", "points", "max", "failed_tests"])
        for r in sorted(results, key=lambda r: (r.student, r.lab)):
            w.writerow([r.student, r.lab, fmt_points(r.points), fmt_points(r.max_points),
                        ";".join(v.test for v in r.failed)])


# --------------------------------------------------------------------------- feedback

def _verdict_rows(r: LabResult) -> list[tuple[str, str, str, str]]:
    return [(v.test, v.tier, STATUS_WORD[v.status], f"{fmt_points(v.points)} / {fmt_points(v.max_points)}")
            for v in r.verdicts]


def feedback_markdown(student: str, results: list[LabResult], ex: Explainer) -> str:
    out = [f"# Feedback for {student}", ""]
    total = sum(r.points for r in results)
    maxi = sum(r.max_points for r in results)
    out += [f"**Total: {fmt_points(total)} / {fmt_points(maxi)} points**", ""]
    for r in sorted(results, key=lambda r: r.lab):
        out += [f"## Lab {r.lab}: {fmt_points(r.points)} / {fmt_points(r.max_points)} points", ""]
        if r.judge_note:
            out += [f"> Not judged: {r.judge_note}.", ""]
        out += ["| test | tier | result | points |", "| --- | --- | --- | --- |"]
        out += [f"| `{t}` | {tier} | {s} | {p} |" for t, tier, s, p in _verdict_rows(r)]
        out.append("")
        for v in r.verdicts:
            if v.status == "passed" or not v.message:
                continue
            out += [f"### {v.test} ({STATUS_WORD[v.status]})", "", "```text", v.message.rstrip(), "```", ""]
            for line in explain_lines(v.message):
                d = ex.draw(line)
                if d:
                    out += ["```text", d[0].rstrip(), "```", ""]
        out += [f"Points table: `{r.points_table}`; tier graded: {r.tier}.", ""]
    return "\n".join(out)


def feedback_html(student: str, results: list[LabResult], ex: Explainer) -> str:
    e = html.escape
    total = sum(r.points for r in results)
    maxi = sum(r.max_points for r in results)
    out = ["<!doctype html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Feedback for {e(student)}</title>",
           "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
           "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px}"
           ".failed{color:#b00}.skipped{color:#666}pre{background:#f4f4f4;padding:6px;overflow:auto}"
           "</style></head><body>",
           f"<h1>Feedback for {e(student)}</h1>",
           f"<p><strong>Total: {fmt_points(total)} / {fmt_points(maxi)} points</strong></p>"]
    for r in sorted(results, key=lambda r: r.lab):
        out.append(f"<h2>Lab {e(r.lab)}: {fmt_points(r.points)} / {fmt_points(r.max_points)} points</h2>")
        if r.judge_note:
            out.append(f"<p class=\"failed\">Not judged: {e(r.judge_note)}.</p>")
        out.append("<table><tr><th>test</th><th>tier</th><th>result</th><th>points</th></tr>")
        for v, (t, tier, s, p) in zip(r.verdicts, _verdict_rows(r)):
            out.append(f"<tr class=\"{v.status}\"><td><code>{e(t)}</code></td><td>{tier}</td>"
                       f"<td>{e(s)}</td><td>{p}</td></tr>")
        out.append("</table>")
        for v in r.verdicts:
            if v.status == "passed" or not v.message:
                continue
            out.append(f"<h3 class=\"{v.status}\">{e(v.test)}</h3><pre>{e(v.message.rstrip())}</pre>")
            for line in explain_lines(v.message):
                d = ex.draw(line)
                if d:
                    svg = d[1]
                    svg = svg[svg.find("<svg"):] if "<svg" in svg else ""
                    out.append(f"<figure>{svg}</figure>")
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
    md = ["# Class summary", ""]
    md += ["| lab | submissions | max | mean | median | min | best | full marks |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for lab in sorted(by_lab):
        rs = by_lab[lab]
        pts = [r.points for r in rs]
        mx = max(r.max_points for r in rs)
        d = {"submissions": len(rs), "max": mx, "mean": round(statistics.mean(pts), 2),
             "median": statistics.median(pts), "min": min(pts), "best": max(pts),
             "full_marks": sum(1 for r in rs if r.points >= r.max_points > 0),
             "histogram": histogram(pts, mx)}
        data["labs"][lab] = d
        md.append(f"| {lab} | {d['submissions']} | {fmt_points(mx)} | {d['mean']} | "
                  f"{fmt_points(d['median'])} | {fmt_points(d['min'])} | {fmt_points(d['best'])} | {d['full_marks']} |")
    md += ["", "## Points distribution per lab (10 bins of the lab's maximum)", ""]
    for lab in sorted(by_lab):
        h = data["labs"][lab]["histogram"]
        mx = data["labs"][lab]["max"]
        md += [f"Lab {lab}:", "", "```text"]
        for i, c in enumerate(h):
            lo, hi = mx * i / 10, mx * (i + 1) / 10
            md.append(f"{fmt_points(round(lo, 1)):>6}-{fmt_points(round(hi, 1)):<6} {'#' * c} {c}")
        md += ["```", ""]
    fails = Counter(v.test for r in results for v in r.failed)
    md += ["## Most-failed tests", "", "| test | submissions failing it |", "| --- | --- |"]
    for test, n in fails.most_common(top):
        md.append(f"| `{test}` | {n} |")
        data["most_failed"].append({"test": test, "failed": n})
    tables = sorted({(r.lab, r.points_table) for r in results})
    md += ["", "Points tables: " + ", ".join(f"lab {lab} `{t}`" for lab, t in tables), ""]
    data["points_tables"] = {lab: t for lab, t in tables}
    return "\n".join(md), data


# --------------------------------------------------------------------------- platforms

def junit_xml(results: list[LabResult], student: str = "") -> str:
    suites = ET.Element("testsuites", name=f"banklab {student}".strip())
    for r in sorted(results, key=lambda r: r.lab):
        s = ET.SubElement(suites, "testsuite", name=f"lab{r.lab}", tests=str(len(r.verdicts)),
                          failures=str(len(r.failed)),
                          skipped=str(sum(v.status == "skipped" for v in r.verdicts)))
        for v in r.verdicts:
            c = ET.SubElement(s, "testcase", classname=f"lab{r.lab}", name=v.test,
                              time=str(0))
            if v.status == "failed":
                ET.SubElement(c, "failure", message=v.message.split("\n")[0][:200]).text = v.message
            elif v.status == "skipped":
                ET.SubElement(c, "skipped", message=v.message[:200])
    return ET.tostring(suites, encoding="unicode", xml_declaration=True)


def _output(v: Verdict) -> str:
    return v.message if v.message else ("passed" if v.status == "passed" else v.status)


def gradescope_results(results: list[LabResult]) -> dict:
    """Gradescope's autograder results.json: score, tests[] of name, score, max_score, status,
    output, visibility."""
    tests = []
    for r in sorted(results, key=lambda r: r.lab):
        for v in r.verdicts:
            tests.append({"name": f"lab{r.lab} {v.test}", "score": round(v.points, 4),
                          "max_score": round(v.max_points, 4),
                          "status": "passed" if v.status == "passed" else "failed",
                          "output": _output(v), "visibility": "visible"})
    notes = [f"lab {r.lab}: not judged: {r.judge_note}" for r in results if r.judge_note]
    notes += [f"lab {r.lab}: {fmt_points(r.points)} / {fmt_points(r.max_points)} points "
              f"(table {r.points_table}, tier {r.tier})" for r in sorted(results, key=lambda r: r.lab)]
    return {"score": round(sum(r.points for r in results), 3),
            "output": "\n".join(notes) if notes else "Nothing was graded.",
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def prairielearn_results(results: list[LabResult]) -> dict:
    """PrairieLearn external grader results.json: gradable, score in [0, 1], tests[] of name,
    points, max_points, message, output."""
    tests = []
    for r in sorted(results, key=lambda r: r.lab):
        for v in r.verdicts:
            tests.append({"name": f"lab{r.lab} {v.test}", "points": round(v.points, 4),
                          "max_points": round(v.max_points, 4),
                          "message": STATUS_WORD[v.status], "output": _output(v)})
    pts = sum(r.points for r in results)
    mx = sum(r.max_points for r in results)
    return {"gradable": bool(results), "score": round(pts / mx, 6) if mx > 0 else 0.0,
            "points": round(pts, 3), "max_points": round(mx, 3), "tests": tests,
            "message": "; ".join(f"lab {r.lab}: {fmt_points(r.points)}/{fmt_points(r.max_points)}"
                                 for r in sorted(results, key=lambda r: r.lab))}


def github_summary(results: list[LabResult]) -> str:
    md = ["## banklab: points", "", "| lab | points | failed tests |", "| --- | --- | --- |"]
    for r in sorted(results, key=lambda r: r.lab):
        failed = ", ".join(f"`{v.test}`" for v in r.failed) or "none"
        md.append(f"| {r.lab} | {fmt_points(r.points)} / {fmt_points(r.max_points)} | {failed} |")
    md += ["", f"**Total: {fmt_points(sum(r.points for r in results))} / "
               f"{fmt_points(sum(r.max_points for r in results))}**", "",
           "Points tables: " + ", ".join(f"`{r.points_table}`" for r in sorted(results, key=lambda r: r.lab)), ""]
    for r in sorted(results, key=lambda r: r.lab):
        for v in r.failed:
            md += [f"<details><summary>lab {r.lab} {v.test}</summary>", "", "```text",
                   v.message.rstrip(), "```", "</details>", ""]
    return "\n".join(md)


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
