"""One heavy job per device at a time, shared by every adbwire process on this host.

An install or an instrumentation run keeps a device busy for seconds to minutes; a second
one started meanwhile (by another agent's server, or a second call to the same one) would
compete for the package manager or kill the first run's test process. So each takes an
exclusive lock on a per-device file in the user's state directory
(``$ADBWIRE_STATE_DIR``, else ``$XDG_STATE_HOME/adbwire``, else
``~/.local/state/adbwire``; ``%LOCALAPPDATA%\\adbwire`` on Windows), under ``locks/``.

The lock is an OS file lock (``flock``), not the file's existence: the kernel releases it
when its holder exits or crashes, so a stale lock cannot outlive its process. The holder
writes who it is (job, pid, since when) into the file, and a refused caller reads that back
to say who holds the device. A refusal is immediate, never a wait: the caller decides
whether to retry. Lock files are never deleted (deleting a locked file lets a third process
lock a new file of the same name while the second still waits on the old one). Checked on
Linux; the Windows branch (msvcrt byte locks) has not been run.

A device reached over TCP has several spellings (``127.0.0.1:5555``, ``localhost:5555``,
``[::1]:5555``): its lock is keyed by `device_key`, the address its host resolves to (any
loopback address counts as one) and the port. A host name is resolved within
`RESOLVE_SECONDS`; one that does not resolve in time is keyed by its lower-cased name.
USB and emulator serials are keyed as they are.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from adbwire.errors import AdbwireError, Fault

STATE_DIR_VARIABLE = "ADBWIRE_STATE_DIR"
MAX_HOLDER_BYTES = 4096
"""A lock file is written by adbwire, but any local process could have written it: only
this much is read, and only well-typed fields are believed."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\[\]]+)):(?P<port>\d{1,5})$")
RESOLVE_SECONDS = 0.5
"""How long a lock waits for a host name to resolve before keying by the name itself."""
UNRESOLVED_SECONDS = 60.0
"""A name that did not resolve is keyed by itself this long before it is looked up again."""
_resolved: dict[str, tuple[str, float]] = {}
"""Name -> (key, until when it holds; inf for an address found)."""
_resolved_lock = threading.Lock()


def state_directory() -> Path:
    """adbwire's per-user state directory (the lock files live in ``locks/`` under it)."""
    explicit = os.environ.get(STATE_DIR_VARIABLE)
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "adbwire"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "adbwire"


def device_key(serial: str) -> str:
    """One spelling per device: ``ADDRESS:PORT`` for a HOST:PORT serial (loopback addresses
    as ``loopback``, IPv6 in brackets), else the serial itself."""
    match = _HOST_PORT.match(serial)
    if match is None or not 0 < int(match["port"]) < 65536:
        return serial
    host = match["v6"] or match["host"]
    address = _literal(host)
    if address is None:
        address = _resolve(host.lower())
    return f"{address}:{int(match['port'])}"


def _literal(host: str) -> str | None:
    """An IP address written out, in one form; None for a host name."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    return f"[{ip.compressed}]" if ip.version == 6 else ip.compressed


def _resolve(name: str) -> str:
    """`name`'s address (IPv4 first), within `RESOLVE_SECONDS`; else the name itself."""
    with _resolved_lock:
        known = _resolved.get(name)
    if known is not None and time.monotonic() < known[1]:
        return known[0]
    found: list[str] = []

    def look_up() -> None:  # a daemon thread: a resolver that hangs keeps no caller
        try:
            infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError):
            return
        addresses = [str(info[4][0]) for info in infos]
        addresses.sort(key=lambda a: ":" in a)  # IPv4 first
        literals = [_literal(a) for a in addresses]
        found.extend(a for a in literals if a is not None)

    thread = threading.Thread(target=look_up, name="adbwire-resolve", daemon=True)
    thread.start()
    thread.join(RESOLVE_SECONDS)
    if thread.is_alive() or not found:
        address, until = name, time.monotonic() + UNRESOLVED_SECONDS
    else:
        address = "loopback" if "loopback" in found else found[0]
        until = float("inf")
    with _resolved_lock:
        _resolved[name] = (address, until)
    return address


def lock_path(serial: str) -> Path:
    """The lock file of one device (all spellings of it: `device_key`): a readable prefix
    of its key plus a hash of all of it, so keys that differ only in characters a file name
    cannot hold stay apart."""
    key = device_key(serial)
    readable = _UNSAFE.sub("_", key)[:40]
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return state_directory() / "locks" / f"{readable}-{digest}.lock"


@dataclass(frozen=True)
class Holder:
    """Who holds a device's heavy-job lock."""

    job: str
    pid: int
    since: str
    """UTC time the lock was taken, ISO 8601."""


class HeavyJobBusyError(AdbwireError):
    """Another heavy job (install, instrumentation) holds the device; nothing was started."""

    fault = Fault.ENVIRONMENT
    retryable = True

    def __init__(self, serial: str, holder: Holder | None) -> None:
        who = (
            f"{holder.job} (pid {holder.pid}, since {holder.since})"
            if holder is not None
            else "another adbwire process (it has not said who yet)"
        )
        super().__init__(
            f"{serial} is busy: {who} holds its heavy-job lock; nothing was started, "
            "call again when that job has ended"
        )
        self.serial = serial
        self.holder = holder


@contextmanager
def heavy_job(serial: str, job: str) -> Iterator[Holder]:
    """Hold `serial`'s heavy-job lock for the block, or raise HeavyJobBusyError at once."""
    path = lock_path(serial)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        if not _try_lock(fd):
            raise HeavyJobBusyError(serial, _read_holder(fd))
        holder = Holder(job=job[:200], pid=os.getpid(), since=_now())
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(asdict(holder)).encode())
        try:
            yield holder
        finally:
            os.ftruncate(fd, 0)  # before the lock goes: nobody reads a past holder
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def current_holder(serial: str) -> Holder | None:
    """Who holds `serial`'s lock now, if anyone (for diagnostics; may change at once)."""
    try:
        fd = os.open(lock_path(serial), os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    try:
        if _try_lock(fd):
            return None  # free (our probe's lock goes with the descriptor)
        return _read_holder(fd)
    finally:
        os.close(fd)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _read_holder(fd: int) -> Holder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, MAX_HOLDER_BYTES + 1)
    except OSError:  # also Windows, where the holder's lock keeps others from reading
        return None
    if not raw or len(raw) > MAX_HOLDER_BYTES:
        return None
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    job, pid, since = data.get("job"), data.get("pid"), data.get("since")
    if not (isinstance(job, str) and isinstance(pid, int) and isinstance(since, str)):
        return None
    return Holder(job=job[:200], pid=pid, since=since[:40])


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)  # the lock covers the file's first byte
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
