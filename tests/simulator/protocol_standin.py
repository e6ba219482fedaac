"""A tiny stand-in for the scripted userland, so protocol tests do not depend on it.

It knows just enough commands to exercise the services: echo (with `>&2` for stderr), true,
false, exit N, cat (stdin or a device file), head -c N (stdin), bytes N (N bytes of a known
pattern on stdout), wait (blocks until the stream is cancelled), and an interactive mode
for an empty command line. Everything else is "inaccessible or not found", exit 127.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Mapping, Sequence
from typing import BinaryIO

from adbwire.testing.device_files import DeviceFiles, FsError
from adbwire.testing.device_state import ProcessIO

PROPERTIES = {
    "ro.product.name": "standin_phone",
    "ro.product.model": "Standin Phone 1",
    "ro.product.device": "standin",
}


def pattern(size: int) -> bytes:
    """Deterministic bytes that differ from position to position."""
    block = bytes(range(251))  # a prime length, so chunk boundaries never line up with it
    return (block * (size // len(block) + 1))[:size]


class StandinUserland:
    def __init__(self, files: DeviceFiles, properties: Mapping[str, str] = PROPERTIES) -> None:
        self.files = files
        self._properties = dict(properties)
        self.commands: list[tuple[str, bool]] = []
        self.installs: list[tuple[bytes, int, list[str]]] = []
        self.reboots: list[str] = []
        self.cancelled_seen = threading.Event()
        self.install_answer = (True, "Success")

    @property
    def properties(self) -> Mapping[str, str]:
        return self._properties

    def on_reboot(self, mode: str) -> None:
        self.reboots.append(mode)

    def install_apk(
        self, apk: bytes | BinaryIO, size: int, options: Sequence[str]
    ) -> tuple[bool, str]:
        data = apk if isinstance(apk, bytes) else apk.read()
        self.installs.append((data, size, list(options)))
        return self.install_answer

    def run(self, command_line: str, io: ProcessIO, *, pty: bool = False) -> int:
        self.commands.append((command_line, pty))
        if not command_line.strip():
            return self._interactive(io)
        return self._run_one(shlex.split(command_line), io)

    def _interactive(self, io: ProcessIO) -> int:
        pending = b""
        status = 0
        while True:
            chunk = io.read_stdin()
            if not chunk:
                return status
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                words = shlex.split(line.decode())
                if words == ["exit"]:
                    return status
                if words:
                    status = self._run_one(words, io)

    def _run_one(self, words: list[str], io: ProcessIO) -> int:
        name, args = words[0], words[1:]
        if name == "echo":
            to_stderr = args[-1:] == [">&2"]
            text = (" ".join(args[:-1] if to_stderr else args) + "\n").encode()
            (io.write_stderr if to_stderr else io.write_stdout)(text)
            return 0
        if name == "true":
            return 0
        if name == "false":
            return 1
        if name == "exit":
            return int(args[0]) if args else 0
        if name == "cat":
            return self._cat(args, io)
        if name == "head" and args[:1] == ["-c"]:
            return self._head(int(args[1]), io)
        if name == "bytes":
            io.write_stdout(pattern(int(args[0])))
            return 0
        if name == "wait":
            while not io.cancelled:
                self.cancelled_seen.wait(0.01)
            self.cancelled_seen.set()
            return 0
        io.write_stderr(f"/system/bin/sh: {name}: inaccessible or not found\n".encode())
        return 127

    def _cat(self, args: list[str], io: ProcessIO) -> int:
        if not args:
            while chunk := io.read_stdin():
                io.write_stdout(chunk)
            return 0
        try:
            io.write_stdout(self.files.read_bytes(args[0]))
        except FsError as error:
            io.write_stderr(f"cat: {args[0]}: {error.message}\n".encode())
            return 1
        return 0

    def _head(self, count: int, io: ProcessIO) -> int:
        while count > 0:
            chunk = io.read_stdin(count)
            if not chunk:
                break
            io.write_stdout(chunk)
            count -= len(chunk)
        return 0
