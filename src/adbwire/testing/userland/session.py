"""Running one command line, or an interactive shell reading commands from stdin.

Each session is a shell process in the device's process table (parent: adbd) for as long
as it runs. When the stream closes under it, the shell gets SIGHUP: its foreground command
is cut short, its HUP trap (if any) runs, then its EXIT trap; output has nowhere to go then.
"""

from __future__ import annotations

from collections.abc import Callable

from adbwire.shell_syntax.lexer import ShellSyntaxError
from adbwire.shell_syntax.parser import parse
from adbwire.testing.userland.device import Device
from adbwire.testing.userland.process import BytesReader, NullWriter, ProcessIO, Streams
from adbwire.testing.userland.proctable import SIGNALS
from adbwire.testing.userland.shell.builtins import SHELL_PATH
from adbwire.testing.userland.shell.interp import ExitShell, Shell
from adbwire.testing.userland.terminal_input import TerminalInput

_HANGUP = SIGNALS["HUP"]
_INTERRUPT = SIGNALS["INT"]


def _interrupt(shell: Shell) -> None:
    """^C on the terminal: SIGINT to the foreground commands (every stage of a pipeline: the
    shell's children; a background job's commands are its subshell's) and, unless the shell
    is interactive (it ignores SIGINT then), to the shell too."""
    child = shell.child
    if child is not None:
        child.pending_signal = _INTERRUPT
    for process in shell.host.processes.snapshot():
        if process.ppid == shell.pid and process is not shell.process:
            process.pending_signal = _INTERRUPT
    if not shell.interactive and shell.process is not None:
        shell.process.pending_signal = _INTERRUPT


def new_shell(
    device: Device, cancelled: Callable[[], bool], *, pty: bool = False, argv: list[str]
) -> Shell:
    process = device.processes.spawn(argv, ppid=device.adbd_pid(), uid=device.user_id())
    shell = Shell(device, device.environment(), cwd="/", process=process, cancelled=cancelled)
    shell.pty = pty
    shell.export_environment()
    return shell


def _end_session(shell: Shell, device: Device, status: int, streams: Streams) -> int:
    """Background jobs finish, SIGHUP if the stream closed, the EXIT trap; the shell leaves
    the process table."""
    try:
        shell.wait_jobs()
        if shell.outer_cancelled():
            silent = Streams(BytesReader(b""), NullWriter(), NullWriter())
            shell.run_trap(_HANGUP, silent)
            shell.run_trap(0, silent)
        else:
            shell.run_trap(0, streams)
        return status  # after a hang-up no one is left to receive it
    finally:
        shell.close_files()  # what `exec >FILE` opened in an interactive session
        if shell.process is not None:
            device.processes.reap(shell.process)


def run_command_line(
    device: Device,
    command_line: str,
    streams: Streams,
    cancelled: Callable[[], bool],
    *,
    pty: bool = False,
    terminal: TerminalInput | None = None,
) -> int:
    shell = new_shell(device, cancelled, pty=pty, argv=[SHELL_PATH, "-c", command_line])
    if terminal is not None:
        terminal.on_interrupt = lambda: _interrupt(shell)
    try:
        status = shell.run_source(command_line, streams)
    except ExitShell as exc:
        status = exc.code
    except BaseException:
        if shell.process is not None:
            device.processes.reap(shell.process)
        raise
    return _end_session(shell, device, status, streams) & 0xFF


def interactive(
    device: Device,
    io: ProcessIO,
    streams: Streams,
    *,
    pty: bool,
    terminal: TerminalInput | None = None,
) -> int:
    """`adb shell` with no command: read lines, run each complete command, until EOF/exit."""
    shell = new_shell(device, lambda: io.cancelled, pty=pty, argv=["-/system/bin/sh"])
    shell.interactive = True
    if terminal is not None:
        terminal.on_interrupt = lambda: _interrupt(shell)
    try:
        status = _read_eval_loop(shell, device, io, streams, pty=pty)
    except BaseException:
        if shell.process is not None:
            device.processes.reap(shell.process)
        raise
    return _end_session(shell, device, status, streams) & 0xFF


def _read_eval_loop(
    shell: Shell, device: Device, io: ProcessIO, streams: Streams, *, pty: bool
) -> int:
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
                script = parse(pending, shell.aliases)
            except ShellSyntaxError as exc:
                if exc.incomplete:
                    continue
                streams.stderr.write(f"{SHELL_PATH}: syntax error: {exc}\n".encode())
                pending = ""
                prompt()
                continue
            pending = ""
            try:
                shell.run_script(script, streams)
            except ExitShell as exc:
                return exc.code
            prompt()
    return shell.last_status
