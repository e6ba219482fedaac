"""The two clients beside each other for the CLI parity tests: `adb -s SERIAL ...` and
`adbwire -s SERIAL ...` on one simulated device that trusts both keys."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from adbwire.testing import DeviceOptions, SimulatedDevice, running_device
from adbwire.wire.keys import AdbKey, default_key_path
from tests.interop.adb_oracle import AdbOracle

Outcome = tuple[int, bytes, bytes]


class Both:
    """One device, two clients: `adb -s SERIAL ...` and `adbwire -s SERIAL ...`."""

    def __init__(self, adb: AdbOracle, device: SimulatedDevice, state_dir: Path) -> None:
        self.adb = adb
        self.device = device
        self.env = {**os.environ, "ADBWIRE_STATE_DIR": str(state_dir)}

    def adb_run(self, *args: str, stdin: bytes = b"", serial: bool = True) -> Outcome:
        prefix = ("-s", self.device.serial) if serial else ()
        done = self.adb.run(*prefix, *args, input=stdin)
        return done.returncode, done.stdout, done.stderr

    def adbwire_run(self, *args: str, stdin: bytes = b"", serial: bool = True) -> Outcome:
        prefix = ("-s", self.device.serial) if serial else ()
        done = subprocess.run(
            [sys.executable, "-m", "adbwire", *prefix, *args],
            input=stdin,
            capture_output=True,
            timeout=60,
            env=self.env,
            check=False,
        )
        return done.returncode, done.stdout, done.stderr

    def both(self, *args: str, stdin: bytes = b"") -> tuple[Outcome, Outcome]:
        return self.adb_run(*args, stdin=stdin), self.adbwire_run(*args, stdin=stdin)


def paired(adb: AdbOracle, adb_key: AdbKey, tmp_path: Path, **options: object) -> Iterator[Both]:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())
    ours = Path(f"{adb_key.path}.pub").read_text().strip()
    trusted = DeviceOptions(authorized_keys=(adb.public_key, ours), **options)  # type: ignore[arg-type]
    with running_device(trusted) as device:
        adb.attach(device.serial)
        yield Both(adb, device, tmp_path / "adbwire-state")
