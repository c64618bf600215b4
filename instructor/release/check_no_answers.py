#!/usr/bin/env python3
"""No answer in what students get: the student release checked against the course's solutions.
The check is banklab.release.answers (python/banklab/release/answers.py: its rules and options);
this is the command:

  instructor/release/check_no_answers.py RELEASE [--course ROOT] [--grade-stubs JUDGE]
"""
import runpy
import sys
from pathlib import Path

runpy.run_path(str(Path(__file__).resolve().parents[2] / "python" / "banklab_run.py"))  # banklab's path, set in one place
from banklab.release import answers as release_answers  # noqa: E402

if __name__ == "__main__":
    sys.exit(release_answers.main())
