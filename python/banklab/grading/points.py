"""Points: the weight of each role (grader/points/weights.toml) and each lab's table of groups and
gates (its description), read into a PointsTable; apply_points() gives a result's verdicts their
points with it, and rescore_saved()/rescore_folder() score saved results again from their stored
verdicts (no judge runs)."""
from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Iterable

from banklab.lab import labs as banklab_labs
from banklab.lab.schema import DescriptionError
from banklab.grading.result import LabResult, fmt_points


#: The one place where the weight of each role, and the groups every lab shares, are set:
#: grader/points/weights.toml. A lab's own part (its gates) is in its description labs/NN_name/judge/lab.toml.
WEIGHTS_FILE = "weights.toml"


def _read_weights_file(path: Path) -> tuple[str, dict]:
    try:
        text = path.read_text()
        return text, tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"{path}: {e}") from e


#: [emulated] of weights.toml: what a GPU test judged on the emulator earns (`earns`: "full", a
#: fraction in [0, 1], "none") and what becomes of a timing test the emulator cannot judge
#: (`timing`: "not judged" or "reweighted"). The defaults: an emulated verdict is the same judgement
#: of the same kernel, so it earns its points; a timing test stays not judged (in the maximum, the
#: grade incomplete) until a GPU judges it.
EMULATED_DEFAULTS = {"earns": 1.0, "timing": "not judged"}
EMULATED_TIMING = ("not judged", "reweighted")


def emulated_policy(data: dict, path: Path | str) -> dict:
    """weights.toml's [emulated] as {"earns": fraction, "timing": word}; ValueError where it is not one."""
    got = data.get("emulated") or {}
    if not isinstance(got, dict) or set(got) - set(EMULATED_DEFAULTS):
        raise ValueError(f"{path}: [emulated] holds only earns and timing")
    earns = got.get("earns", "full")
    if earns in ("full", "none"):
        earns = 1.0 if earns == "full" else 0.0
    if isinstance(earns, bool) or not isinstance(earns, (int, float)) or not 0 <= earns <= 1:
        raise ValueError(f"{path}: [emulated] earns must be \"full\", \"none\" or a fraction from 0 to 1")
    timing = got.get("timing", EMULATED_DEFAULTS["timing"])
    if timing not in EMULATED_TIMING:
        raise ValueError(f"{path}: [emulated] timing must be one of {', '.join(repr(t) for t in EMULATED_TIMING)}")
    return {"earns": float(earns), "timing": timing}


def load_weights(points_dir: Path) -> dict[str, float]:
    """Points of each role ({"objective": 50, ...}) from POINTS_DIR/weights.toml."""
    path = points_dir / WEIGHTS_FILE
    _, data = _read_weights_file(path)
    out = {}
    for role, pts in (data.get("roles") or {}).items():
        if not isinstance(pts, (int, float)) or pts < 0:
            raise ValueError(f"{path}: [roles] {role} must be a number >= 0")
        out[str(role)] = float(pts)
    return out


@dataclasses.dataclass
class Group:
    name: str
    patterns: list[str]
    points: float
    role: str = ""
    requires: list[str] = dataclasses.field(default_factory=list)

    def matches(self, test: str) -> bool:
        return any(fnmatch.fnmatchcase(test, p) for p in self.patterns)


@dataclasses.dataclass
class PointsTable:
    lab: str
    groups: list[Group]
    tests: dict[str, float]               # test -> its own points
    path: str = ""
    digest: str = ""                      # sha256 of the table and the weights it used
    emulated: dict = dataclasses.field(default_factory=lambda: dict(EMULATED_DEFAULTS))  # emulated_policy()

    @staticmethod
    def load(path: Path, weights: dict[str, float] | None = None, emulated: dict | None = None) -> "PointsTable":
        """A whole table in one file (lab, [groups.*], [tests]): an instructor's own table given
        with --points-dir, or a test's."""
        try:
            text = path.read_text()
            data = tomllib.loads(text)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise ValueError(f"{path}: {e}") from e
        return PointsTable.from_data(data, text, path, weights, emulated)

    @staticmethod
    def from_data(data: dict, text: str, path: Path | str, weights: dict[str, float] | None = None,
                  emulated: dict | None = None) -> "PointsTable":
        """The table `data` (as a table file parses); `text` is what its digest covers; `emulated`:
        weights.toml's [emulated] (emulated_policy()), the defaults when None."""
        weights = weights or {}
        emulated = dict(emulated or EMULATED_DEFAULTS)
        lab = str(data.get("lab", ""))
        if banklab_labs.lab_number(lab) != lab:
            raise ValueError(f"{path}: 'lab' must be a two-digit string such as \"05\"")
        groups = []
        for name, g in (data.get("groups") or {}).items():
            if not isinstance(g, dict) or "match" not in g or ("points" not in g and "role" not in g):
                raise ValueError(f"{path}: [groups.{name}] needs 'match' and 'points' or 'role'")
            role = str(g.get("role", ""))
            if "points" in g:
                pts = g["points"]
            elif role in weights:
                pts = weights[role]
            else:
                raise ValueError(f"{path}: [groups.{name}] role {role!r} has no weight in {WEIGHTS_FILE}")
            if not isinstance(pts, (int, float)) or pts < 0:
                raise ValueError(f"{path}: [groups.{name}] points must be a number >= 0")
            pats = g["match"] if isinstance(g["match"], list) else [g["match"]]
            req = g.get("requires", [])
            req = req if isinstance(req, list) else [req]
            groups.append(Group(name, [str(x) for x in pats], float(pts), role, [str(x) for x in req]))
        names = {g.name for g in groups}
        for g in groups:
            for r in g.requires:
                if r not in names:
                    raise ValueError(f"{path}: [groups.{g.name}] requires unknown group {r!r}")
        tests = {}
        for name, pts in (data.get("tests") or {}).items():
            if not isinstance(pts, (int, float)) or pts < 0:
                raise ValueError(f"{path}: [tests] \"{name}\" must be a number >= 0")
            tests[name] = float(pts)
        said = "" if emulated == EMULATED_DEFAULTS else json.dumps(emulated, sort_keys=True)  # the defaults: as before
        digest = hashlib.sha256((text + json.dumps(weights, sort_keys=True) + said).encode()).hexdigest()
        return PointsTable(lab, groups, tests, str(path), digest, emulated)

    def group_of(self, test: str) -> str | None:
        for g in self.groups:
            if g.matches(test):
                return g.name
        return None

    def group(self, name: str) -> Group | None:
        return next((g for g in self.groups if g.name == name), None)

    def allocate(self, tests: Iterable[str]) -> dict[str, float]:
        """Points of each test among `tests` (every test of the lab the judge lists, whether
        or not this run judged it: a test left out of the run keeps its points in the maximum).

        A test under [tests] keeps its own points; a group's points are shared
        equally by its other tests; a test in no group gets 0 (unscored). A group
        with no test in the list adds nothing to the maximum.
        """
        tests = list(dict.fromkeys(tests))
        out: dict[str, float] = {}
        members: dict[str, list[str]] = {}
        for t in tests:
            if t in self.tests:
                out[t] = self.tests[t]
                continue
            g = self.group_of(t)
            if g is None:
                out[t] = 0.0
            else:
                members.setdefault(g, []).append(t)
        for g in self.groups:
            mem = members.get(g.name, [])
            if not mem:
                continue
            own = sum(self.tests.get(t, 0.0) for t in tests
                      if t in self.tests and self.group_of(t) == g.name)
            share = max(g.points - own, 0.0) / len(mem)
            for t in mem:
                out[t] = share
        return out


def lab_table_data(description: dict, weights_data: dict, lab: str) -> dict:
    """Lab `lab`'s points table, as a table file would hold it: the group `gates` (role "gate",
    the description's [points] gates), then the groups of weights.toml with `NN` replaced by the
    lab's number, and [tests] from the description's optional [points.tests]."""
    pts = description.get("points") or {}
    groups = {"gates": {"role": "gate", "match": list(pts.get("gates", []))}}
    for name, g in (weights_data.get("groups") or {}).items():
        if name == "gates":
            raise ValueError(f"{WEIGHTS_FILE}: the group `gates` is each lab's own ([points] gates "
                             "of labs/NN_name/judge/lab.toml)")
        if not isinstance(g, dict):
            raise ValueError(f"{WEIGHTS_FILE}: [groups.{name}] must be a table")
        g = dict(g)
        if "match" in g:
            m = g["match"]
            g["match"] = [x.replace("NN", lab) for x in m] if isinstance(m, list) else str(m).replace("NN", lab)
        groups[name] = g
    return {"lab": lab, "groups": groups, "tests": dict(pts.get("tests", {}))}


def load_points(root: Path, lab: str, points_dir: Path | None = None) -> PointsTable:
    """Lab `lab`'s points table: its gates (and own test points) from its description
    labs/NN_name/judge/lab.toml, every other group and the weights from grader/points/weights.toml.

    points_dir (the instructor's --points-dir): a folder whose weights.toml replaces the
    course's, and whose labNN.toml, when there is one, is lab NN's whole table (the format of
    grader/points/README.md), used instead of the description's gates."""
    home = root / "grader" / "points"
    pdir = points_dir or home
    weights_path = pdir / WEIGHTS_FILE if (pdir / WEIGHTS_FILE).is_file() else home / WEIGHTS_FILE
    wtext, wdata = _read_weights_file(weights_path) if weights_path.is_file() else ("", {})
    weights = load_weights(weights_path.parent) if wtext else {}
    emulated = emulated_policy(wdata, weights_path)

    def rel(p: Path) -> str:
        try:
            return str(p.resolve().relative_to(root.resolve()))
        except ValueError:
            return str(p)

    own = points_dir / f"lab{lab}.toml" if points_dir else None
    if own is not None and own.is_file():
        table = PointsTable.load(own, weights, emulated)
        table.path = rel(own)
    else:
        try:
            found = banklab_labs.find_labs(root).get(lab)
        except DescriptionError as e:
            raise ValueError(str(e)) from e
        if found is None:
            raise ValueError(f"no points for lab {lab}: no folder {root / 'labs'}/{lab}_name/ holds its "
                             f"description {banklab_labs.DESCRIPTION}")
        desc_path, desc = found.description_path, found.description
        data = lab_table_data(desc, wdata, lab)
        # The digest covers what decides the points: the lab's [points] and the weights file.
        text = json.dumps(data, sort_keys=True) + wtext
        table = PointsTable.from_data(data, text, desc_path, weights, emulated)
        table.path = f"{rel(desc_path)} [points] + {rel(weights_path)}"
    if table.lab != lab:
        raise ValueError(f"{own or desc_path} says lab = \"{table.lab}\", expected \"{lab}\"")
    return table


# --------------------------------------------------------------------------- a result's points

def reweigh(alloc: dict[str, float], moved: list[str]) -> dict[str, float]:
    """`alloc` with the points of `moved` (timing tests the emulator cannot judge) shared by the
    lab's other tests in proportion to their own, so that the lab's maximum is unchanged: the
    table's [emulated] timing = "reweighted"."""
    pts = sum(alloc.get(t, 0.0) for t in moved)
    rest = sum(p for t, p in alloc.items() if t not in moved)
    if pts <= 0 or rest <= 0:
        return alloc
    return {t: 0.0 if t in moved else p * (rest + pts) / rest for t, p in alloc.items()}


def apply_points(res: LabResult, table: PointsTable) -> None:
    """Points of each verdict: its share when it passed and every test of the groups its group
    `requires` (those this run judged) passed too; nothing otherwise. The maximum counts every
    test of the lab, judged or not. A GPU test judged on the emulator earns the table's [emulated]
    `earns` of its share (a note says so where that is less); a timing test the emulator cannot
    judge stays not judged, or ([emulated] timing = "reweighted") leaves the maximum, its points
    shared by the lab's other tests (reweigh())."""
    alloc = table.allocate(v.test for v in res.verdicts)
    policy = table.emulated
    moved = [v.test for v in res.verdicts if v.timing_on_emulator] if policy["timing"] == "reweighted" else []
    alloc = reweigh(alloc, moved)
    status = {v.test: v.status for v in res.verdicts}
    blocked: dict[str, list[str]] = {}
    for g in table.groups:
        if g.requires:
            blocked[g.name] = [t for t, st in status.items() if st == "failed"
                               and table.group_of(t) in g.requires]
    for v in res.verdicts:
        v.max_points = alloc.get(v.test, 0.0)   # unrounded: the sums are rounded, not the shares
        gate = blocked.get(table.group_of(v.test) or "", [])
        v.points = v.max_points if v.status == "passed" and not gate else 0.0
        v.note = ""
        v.reweighted = v.test in moved and alloc.get(v.test, 0.0) == 0.0
        v.awaits_gpu = v.emulated and v.status in ("passed", "failed") and policy["earns"] == 0.0
        if v.status == "passed" and gate and v.max_points > 0:
            v.note = (f"passed, but earns nothing until {', '.join(gate[:3])}"
                         f"{' ...' if len(gate) > 3 else ''} pass{'es' if len(gate) == 1 else ''}")
        elif v.emulated and v.status == "passed" and v.max_points > 0 and policy["earns"] < 1.0:
            v.points = v.max_points * policy["earns"]
            v.note = (f"judged on the emulator, which earns {fmt_points(round(policy['earns'] * 100, 2))} % of a "
                      "GPU test's points in this course" + ("; a GPU judges it for its points" if v.awaits_gpu else ""))
        elif v.reweighted:
            v.note = "not judged (needs a GPU); its points are shared by the lab's other tests in this course"
    res.points_table = table.path




#: Keys of a saved result (OUT/results/STUDENT/labNN.json) that are the batch grader's, not the
#: LabResult's: kept as they are when the result is re-scored.
SAVED_KEYS = ("graded", "cache_key", "verdict_key", "lms_id", "lms")


def rescore_saved(saved: dict, table: PointsTable, new_cache_key: str | None = None) -> tuple[LabResult, dict]:
    """A saved result scored again with `table` from its stored verdicts (no judge runs): the
    result and the record to save in its place (its cache_key replaced when one is given)."""
    r = LabResult.from_json(saved)
    apply_points(r, table)
    d = r.to_json()
    d.update({k: saved[k] for k in SAVED_KEYS if k in saved})
    d["points_digest"] = table.digest        # what grade-class compares before reusing it
    if new_cache_key is not None:
        d["cache_key"] = new_cache_key
    return r, d


def rescore_folder(results_dir: Path, table_of) -> int:
    """Every saved result under `results_dir` (OUT/results/STUDENT/labNN.json) scored again from
    its stored verdicts with table_of(lab), and saved (grade-class --rescore: no judge). Returns
    how many; an unreadable record or a lab without a table is left as it is."""
    n = 0
    for f in sorted(results_dir.glob("*/lab*.json")):
        try:
            saved = json.loads(f.read_text())
            _, d = rescore_saved(saved, table_of(str(saved["lab"])))
        except (ValueError, KeyError, TypeError, OSError):
            continue
        f.write_text(json.dumps(d, indent=1) + "\n")
        n += 1
    return n


# --------------------------------------------------------------------------- the tables a grading kept

#: Where grade-class keeps, in its --out, the points table it scored each lab with (labNN.json):
#: a later run scores that lab with it again, whatever --points-dir says, unless it says --rescore.
KEPT_DIR = "points"


def keep_table(out: Path, table: PointsTable) -> None:
    """OUT/points/labNN.json: the table lab NN's results in OUT are scored with."""
    (out / KEPT_DIR).mkdir(parents=True, exist_ok=True)
    (out / KEPT_DIR / f"lab{table.lab}.json").write_text(json.dumps(dataclasses.asdict(table), indent=1) + "\n")


def kept_table(out: Path, lab: str) -> PointsTable | None:
    """The table kept for lab `lab` in OUT (None where none is); ValueError where it does not read."""
    path = out / KEPT_DIR / f"lab{lab}.json"
    if not path.is_file():
        return None
    try:
        d = json.loads(path.read_text())
        t = PointsTable(str(d["lab"]), [Group(**g) for g in d["groups"]], dict(d["tests"]), d["path"], d["digest"],
                        dict(d.get("emulated") or EMULATED_DEFAULTS))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} (the points table lab {lab} was scored with) does not read ({e}): "
                         f"remove it and re-score with --rescore") from e
    if t.lab != lab:
        raise ValueError(f"{path} is lab {t.lab}'s table, not lab {lab}'s")
    return t


def choose_tables(out: Path, fresh: dict[str, PointsTable], given: bool,
                  rescore: bool) -> tuple[dict[str, PointsTable], list[str], list[str]]:
    """The table each lab of a grade-class run scores with. `fresh`: the tables the run reads (the
    course's, or --points-dir's where `given`). A lab with a table kept in OUT (keep_table) keeps
    it unless the run says --rescore (`rescore`), which scores it with the fresh one; a run that
    gives --points-dir with another table for a kept lab, without --rescore, is refused. Returns
    (the tables, the labs whose table differs from the kept one, a note for each lab that keeps its
    table while the course's differs)."""
    tables, changed, notes = {}, [], []
    for lab, table in fresh.items():
        kept = kept_table(out, lab)
        if kept is None or kept.digest == table.digest:
            tables[lab] = table
            continue
        changed.append(lab)
        tables[lab] = table if (rescore or given) else kept
        if not rescore and not given:
            notes.append(f"lab {lab} is scored with the table its results were scored with ({kept.path}, kept in "
                         f"{out / KEPT_DIR / f'lab{lab}.json'}), not with the course's current one ({table.path}); "
                         "to re-score with the course's: add --rescore")
    return tables, (changed if (rescore or given) else []), notes
