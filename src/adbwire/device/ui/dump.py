"""Fetching the UI hierarchy with ``uiautomator dump`` so that no answer is ever stale.

Two ways, tried in this order:

- *stream*: ``uiautomator dump /dev/tty`` prints the XML on the command's own output. There is
  no file, so nothing older can be read back. Many devices cannot open ``/dev/tty`` without
  a terminal; the dumper then only logs the error and still prints "dumped to", so a missing
  hierarchy means "not supported here" and the device is remembered as such.
- *file*: one command line removes a fresh, unique path under ``/data/local/tmp``, dumps to
  it, prints it and removes it again. If the dump fails, the file does not exist and ``cat``
  says so: a failed dump can never be answered by an earlier one.

A screen that never idles ("could not get idle state") is retried once with
``--compressed``; if that fails too, :class:`UiNotIdleError` says what to do.
"""

from __future__ import annotations

import secrets
import threading
import weakref
from dataclasses import dataclass
from typing import Literal

from adbwire.device import commands
from adbwire.device.ui.errors import UiDumpError, UiNotIdleError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient

DUMP_DIR = "/data/local/tmp"
DEFAULT_TIMEOUT = 30.0
STREAM_PATH = "/dev/tty"
_IDLE_ERROR = "could not get idle state"
_NOT_IDLE_ADVICE = (
    "the screen never became idle (an animation keeps running), even with --compressed; "
    "turn the animation scales off (developer options, or ui_tree with "
    "disable_animations=true) or wait for the animation to end"
)

Method = Literal["stream", "file"]


@dataclass(frozen=True)
class UiDump:
    """The XML of one fresh dump, how it was fetched, and whether ``--compressed`` was used."""

    xml: str
    method: Method
    compressed: bool


class _StreamSupport:
    """Which connected clients can stream the dump (one probe per client)."""

    def __init__(self) -> None:
        self._known: weakref.WeakKeyDictionary[AdbClient, bool] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, client: AdbClient) -> bool | None:
        with self._lock:
            return self._known.get(client)

    def set(self, client: AdbClient, value: bool) -> None:
        with self._lock:
            self._known[client] = value


STREAMING = _StreamSupport()


def dump_ui(
    client: AdbClient,
    *,
    compressed: bool = False,
    method: Method | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> UiDump:
    """A fresh dump of what is on screen; retries with ``--compressed`` on an idle timeout.

    ``method`` forces one way; by default streaming is tried first on each client and the
    file way is used where streaming does not work.
    """
    try:
        return _dump_once(client, compressed=compressed, method=method, timeout=timeout)
    except UiNotIdleError:
        if compressed:
            raise
    try:
        return _dump_once(client, compressed=True, method=method, timeout=timeout)
    except UiNotIdleError as exc:
        raise UiNotIdleError(f"uiautomator dump: {_NOT_IDLE_ADVICE} ({exc})") from None


def _dump_once(
    client: AdbClient, *, compressed: bool, method: Method | None, timeout: float
) -> UiDump:
    streaming = STREAMING.get(client) if method is None else method == "stream"
    if streaming is not False:
        xml, _ = _run(client, _stream_command(compressed), timeout)
        if xml is not None:
            if method is None:
                STREAMING.set(client, True)
            return UiDump(xml, "stream", compressed)
        if method == "stream":
            raise UiDumpError("uiautomator dump: this device cannot stream the dump to /dev/tty")
        STREAMING.set(client, False)
    path = f"{DUMP_DIR}/adbwire-ui-{secrets.token_hex(8)}.xml"
    xml, said = _run(client, _file_command(path, compressed), timeout)
    if xml is None:
        raise UiDumpError(f"uiautomator dump: no dump was written (device said: {said[:200]})")
    return UiDump(xml, "file", compressed)


def _stream_command(compressed: bool) -> str:
    return shell_quote.join(["uiautomator", "dump", *_flags(compressed), STREAM_PATH])


def _file_command(path: str, compressed: bool) -> str:
    remove = shell_quote.join(["rm", "-f", path])
    dump = shell_quote.join(["uiautomator", "dump", *_flags(compressed), path]) + " >&2"
    return " ; ".join([remove, dump, shell_quote.join(["cat", path]), remove])


def _flags(compressed: bool) -> list[str]:
    return ["--compressed"] if compressed else []


def _run(client: AdbClient, command_line: str, timeout: float) -> tuple[str | None, str]:
    """The XML the command printed (None when none and no known error), and its other words."""
    result = commands.run_line(client, command_line, timeout=timeout)
    out, err = commands.decode(result.stdout), commands.decode(result.stderr)
    if "</hierarchy>" in out:
        return out, ""
    said = " | ".join(line.strip() for line in (err + "\n" + out).splitlines() if line.strip())
    if _IDLE_ERROR in said:
        raise UiNotIdleError(f"uiautomator dump: {said[:300]}")
    if "null root node" in said:
        raise UiDumpError(
            "uiautomator dump: no window to dump (the screen is off, locked, or changing); "
            f"device said: {said[:200]}"
        )
    if "<hierarchy" in out:
        raise UiDumpError("uiautomator dump: the hierarchy XML was cut short")
    return None, said or "nothing"
