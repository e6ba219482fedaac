"""The simulated device's Android userland: a POSIX shell and the commands tools use.

`Userland.run()` is what adbd's shell and exec services call for every stream: it parses the
command line as /system/bin/sh (mksh) would, runs it against the scenario-driven Android
state and the device's files, and returns the exit status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import BinaryIO

from adbwire.testing.device_files import DeviceFiles
from adbwire.testing.scenario import Scenario
from adbwire.testing.userland.android.install import install_apk_bytes
from adbwire.testing.userland.device import Device
from adbwire.testing.userland.process import (
    BufferIO,
    OutputWriter,
    ProcessIO,
    StdinReader,
    Streams,
)
from adbwire.testing.userland.session import interactive, run_command_line
from adbwire.testing.userland.terminal_input import TerminalInput

__all__ = ["BufferIO", "Device", "ProcessIO", "Userland"]

MAX_APK_BYTES = 512 * 1024 * 1024


class Userland:
    """One device's userland. Thread-safe: `run` is called from one thread per stream."""

    def __init__(
        self, scenario: Scenario, files: DeviceFiles, *, screencap_encode_ms: float = 0.0
    ) -> None:
        self.device = Device(scenario, files)
        self.device.screencap_encode_ms = screencap_encode_ms

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        """Run a command line (empty: an interactive shell on stdin) and return its status.

        With `pty=True` input CR becomes LF (the tty's ICRNL), ^C interrupts the foreground
        (ISIG) and an interactive shell echoes what it reads and prints a prompt; turning
        output LF into CRLF (ONLCR) is left to the ProcessIO, which the protocol side gives
        that behaviour for pty streams.
        """
        terminal = TerminalInput(io) if pty else None
        streams = Streams(
            terminal or StdinReader(io),
            OutputWriter(io.write_stdout),
            OutputWriter(io.write_stderr),
        )
        if not command_line.strip():
            return interactive(self.device, io, streams, pty=pty, terminal=terminal)
        return run_command_line(
            self.device, command_line, streams, lambda: io.cancelled, pty=pty, terminal=terminal
        )

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]:
        """Streaming install: (ok, "Success" or "Failure [INSTALL_FAILED_…: message]")."""
        if size > MAX_APK_BYTES:
            return False, "Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE: APK too large]"
        data = apk if isinstance(apk, bytes) else _read_exactly(apk, size)
        if len(data) != size:
            return False, (
                "Failure [INSTALL_FAILED_INTERNAL_ERROR: "
                f"Expected {size} bytes but received {len(data)}]"
            )
        with self.device.state.lock:
            result = install_apk_bytes(self.device.state, data, options)
        return result == "Success", result

    @property
    def properties(self) -> Mapping[str, str]:
        return self.device.state.properties

    def on_reboot(self, mode: str) -> None:
        """`reboot:<mode>`: apps stop, the screen goes home, logs are cleared; data stays."""
        state = self.device.state
        with state.lock:
            for package in list(state.packages):
                state.force_stop(package)
            state.nav.home()
            state.power.awake = True
            state.logs.clear(("main", "system", "crash", "events", "radio", "kernel"))
            state.properties["sys.boot.reason"] = f"reboot,{mode}" if mode else "reboot"
            state.root = False

    def on_root_changed(self, root: bool) -> None:
        """`root:` / `unroot:` restarted adbd: later shells run as uid 0 (root) or 2000."""
        self.device.state.root = root


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(min(remaining, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
