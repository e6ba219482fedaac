"""Loading libusb, and the one libusb context a process shares.

`pip install adbwire` must be the whole set-up, so a host without a system libusb still
works: usb1's own loader only searches the system (and its own wheel), so when that fails
we load the copy that the `libusb-package` wheel ships and hand it to `usb1.loadLibrary`.

`$ADBWIRE_LIBUSB` overrides the choice: `system` (never fall back), `bundled` (always use
libusb-package's copy) or the path of a libusb-1.0 shared library.

usb1 loads one library per process, the first time anything asks; `load_libusb()` must
therefore run before any other code touches usb1 (adb_shell's USB module opens a context
when it is imported, which is one reason adbwire does not import it).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import usb1

from adbwire.errors import UsbUnavailableError
from adbwire.wire.usb.api import Usb1Context

log = logging.getLogger(__name__)

LIBRARY_VARIABLE = "ADBWIRE_LIBUSB"

SOURCE_SYSTEM = "system"
SOURCE_BUNDLED = "libusb-package"
SOURCE_PATH = LIBRARY_VARIABLE


@dataclass(frozen=True)
class LibusbInfo:
    """Which libusb this process uses: `source` is 'system', 'libusb-package' or
    'ADBWIRE_LIBUSB'; `path` is what was loaded (a file, or a name the loader resolved)."""

    source: str
    path: str | None
    version: str


class _ProcessState:
    """What this module keeps per process, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.info: LibusbInfo | None = None
        self.context: Usb1Context | None = None
        self.override: Usb1Context | None = None
        self.before_exit: list[Callable[[], None]] = []


_state = _ProcessState()


def _dll_loader() -> Callable[..., Any]:
    return cast(Callable[..., Any], getattr(ctypes, "WinDLL", ctypes.CDLL))


def _open_library(path: str) -> Any:
    return _dll_loader()(path, use_errno=True, use_last_error=True)


def _bundled_path() -> str | None:
    try:
        import libusb_package  # noqa: PLC0415 (optional at run time; imported when needed)
    except ImportError:
        return None
    path = libusb_package.get_library_path()
    return None if path is None else str(path)


def _loaded_name() -> str | None:
    library = getattr(usb1.libusb1, "libusb", None)
    name = getattr(library, "_name", None)
    return name if isinstance(name, str) else None


def _version() -> str:
    version = usb1.getVersion()
    return f"{version.major}.{version.minor}.{version.micro}"


def _load_bundled(reason: str) -> LibusbInfo:
    path = _bundled_path()
    if path is None:
        raise UsbUnavailableError(
            f"USB is unavailable: {reason}, and the libusb-package wheel has no library for "
            f"this platform ({sys.platform}). Install libusb (Debian/Ubuntu: `sudo apt install "
            "libusb-1.0-0`, macOS: `brew install libusb`) or point $ADBWIRE_LIBUSB at a "
            "libusb-1.0 shared library."
        )
    try:
        usb1.loadLibrary(_open_library(path))
    except OSError as exc:
        raise UsbUnavailableError(f"USB is unavailable: cannot load {path}: {exc}") from exc
    return LibusbInfo(SOURCE_BUNDLED, path, _version())


def _load() -> LibusbInfo:
    choice = os.environ.get(LIBRARY_VARIABLE, "").strip()
    if choice == "bundled":
        return _load_bundled(f"${LIBRARY_VARIABLE}=bundled")
    if choice and choice != SOURCE_SYSTEM:
        try:
            usb1.loadLibrary(_open_library(choice))
        except OSError as exc:
            raise UsbUnavailableError(
                f"USB is unavailable: ${LIBRARY_VARIABLE}={choice!r} cannot be loaded: {exc}"
            ) from exc
        return LibusbInfo(SOURCE_PATH, choice, _version())
    try:
        usb1.loadLibrary()  # usb1's own search: its wheel, then the system
    except OSError as exc:
        if choice == SOURCE_SYSTEM:
            raise UsbUnavailableError(
                f"USB is unavailable: no system libusb-1.0 (${LIBRARY_VARIABLE}=system): {exc}"
            ) from exc
        log.debug("no system libusb (%s); using libusb-package's copy", exc)
        return _load_bundled("no system libusb-1.0 was found")
    return LibusbInfo(SOURCE_SYSTEM, _loaded_name(), _version())


def load_libusb() -> LibusbInfo:
    """Load libusb once per process (idempotent, thread-safe) and say which one it is."""
    with _state.lock:
        if _state.info is None:
            info = _state.info = _load()
            log.debug("libusb %s from %s (%s)", info.version, info.source, info.path)
        return _state.info


def shared_context() -> Usb1Context:
    """The process-wide opened libusb context (or the one installed by `use_context`)."""
    with _state.lock:
        if _state.override is not None:
            return _state.override
        if _state.context is None:
            load_libusb()
            context = usb1.USBContext()
            try:
                context.open()
            except usb1.USBError as exc:
                raise UsbUnavailableError(
                    f"USB is unavailable: libusb cannot start ({exc})"
                ) from exc
            _state.context = cast(Usb1Context, context)
            atexit.register(_close_at_exit)
        return _state.context


@contextlib.contextmanager
def use_context(context: Usb1Context) -> Iterator[Usb1Context]:
    """Make every USB call in this process use `context` (tests, embedding) until exit."""
    with _state.lock:
        previous, _state.override = _state.override, context
    try:
        yield context
    finally:
        with _state.lock:
            _state.override = previous


def call_before_exit(callback: Callable[[], None]) -> None:
    """Run `callback` before the shared context closes at exit (transports close here)."""
    with _state.lock:
        _state.before_exit.append(callback)


def _close_at_exit() -> None:
    # Open handles must be released before libusb_exit, or a reader thread still inside a
    # transfer could touch freed memory while the interpreter shuts down.
    for callback in list(_state.before_exit):
        with contextlib.suppress(Exception):
            callback()
    with _state.lock:
        context = _state.context
    if context is not None:
        with contextlib.suppress(Exception):
            cast(Any, context).close()
