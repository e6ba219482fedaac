"""Google's adb (Debian's /usr/bin/adb) as the baseline, fenced in.

Its own server port (ANDROID_ADB_SERVER_PORT), its own HOME holding the benchmark's key (the
one the simulated device trusts), its own TMPDIR for the server log, and `kill-server` on
that port when done. Only this benchmark package runs it; the product never does.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path
from types import TracebackType

ADB = Path("/usr/bin/adb")
TIMEOUT = 600.0


def adb_available() -> bool:
    return ADB.is_file() and os.access(ADB, os.X_OK)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class GoogleAdb:
    """One fenced adb server; `run` calls the adb client against it."""

    def __init__(self, root: Path, private_key: Path) -> None:
        home = root / "adb-home"
        (home / ".android").mkdir(parents=True)
        (root / "adb-tmp").mkdir()
        shutil.copyfile(private_key, home / ".android" / "adbkey")
        shutil.copyfile(f"{private_key}.pub", home / ".android" / "adbkey.pub")
        (home / ".android" / "adbkey").chmod(0o600)
        self.port = free_port()
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": str(root / "adb-tmp"),
            "ANDROID_ADB_SERVER_PORT": str(self.port),
        }
        self._started = False
        self._server_pid: int | None = None

    def server_pid(self) -> int | None:
        """The pid of this fenced adb server (its environment names our server port)."""
        if self._server_pid is not None or not self._started:
            return self._server_pid
        wanted = f"ANDROID_ADB_SERVER_PORT={self.port}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if Path(os.readlink(entry / "exe")).name != "adb":
                    continue
                if wanted in (entry / "environ").read_bytes().split(b"\0"):
                    self._server_pid = int(entry.name)
                    break
            except OSError:
                continue
        return self._server_pid

    def run(self, *args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(ADB), *args], env=self.env, capture_output=True, timeout=timeout, check=False
        )

    def ok(self, *args: str, timeout: float = TIMEOUT) -> bytes:
        done = self.run(*args, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(
                f"adb {' '.join(args)} exited {done.returncode}: {done.stderr.decode()!r}"
            )
        return done.stdout

    def version(self) -> str:
        return self.ok("version").decode().splitlines()[0:2][-1].strip()

    def start(self, serial: str) -> GoogleAdb:
        self._started = True
        self.ok("start-server")
        answer = self.ok("connect", serial).decode()
        if "connected" not in answer:
            raise RuntimeError(f"adb connect {serial}: {answer.strip()}")
        self.ok("-s", serial, "wait-for-device", timeout=30)
        return self

    def stop(self) -> None:
        if self._started:
            self.run("kill-server", timeout=30)
            self._started = False

    def __enter__(self) -> GoogleAdb:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
