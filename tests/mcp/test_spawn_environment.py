"""The `adbwire serve` processes that tests start run the code under test, not another copy
of adbwire: scripts/mutate.py relies on it to mutate a private copy of src/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import adbwire
from tests.mcp.spawn import environment


def test_a_spawned_server_imports_the_adbwire_this_test_runs(tmp_path: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", "import adbwire, sys; sys.stdout.write(adbwire.__file__)"],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert Path(probe.stdout).resolve() == Path(adbwire.__file__).resolve()
