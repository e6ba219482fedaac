"""An interactive terminal session (`adbwire shell` with no command on a terminal).

The local terminal goes into raw mode; keystrokes go to the device's pty as shell v2 stdin,
its output comes back as it arrives, and window-size changes follow the local terminal.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading

from adbwire.errors import AdbwireError, UsageError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import Channel, ShellProcess


def run_interactive(client: AdbClient) -> int:
    """Relay the local terminal to a device shell until it exits; returns its exit status."""
    if os.name != "posix":
        raise UsageError("interactive shells are only supported on POSIX terminals for now")
    if "shell_v2" not in client.features:
        raise UsageError("interactive shells need a device with the shell_v2 feature (Android 7+)")
    import termios  # noqa: PLC0415 - POSIX-only modules
    import tty  # noqa: PLC0415

    stdin_fd = sys.stdin.fileno()
    saved = termios.tcgetattr(stdin_fd)
    resized = threading.Event()
    with client.start_shell("", pty=True, timeout=None) as process:
        _send_window_size(process)
        # The signal handler only sets an event: sending from inside it could re-enter
        # the connection's locks in the middle of another send.
        previous_handler = signal.signal(signal.SIGWINCH, lambda *_: resized.set())
        tty.setraw(stdin_fd)
        try:
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
            termios.tcsetattr(stdin_fd, termios.TCSADRAIN, saved)
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
