"""Running one Android command with quoted arguments and reading its text back.

Every device operation goes through here, so no caller-supplied string is ever pasted into a
command line unquoted, and every read of command output has a byte cap (`output_cap`):
past it the command is stopped and OutputTooLargeError raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from adbwire.device import output_cap
from adbwire.errors import CommandFailedError, OutputTooLargeError
from adbwire.wire.client import AdbClient
from adbwire.wire.services.shell import Channel, ShellResult
from adbwire.wire.timeouts import Deadline


def run(client: AdbClient, argv: Sequence[str], *, timeout: float | None = None) -> ShellResult:
    """Run `argv` (each word quoted) and return the result whatever the exit status."""
    return client.shell_argv(argv, timeout=timeout, max_output=output_cap.current())


def run_line(client: AdbClient, command_line: str, *, timeout: float | None = None) -> ShellResult:
    """Run a command line built by adbwire itself (pipes, `;`, redirections), with each
    caller-supplied word already quoted; output capped as in `run`."""
    return client.shell(command_line, timeout=timeout, max_output=output_cap.current())


def text(client: AdbClient, argv: Sequence[str], *, timeout: float | None = None) -> str:
    """Stdout of `argv` as text; raises CommandFailedError on a non-zero exit status."""
    result = run(client, argv, timeout=timeout)
    if result.exit_code != 0:
        detail = decode(result.stderr) or decode(result.stdout)
        raise CommandFailedError(" ".join(argv), result.exit_code, detail[-500:])
    return decode(result.stdout)


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class CappedResult:
    stdout: bytes
    stderr: bytes
    exit_code: int | None
    """None when the output hit the cap and the command was stopped."""
    cut_off: bool


def run_capped(
    client: AdbClient, command_line: str, *, timeout: float, max_bytes: int
) -> CappedResult:
    """Run a raw command line, keeping the first `max_bytes` of output; past that the stream
    is closed (which ends the command), nothing more is read, and the result says so."""
    out: list[bytes] = []
    err: list[bytes] = []
    deadline = Deadline(timeout, f"shell {command_line[:60]!r}")
    with client.start_shell(command_line, timeout=timeout, max_output=max_bytes) as process:
        process.close_stdin(deadline)
        try:
            for channel, data in process.output(deadline):
                (out if channel is Channel.STDOUT else err).append(data)
        except OutputTooLargeError:
            return CappedResult(b"".join(out), b"".join(err), None, True)
        if not process.v2:
            out.append(process.leftover_v1)
    return CappedResult(b"".join(out), b"".join(err), process.exit_code, False)
