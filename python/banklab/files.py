"""A Python file of the course that is a script, not a module of this package (for example
grader/selftest/materialize.py), loaded by its path: no folder is added to Python's path."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def load_file(path: str | Path, name: str | None = None):
    """The module in `path` (loaded once; later calls return the same module)."""
    path = Path(path)
    name = name or path.stem
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
