"""Redirections: `>`, `>>`, `<`, `2>&1`, `>&2`, to and from device files and /dev/null,
and here-documents (`<<`: the expanded body is the input)."""

from __future__ import annotations

import contextlib
import posixpath
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING

from adbwire.shell_syntax.parser import Redirect
from adbwire.testing.device_files import FsError
from adbwire.testing.userland.process import BytesReader, NullWriter, Reader, Streams, Writer
from adbwire.testing.userland.shell.expand import expand_single

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

NEW_FILE_MODE = 0o100666
_DEV_NULL = "/dev/null"


class RedirectError(Exception):
    """A redirection could not be set up; the message is what mksh prints after `sh: `."""


class FileReader:
    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle

    def read(self, max_bytes: int = 65536) -> bytes:
        return self._handle.read(max_bytes)


class FileWriter:
    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle

    def write(self, data: bytes) -> None:
        try:
            self._handle.write(data)
        except FsError as exc:  # the command reports it as toybox's xwrite does: "x: write: …"
            raise FsError(exc.errno_name, exc.message, "write") from exc


@contextlib.contextmanager
def applied(shell: Shell, redirects: Sequence[Redirect], streams: Streams) -> Iterator[Streams]:
    if not redirects:
        yield streams
        return
    fds: dict[int, Reader | Writer] = {0: streams.stdin, 1: streams.stdout, 2: streams.stderr}
    with contextlib.ExitStack() as stack:
        for redirect in redirects:
            target = expand_single(shell, redirect.target)
            fds[redirect.fd] = _open(shell, redirect, target, fds, stack)
            if redirect.op == "&>":
                fds[2] = fds[redirect.fd]
        yield Streams(_as_reader(fds.get(0)), _as_writer(fds.get(1)), _as_writer(fds.get(2)))


def _as_reader(obj: Reader | Writer | None) -> Reader:
    return obj if obj is not None and hasattr(obj, "read") else BytesReader(b"")  # type: ignore[return-value]


def _as_writer(obj: Reader | Writer | None) -> Writer:
    return obj if obj is not None and hasattr(obj, "write") else NullWriter()  # type: ignore[return-value]


def _open(
    shell: Shell,
    redirect: Redirect,
    target: str,
    fds: dict[int, Reader | Writer],
    stack: contextlib.ExitStack,
) -> Reader | Writer:
    op = redirect.op
    if op == "<<":
        return BytesReader(target.encode())
    if op == "<<<":
        return BytesReader(target.encode() + b"\n")
    if op in (">&", "<&"):
        if target == "-":
            return NullWriter()
        if not target.isdigit() or int(target) not in fds:
            raise RedirectError(f"{target}: bad file descriptor")
        return fds[int(target)]
    if target == _DEV_NULL:
        return BytesReader(b"") if op == "<" else NullWriter()
    path = shell.file_path(target)
    files = shell.host.files
    try:
        if op == "<":
            return FileReader(stack.enter_context(files.open_read(path)))
        parent = files.stat(posixpath.dirname(path.rstrip("/")) or "/")  # mksh makes none
        if parent.mode & 0o170000 != 0o040000:
            raise FsError.of("ENOTDIR", path)
        existing = b""
        if op == ">>":
            with contextlib.suppress(FsError), files.open_read(path) as old:
                existing = old.read()
        mode = _mode_of(shell, path)
        handle = stack.enter_context(files.open_write(path, mode))
        if existing:
            handle.write(existing)
        return FileWriter(handle)
    except FsError as exc:
        verb = "open" if op == "<" else "create"  # ">", ">>", "&>", ">|", "<>"
        raise RedirectError(f"can't {verb} {target}: {exc.message}") from exc


def _mode_of(shell: Shell, path: str) -> int:
    """An existing file keeps its mode; a new one is rw-rw-rw- under the shell's umask."""
    try:
        return shell.host.files.stat(path).mode
    except FsError:
        return NEW_FILE_MODE & ~shell.umask
