"""The one CSV writer of the package (the gradebook, the LMS files, the status file, Slurm's
status.csv): every cell goes through csv_cell(), so that no text a student chose reaches a
spreadsheet as a formula. Standard library only."""

from __future__ import annotations

import csv
from pathlib import Path

from banklab.grading.result import fmt_points
from banklab.grading import cleantext as ct


#: The first characters that make a spreadsheet (Excel, LibreOffice, Google Sheets) read a cell as
#: a formula or a command: OWASP's list for CSV injection.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
    """One cell of every CSV the project writes. A number the grader computed (int or float: points,
    maxima) is written as a number, negative or not; any text (a student's folder name, an LMS id,
    a test name, a note) that starts with = + - @ tab or CR gets a leading single quote, so that a
    spreadsheet shows it as text instead of running it (OWASP, "CSV Injection"), and its control
    and format characters (ESC, CR, a bidirectional override) are shown as escapes (cleantext.py;
    newlines kept, the writer quotes them). Which rule
    applies is decided by where the value came from (its type), never by what the text looks like."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return fmt_points(value)
    text = "" if value is None else ct.visible(str(value))
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def write_csv(path: Path, header: list, rows, points_row: list | None = None, quote_all: bool = False) -> None:
    """The one CSV writer: every cell of the header and of each row goes through csv_cell().
    `points_row`: a row written right after the header (Canvas's "Points Possible")."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
        for row in [header, *([points_row] if points_row else []), *rows]:
            w.writerow([csv_cell(c) for c in row])
