"""Google's adb (Debian's /usr/bin/adb) as a test oracle, fenced in.

Each `AdbOracle` has its own server port (ANDROID_ADB_SERVER_PORT), HOME (so its
~/.android/adbkey is a fresh one, never the user's) and TMPDIR (its log), and `kill-server`
is always run at the end.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

ADB = Path("/usr/bin/adb")
TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class AdbOracle:
    def __init__(self, root: Path) -> None:
        home = root / "home"
        tmp = root / "tmp"
        home.mkdir()
        tmp.mkdir()
        self.home = home
        self.port = free_port()
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "ANDROID_ADB_SERVER_PORT": str(self.port),
        }

    def run(
        self, *args: str, input: bytes | None = None, timeout: float = TIMEOUT
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(ADB), *args],
            env=self.env,
            input=input,
            capture_output=True,
            timeout=timeout,
            check=False,
        )

    def ok(self, *args: str, input: bytes | None = None, timeout: float = TIMEOUT) -> bytes:
        """Run adb and insist on exit status 0; returns stdout."""
        done = self.run(*args, input=input, timeout=timeout)
        assert done.returncode == 0, (
            f"adb {' '.join(args)} exited {done.returncode}: {done.stdout!r} {done.stderr!r}"
        )
        return done.stdout

    def start(self) -> None:
        self.ok("start-server")

    def kill(self) -> None:
        self.run("kill-server", timeout=30)

    @property
    def public_key(self) -> str:
        """The Android-format public key adb made for itself (created by start-server)."""
        return (self.home / ".android" / "adbkey.pub").read_text().strip()

    def state_of(self, serial: str) -> str | None:
        for line in self.ok("devices").decode().splitlines()[1:]:
            fields = line.split()
            if fields and fields[0] == serial:
                return fields[1]
        return None

    def wait_for_state(self, serial: str, state: str, timeout: float = 20.0) -> bool:
        """Poll `adb devices` (adb has no event to await for states other than "device")."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.state_of(serial) == state:
                return True
            time.sleep(0.1)
        return False

    def connect(self, serial: str) -> str:
        return self.ok("connect", serial).decode().strip()

    def attach(self, serial: str) -> None:
        """`adb connect SERIAL`, then wait until adb sees it online."""
        self.connect(serial)
        self.ok("-s", serial, "wait-for-device", timeout=20)
