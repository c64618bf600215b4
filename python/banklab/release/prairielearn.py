"""A PrairieLearn question of one lab with its per-student variants (docs/dev/VARIANTS.md;
instructor/platforms/prairielearn/README.md): the question folder of the kit
(instructor/platforms/prairielearn/question/) with its server.py's table written for the lab (each
variant's parameters and the texts of the questions it changes) and the starting file of each
variant, kernel_vK.cu (its stub). PrairieLearn picks K from its own variant seed (server.py).

    python3 python/banklab_run.py -m banklab.release.prairielearn --lab 05 --image REGISTRY/NAME OUT [--force]

info.json gets the grader image given (the kit's question names a placeholder, ORG/banklab-grader)
and a uuid of the lab's own, the same each time for that image and lab (uuid5), so that each lab's
question is its own in a PrairieLearn course and generating it again keeps its students' work.
"""
from __future__ import annotations

import json
import re
import shutil
import sys
import uuid
from pathlib import Path

from banklab.lab import labs as banklab_labs
from banklab.lab import variants as banklab_variants
from banklab.lab.schema import DescriptionError

QUESTION = Path("instructor") / "platforms" / "prairielearn" / "question"
#: The kit's question names this image: a placeholder, never written into a generated question.
PLACEHOLDER_IMAGE = "ORG/banklab-grader"
_BLOCK = re.compile(r"(# BEGIN banklab variants[^\n]*\n).*?(# END banklab variants)", re.S)


def table(lab: banklab_labs.Lab) -> list[dict]:
    """One row per variant: its parameters and the questions whose texts it changes (name, what)."""
    v = banklab_variants.read(lab)
    if v is None:
        return [{"params": "the lab as written", "questions": []}]
    rows = []
    for k in range(v.count):
        d = banklab_variants.description(lab, k)
        qs = [{"name": q["name"], "what": q.get("what") or q.get("hint", "")}
              for q in d.get("questions", []) if q["name"] in set(v.what) | set(v.hint)]
        rows.append({"params": v.describe(k), "questions": qs})
    return rows


def server_py(template: str, lab: banklab_labs.Lab) -> str:
    """server.py with its table (between its BEGIN/END lines) written for `lab`."""
    rows = ",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in table(lab))
    body = f'LAB = "{lab.number}"\nVARIANTS = [\n{rows},\n]\n'
    text, n = _BLOCK.subn(lambda m: m.group(1) + body + m.group(2), template)
    if n != 1:
        raise DescriptionError(f"{QUESTION}/server.py has no single '# BEGIN banklab variants' ... '# END' block")
    return text


def question_uuid(image: str, lab: str) -> str:
    """The uuid of lab `lab`'s question for the grader image `image`: one per lab (PrairieLearn
    tells questions apart by it), the same on every generation (uuid5)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"banklab:{image}:lab{lab}"))


def write_question(lab: banklab_labs.Lab, out: Path, root: Path, image: str = PLACEHOLDER_IMAGE) -> int:
    """The question folder of `lab` at `out`, graded by the image `image`; returns the count of variants."""
    src = root / QUESTION
    out.mkdir(parents=True)
    info = json.loads((src / "info.json").read_text())
    info["title"] = f"Lab {lab.number}: {lab.folder[3:].replace('_', ' ')}"
    info["uuid"] = question_uuid(image, lab.number)
    info.setdefault("externalGradingOptions", {})["image"] = image
    (out / "info.json").write_text(json.dumps(info, indent=2) + "\n")
    shutil.copy2(src / "question.html", out / "question.html")
    (out / "server.py").write_text(server_py((src / "server.py").read_text(), lab))
    v = banklab_variants.read(lab)
    count = v.count if v else 1
    for k in range(count):
        (out / f"kernel_v{k}.cu").write_text(banklab_variants.stub(lab, k))
    return count


def main(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="banklab.release.prairielearn", description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", required=True)
    ap.add_argument("out", type=Path)
    ap.add_argument("--image", required=True, metavar="REGISTRY/NAME",
                    help="your grader image (instructor/platforms/prairielearn/README.md builds and pushes it)")
    ap.add_argument("--force", action="store_true", help="replace OUT if it exists")
    a = ap.parse_args(argv)
    if a.image.strip() in ("", PLACEHOLDER_IMAGE):
        ap.error(f"--image: your image's name, not the placeholder {PLACEHOLDER_IMAGE}")
    root = banklab_labs.repo_root()
    labs = banklab_labs.find_labs(root)
    if a.lab.zfill(2) not in labs:
        ap.error(f"no lab {a.lab} (labs: {', '.join(labs)})")
    if a.out.exists():
        if not a.force:
            ap.error(f"{a.out} exists (use --force to replace it)")
        shutil.rmtree(a.out)
    try:
        n = write_question(labs[a.lab.zfill(2)], a.out, root, a.image.strip())
    except DescriptionError as e:
        print(f"banklab.release.prairielearn: {e}", file=sys.stderr)
        return 1
    print(f"PrairieLearn question of lab {a.lab.zfill(2)} in {a.out}: {n} variant(s), kernel_v0.cu ... "
          f"kernel_v{n - 1}.cu, graded by {a.image.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
