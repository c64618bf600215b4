#!/usr/bin/env python3
"""The one place that puts the banklab package (python/banklab/) on Python's path.

  python3 python/banklab_run.py -m banklab.lab.labs list         # a module of the package
  python3 python/banklab_run.py docs/scripts/prepare_pages.py ...  # a script that imports banklab

CMake runs every Python program of the course this way (BANKLAB_PYTHON, cmake/BanklabPython.cmake).
A command a person types (the instructor's grade-class and labs-check, bench/*.py, ...) runs this
file first, in one line: runpy.run_path(<this file>), which only sets the path. The path is also
put in PYTHONPATH, so that the Python programs those start (the tests' subprocesses) find it.
docs/dev/CONVENTIONS.md ("Python: one package") says why it is one file.
"""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
_pp = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
if HERE not in _pp:
    os.environ["PYTHONPATH"] = os.pathsep.join([HERE, *_pp])

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "-m":      # as `python3 -m MODULE ARGS`: the current folder first on the path
        sys.path[0] = os.getcwd()
        sys.argv = ["python3 -m " + args[1], *args[2:]]
        sys.path.insert(1, HERE)
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:                    # as `python3 SCRIPT ARGS`: the script's folder first on the path
        sys.path[0] = os.path.dirname(os.path.realpath(args[0]))
        sys.path.insert(1, HERE)
        sys.argv = args
        runpy.run_path(args[0], run_name="__main__")
