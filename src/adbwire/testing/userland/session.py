"""Running one command line, or an interactive shell reading commands from stdin."""

from __future__ import annotations

from collections.abc import Callable

from adbwire.shell_syntax.lexer import ShellSyntaxError
from adbwire.shell_syntax.parser import parse
from adbwire.testing.userland.device import Device
from adbwire.testing.userland.process import ProcessIO, Streams
from adbwire.testing.userland.shell.interp import ExitShell, Shell


def new_shell(device: Device, cancelled: Callable[[], bool], *, pty: bool = False) -> Shell:
    shell = Shell(device, device.environment(), cwd="/", pid=device.next_pid(), cancelled=cancelled)
    shell.pty = pty
    return shell


def run_command_line(
    device: Device,
    command_line: str,
    streams: Streams,
    cancelled: Callable[[], bool],
    *,
    pty: bool = False,
) -> int:
    shell = new_shell(device, cancelled, pty=pty)
    try:
        return shell.run_source(command_line, streams) & 0xFF
    except ExitShell as exc:
        return exc.code & 0xFF


def interactive(device: Device, io: ProcessIO, streams: Streams, *, pty: bool) -> int:
    """`adb shell` with no command: read lines, run each complete command, until EOF/exit."""
    shell = new_shell(device, lambda: io.cancelled, pty=pty)
    shell.interactive = True
    pending = ""
    buffered = b""

    def prompt() -> None:
        if pty:
            sign = "#" if device.state.root else "$"
            streams.stdout.write(f"{device.hostname}:{shell.cwd} {sign} ".encode())

    prompt()
    while not io.cancelled:
        chunk = streams.stdin.read(4096)
        if not chunk:
            break
        if pty:
            streams.stdout.write(chunk)  # the terminal echoes what is typed
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            pending += line.decode("utf-8", "replace") + "\n"
            try:
                script = parse(pending)
            except ShellSyntaxError as exc:
                if exc.incomplete:
                    continue
                streams.stderr.write(f"/system/bin/sh: syntax error: {exc}\n".encode())
                pending = ""
                prompt()
                continue
            pending = ""
            try:
                shell.run_script(script, streams)
            except ExitShell as exc:
                return exc.code & 0xFF
            prompt()
    return shell.last_status & 0xFF
