"""Which variant grades a student's lab (docs/dev/VARIANTS.md, "Grading against the student's own
variant"): the one home of that rule for grade-class and the platform adapters.

A lab with variants is graded as the variant of its student: variants.choose(lab, id, course seed),
where the id is the student's `login` (identity.match_roster: the export's own, the roster row that
carries the export's id, or a row the instructor confirmed), or, in a class with no LMS (a folder
per student, no --roster), the folder's name. Where a seed is given but the student's id cannot be
known (a name match only proposed, an export with an id but no login, a confirmed row without one),
the lab is NOT graded: never variant 0 silently, never a number (status.py). Without a seed every
lab with variants is graded as variant 0 (the lab as written), and the run says so once. A platform
that chooses the variant itself (PrairieLearn's params.banklab_variant) gives the number.
A lab without variants is graded as before. Python 3 standard library.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.lab.schema import DescriptionError
from banklab.grading import points as bpt
from banklab.grading.result import LabResult, Verdict
from banklab.grading.uploads import ORIGIN

SEED_ENV = banklab_variants.SEED_ENV
#: Said once (grade-class's terminal and summary, a platform's output) when no seed was given.
NO_SEED = ("variants were not used: no course seed (--course-seed or $" + SEED_ENV + "), so every lab "
           "with variants was graded as variant 0, the lab as written, whatever the student's own")


@dataclasses.dataclass(frozen=True)
class Assignment:
    """The variant that grades one student's lab: `k` (None for a lab without variants, or when
    not graded), the lab's `count` of variants (0: none), `ungraded` (why the lab is not graded,
    "" when it is) and `basis` (where k comes from, in words)."""
    lab: str
    k: int | None
    count: int
    ungraded: str = ""
    basis: str = ""

    def key(self) -> str:
        """What a kept result must match besides the file (a new seed or identity grades again)."""
        return "" if not self.count else f"variant {self.k} of {self.count}" if self.k is not None else \
            f"not graded: {self.ungraded}"

    def line(self) -> str:
        """'lab 05 variant 3' for the reports; "" for a lab without variants or not graded."""
        return f"lab {self.lab} variant {self.k}" if self.count and self.k is not None else ""


def course_seed(given: str | None) -> str:
    """The course's seed: --course-seed, else $BANKLAB_COURSE_SEED, else "" (variants not used)."""
    return (given if given is not None else os.environ.get(SEED_ENV, "")).strip()


def variant_count(lab: str, course: Path | None = None) -> int:
    """How many variants lab `lab` has in the course at `course` (0: none, or no such lab)."""
    found = banklab_labs.find_labs(course).get(lab) if course else banklab_labs.find_labs().get(lab)
    v = banklab_variants.read(found) if found else None
    return v.count if v else 0


def student_id(name: str, lms: dict, roster_given: bool,
               identities: str = "OUT/identities.csv") -> tuple[str, str]:
    """(the id a student's variants are drawn from, "") or ("", why it cannot be known, and what
    the instructor does). The id is the identity's `login` (never a proposal's); with no LMS at all
    (a folder or a file per student, no --roster) the folder's (the student's) name."""
    login = (lms.get("login") or "").strip()
    if login:
        return login, ""
    src = lms.get("source") or "folder"
    if src in ("folder", "file") and not roster_given:
        return name, ""
    fix = (f"confirm the identity in {identities} (put yes in its confirm column, with the login the "
           f"release used) and run again with --identities {identities}")
    prop = lms.get("proposed") or {}
    if prop and not lms.get("confirmed"):
        return "", (f"the identity of {name} is only proposed (matched from a bare name"
                    + (f": login {prop['login']}" if prop.get("login") else "") + f"): {fix}")
    if lms.get("confirmed"):
        return "", f"the confirmed identity of {name} has no login: {fix}"
    if src in ("canvas", "moodle"):
        return "", (f"the {src.capitalize()} export carries {name}'s id but no login: pass --roster with the "
                    f"LMS's gradebook export (its SIS Login ID / Username column), or {fix}")
    return "", f"no roster row carries {name}'s identity: {fix}"


def for_student(lab: str, count: int, seed: str, ident: str, why: str) -> Assignment:
    """The variant of one student's lab from the course seed and their id (student_id())."""
    if not count:
        return Assignment(lab, None, 0)
    if not seed:
        return Assignment(lab, 0, count, basis="no course seed: the lab as written")
    if not ident:
        return Assignment(lab, None, count, ungraded=(
            f"lab {lab} has a variant per student, and this student's cannot be known: {why}. "
            "It is not graded against another student's variant"))
    return Assignment(lab, banklab_variants.choose(lab, ident, seed, count), count, basis=f"login {ident.strip().lower()}")


def from_param(lab: str, count: int, value, where: str) -> Assignment:
    """The variant a platform chose (PrairieLearn: params.banklab_variant, an int), checked: missing
    or out of range for a lab with variants is not graded, named."""
    if not count:
        return Assignment(lab, None, 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        got = "missing" if value is None else f"{value!r}"
        return Assignment(lab, None, count, ungraded=(
            f"lab {lab} has variants 0 to {count - 1} and {where} is {got}: the question's server.py must "
            "set data['params']['banklab_variant'] to the student's variant (an int); nothing was graded"))
    return Assignment(lab, value, count, basis=where)


def not_graded_result(student: str, lab: str, source: Path | None, sha: str, tier: str,
                      expected: list[tuple[str, str]], table, why: str, variant: int | None = None):
    """A lab left ungraded before any judge ran (its variant cannot be known, or no GPU under
    --graded): every test of the lab "not graded" with why, no number anywhere (status.py), graded
    again on the next run. `variant`: the variant it would be graded as, where known (the gradebook's
    column says it, as a Slurm task's judge run does)."""
    verdicts = [Verdict(t, tr, "fault", f"not graded: {why}") for t, tr in expected] or \
        [Verdict(f"Lab{lab}.Judge", "cpu", "fault", f"not graded: {why}")]
    r = LabResult(student, lab, ORIGIN.get(source, str(source)) if source else "", sha, tier, verdicts,
                     why, ungraded=why, variant=variant if source else None)
    if table is not None:
        bpt.apply_points(r, table)
    return r


def describe(lab: str, k: int, course: Path | None = None) -> str:
    """The variant's parameters in words ("col = 7, chunk = 5, ..."), "" where unknown."""
    try:
        found = banklab_labs.find_labs(course).get(lab) if course else banklab_labs.find_labs().get(lab)
        v = banklab_variants.read(found) if found else None
        return v.describe(k) if v else ""
    except DescriptionError:
        return ""


# --------------------------------------------------------------------------- the platforms

#: Gradescope: which field of /autograder/submission_metadata.json's users[0] is the student's login
#: (make-zip --variant-id): "sid" (Gradescope's Student ID; the e-mail's local part where it is
#: empty) or "email" (always the e-mail's local part).
GRADESCOPE_IDS = ("sid", "email")


def gradescope_id(metadata_path: Path, which: str = "sid") -> tuple[str, str]:
    """(the submitter's login, "") from Gradescope's submission_metadata.json, or ("", why not)."""
    try:
        import json
        users = json.loads(metadata_path.read_text()).get("users") or []
        user = users[0] if isinstance(users[0], dict) else {}
    except (OSError, ValueError, IndexError, AttributeError) as e:
        return "", f"{metadata_path} names no submitter ({e.__class__.__name__}): Gradescope writes it for every submission"
    sid = str(user.get("sid") or "").strip()
    local = str(user.get("email") or "").strip().partition("@")[0]
    got = sid if which == "sid" and sid else local
    if not got:
        return "", (f"{metadata_path}'s users[0] has no " + ("Student ID (sid) and no " if which == "sid" else "")
                    + "e-mail: set it in the course roster on Gradescope")
    return got, ""


def platform_assignments(platform: str, sources: dict, course: Path, seed: str, root: Path,
                         variant_id: str = "sid") -> dict[str, Assignment]:
    """{lab: Assignment} of one submission on a platform (`sources`: {lab: (its kernel or None, why)}):
    - gradescope: the course seed (make-zip --course-seed) and the submitter's login
      (gradescope_id()); a seed without a login: not graded;
    - prairielearn: /grade/data/data.json's params.banklab_variant (the question's server.py sets it);
    - github: the variant the student's own kernel.cu names (its `// banklab variant:` line, 0 when
      none): the student owns the workflow, so no seed can be kept from it; feedback, not the grade."""
    out = {}
    ident, why, param = "", "", None
    if platform == "gradescope" and seed:
        ident, why = gradescope_id(root / "submission_metadata.json", variant_id)
    if platform == "prairielearn":
        try:
            import json
            param = json.loads((root / "data" / "data.json").read_text())["params"].get("banklab_variant")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            param = None
    for n, (src, _) in sources.items():
        count = variant_count(n, course)
        if platform == "gradescope":
            out[n] = for_student(n, count, seed, ident, why)
        elif platform == "prairielearn":
            out[n] = from_param(n, count, param, f"{root / 'data' / 'data.json'}'s params.banklab_variant")
        else:
            out[n] = Assignment(n, _named(src, n, count), count, basis="the file's own line") if count \
                else Assignment(n, None, 0)
    return out


def _named(src: Path | None, lab: str, count: int) -> int:
    """The variant a kernel.cu names on its line (0: none, no file, or not one of the lab's)."""
    try:
        k = banklab_variants.named_variant(src.read_text(errors="replace")[:1 << 20], lab) if src else None
    except OSError:
        k = None
    return k if k is not None and 0 <= k < count else 0
