"""A terminal session on a device pty (`adbwire shell` on a terminal, or `-t COMMAND`).

The local terminal goes into raw mode; keystrokes go to the device's pty as they are typed,
its output comes back as it arrives. With shell_v2 window-size changes follow the local
terminal and the command's exit status comes back; over the legacy `shell:` service (older
devices, or -x) the device's pty keeps its default size and the session exits 0.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from adbwire.cli.legacy_shell import RawShell, start_key_pump
from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import Channel, ShellProcess


def run_interactive(client: AdbClient, command: str = "", *, shell_protocol: bool = True) -> int:
    """Relay the local terminal to a device pty until the command exits; returns its status."""
    if os.name != "posix":
        raise UsageError("interactive shells are only supported on POSIX terminals for now")
    if shell_protocol and "shell_v2" in client.features:
        return _run_v2(client, command)
    with RawShell(client, f"shell:{command}", None) as shell, _raw_terminal() as stdin_fd:
        start_key_pump(shell, stdin_fd)
        out = sys.stdout.buffer
        for data in shell.output(None):
            out.write(data)
            out.flush()
    return 0


@contextmanager
def _raw_terminal() -> Iterator[int]:
    import termios  # noqa: PLC0415 - POSIX-only modules
    import tty  # noqa: PLC0415

    stdin_fd = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin_fd)
    tty.setraw(stdin_fd)
    try:
        yield stdin_fd
    finally:
        termios.tcsetattr(stdin_fd, termios.TCSADRAIN, saved)


def _run_v2(client: AdbClient, command: str) -> int:
    resized = threading.Event()
    with client.start_shell(command, pty=True, timeout=None) as process:
        _send_window_size(process)
        # The signal handler only sets an event: sending from inside it could re-enter
        # the connection's locks in the middle of another send.
        previous_handler = signal.signal(signal.SIGWINCH, lambda *_: resized.set())
        try:
            with _raw_terminal() as stdin_fd:
                threading.Thread(target=_pump_keys, args=(process, stdin_fd), daemon=True).start()
                threading.Thread(
                    target=_follow_window_size, args=(process, resized), daemon=True
                ).start()
                out = sys.stdout.buffer
                for channel, data in process.output(None):
                    target = out if channel is Channel.STDOUT else sys.stderr.buffer
                    target.write(data)
                    target.flush()
        finally:
            signal.signal(signal.SIGWINCH, previous_handler)
            process.close()
            resized.set()
    return process.exit_code or 0


def _pump_keys(process: ShellProcess, stdin_fd: int) -> None:
    try:
        while chunk := os.read(stdin_fd, 4096):
            process.write_stdin(chunk)
        process.close_stdin()
    except (AdbwireError, OSError):
        pass  # the session ended; the output loop reports why


def _send_window_size(process: ShellProcess) -> None:
    import shutil  # noqa: PLC0415 - only an interactive session needs it (#20)

    size = shutil.get_terminal_size()
    process.resize(size.lines, size.columns)


def _follow_window_size(process: ShellProcess, resized: threading.Event) -> None:
    while True:
        resized.wait()
        resized.clear()
        if process.closed:
            return
        try:
            _send_window_size(process)
        except AdbwireError:
            return
