"""How the benchmark starts its own Python child processes (device, receiver, memory probe)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""Children run here, so `python -m benchmarks.X` finds this package wherever we were started."""


def module_argv(module: str, *arguments: str) -> list[str]:
    return [sys.executable, "-m", module, *arguments]
