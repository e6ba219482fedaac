"""What a shell command run to completion gave back (`AdbClient.shell`).

Its own module so that streaming a command (`adbwire shell`, ShellProcess) does not load
`dataclasses` (issue #20); `adbwire.wire.services.shell` still exports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.errors import CommandFailedError


@dataclass(frozen=True)
class ShellResult:
    command: str
    stdout: bytes
    stderr: bytes
    exit_code: int

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="replace")

    def check(self) -> ShellResult:
        """Raise CommandFailedError unless the command exited 0."""
        if self.exit_code != 0:
            raise CommandFailedError(
                self.command, self.exit_code, self.stderr.decode("utf-8", errors="replace")
            )
        return self
