"""The suite-wide guard in conftest.py really stops a test that would run adb."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.conftest import AdbSpawnedError


@pytest.mark.parametrize(
    "argv", [["adb", "devices"], ["/usr/bin/adb", "shell", "echo"], "adb kill-server"]
)
def test_spawning_adb_fails_the_test(argv: list[str] | str) -> None:
    with pytest.raises(AdbSpawnedError):
        subprocess.run(argv, shell=isinstance(argv, str), check=False)


def test_exec_and_spawn_of_adb_fail_the_test() -> None:
    with pytest.raises(AdbSpawnedError):
        os.posix_spawn("/usr/bin/adb", ["adb", "devices"], dict(os.environ))
    with pytest.raises(AdbSpawnedError):
        os.execv("/usr/bin/adb", ["adb"])


def test_other_programs_still_run() -> None:
    assert subprocess.run(["true"], check=False).returncode == 0
