"""What a device command gets: `Invocation` (its argv, streams and the shell running it)
and `ShellHost` (what the interpreter needs from the device)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

from adbwire.testing.userland.process import Streams

if TYPE_CHECKING:
    from adbwire.testing.device_files import DeviceFiles
    from adbwire.testing.userland.device import Device
    from adbwire.testing.userland.proctable import ProcessTable
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["CommandFn", "Invocation", "ShellHost"]

CommandFn = Callable[["Invocation"], int]


class ShellHost(Protocol):
    """What the interpreter needs from the device it runs on."""

    @property
    def files(self) -> DeviceFiles: ...

    @property
    def processes(self) -> ProcessTable: ...

    def lookup(self, name: str) -> CommandFn | None: ...

    def user_id(self) -> int: ...


@dataclass
class Invocation:
    """One command being run: its argv, its streams and the shell that runs it."""

    argv: list[str]
    streams: Streams
    shell: Shell

    @property
    def name(self) -> str:
        return posixpath.basename(self.argv[0])

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def device(self) -> Device:
        return cast("Device", self.shell.host)

    @property
    def cancelled(self) -> bool:
        return self.shell.cancelled()

    def out(self, data: str | bytes) -> None:
        self.streams.stdout.write(data.encode() if isinstance(data, str) else data)

    def err(self, data: str | bytes) -> None:
        self.streams.stderr.write(data.encode() if isinstance(data, str) else data)

    def fail(self, message: str, status: int = 1) -> int:
        """Print `name: message` on stderr, toybox style, and return `status`."""
        self.err(f"{self.name}: {message}\n")
        return status

    def path(self, path: str) -> str:
        return self.shell.file_path(path)

    def read_stdin(self) -> bytes:
        chunks: list[bytes] = []
        while not self.cancelled:
            chunk = self.streams.stdin.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
