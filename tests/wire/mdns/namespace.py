"""Run a test body where multicast works: a private network namespace whose loopback
interface has MULTICAST on, so zeroconf's traffic stays inside it.

The machine's own `lo` usually lacks MULTICAST and its other interfaces lead to real networks;
neither is touched. `unshare(CLONE_NEWNET)` moves only the calling thread, so the body runs in
a thread of its own; the threads it starts (the simulated device, zeroconf's loop) and the
processes it spawns inherit the namespace. Needs Linux and CAP_SYS_ADMIN (root, as in CI);
elsewhere the tests skip and say why.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import sys
import threading
from collections.abc import Callable
from typing import Final, TypeVar

import pytest

T = TypeVar("T")

_CLONE_NEWNET: Final = 0x40000000
_SIOCGIFFLAGS: Final = 0x8913
_SIOCSIFFLAGS: Final = 0x8914
_IFF_UP: Final = 0x1
_IFF_MULTICAST: Final = 0x1000
BODY_TIMEOUT: Final = 120.0


def _enter_private_namespace() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"unshare(CLONE_NEWNET): {os.strerror(errno)}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(
            sock, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP | _IFF_MULTICAST)
        )


def unavailable_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return "multicast tests need Linux network namespaces"
    outcome: list[str | None] = []

    def probe() -> None:
        try:
            _enter_private_namespace()
        except OSError as error:
            outcome.append(f"cannot make a private network namespace with multicast: {error}")
        else:
            outcome.append(None)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join(10)
    return outcome[0] if outcome else "the namespace probe did not finish"


def run_in_multicast_namespace(body: Callable[[], T]) -> T:
    """`body()` in a thread inside a fresh network namespace; skips if none can be made."""
    results: list[T] = []
    errors: list[BaseException] = []
    skipped: list[str] = []

    def run() -> None:
        try:
            _enter_private_namespace()
        except OSError as error:
            skipped.append(f"cannot make a private network namespace with multicast: {error}")
            return
        try:
            results.append(body())
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    thread = threading.Thread(target=run, name="multicast namespace", daemon=True)
    thread.start()
    thread.join(BODY_TIMEOUT)
    if thread.is_alive():
        pytest.fail(f"the test body did not finish within {BODY_TIMEOUT:g} s")
    if skipped:
        pytest.skip(skipped[0])
    if errors:
        raise errors[0]
    return results[0]
