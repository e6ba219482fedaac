"""`pm`/`cmd package` install sessions, as `adb install-multiple` drives them:
install-create, install-write, install-commit, install-abandon.

Replies are PackageManagerShellCommand's: "Success: created install session [ID]" (adb
parses it), "Success: streamed N bytes", then "Success" or "Failure [CODE: message]" at the
commit, with PackageInstallerSession's checks of the splits (one base APK, one package).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.android.apk import ApkError, read_manifest
from adbwire.testing.userland.android.install import install_apk_bytes
from adbwire.testing.userland.android.packages import InstallSession
from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.shell.interp import Invocation

__all__ = ["SESSION_VERBS"]

MAX_SESSIONS = 50
"""Open sessions a device keeps (PackageInstallerService refuses more per installer)."""

_ids = itertools.count(1_234_567_011, 1_009)


def _fail(inv: Invocation, verb: str, kind: str, message: str) -> int:
    inv.err(
        f"Exception occurred while executing '{verb}':\n{kind}: {message}\n"
        "\tat com.android.server.pm.PackageInstallerService.openSessionInternal"
        "(PackageInstallerService.java:834)\n"
    )
    return 255


def _session_id(inv: Invocation, verb: str, text: str | None) -> int | None:
    if text is None or not text.lstrip("-").isdigit():
        _fail(inv, verb, "java.lang.NumberFormatException", f'For input string: "{text}"')
        return None
    return int(text)


def install_create(inv: Invocation, args: list[str]) -> int:
    state = inv.device.state
    options = [arg for arg in args if arg != "-S"]
    with state.lock:
        if len(state.install_sessions) >= MAX_SESSIONS:
            return _fail(
                inv,
                "install-create",
                "java.lang.IllegalStateException",
                f"Too many active sessions for UID {inv.shell.host.user_id()}",
            )
        session_id = next(_ids)
        state.install_sessions[session_id] = InstallSession(options)
    inv.out(f"Success: created install session [{session_id}]\n")
    return 0


def install_write(inv: Invocation, args: list[str]) -> int:
    size = -1
    rest = list(args)
    if rest[:1] == ["-S"] and len(rest) > 1:
        size = int(rest[1]) if rest[1].isdigit() else -1
        rest = rest[2:]
    session_id = _session_id(inv, "install-write", rest[0] if rest else None)
    if session_id is None:
        return 255
    name = rest[1] if len(rest) > 1 else ""
    path = rest[2] if len(rest) > 2 else "-"
    if path == "-":
        if size <= 0:
            inv.out("Error: must specify a APK size\n")
            return 1
        data = _read_exactly(inv, size)
    else:
        try:
            with inv.device.files.open_read(inv.path(path)) as handle:
                data = handle.read()
        except FsError as exc:
            inv.out(f"Error: failed to write; {path}: {exc.message}\n")
            return 1
    files = inv.device.files
    if files.capacity_bytes is not None and len(data) > files.capacity_bytes - files.usage_bytes():
        # The session preallocates the split in /data/app before taking a byte.
        inv.out(
            f"Error: failed to write; Failed to allocate {len(data)} bytes on "
            f"/data/app/vmdl{session_id}.tmp/{name}: ENOSPC (No space left on device)\n"
        )
        return 1
    state = inv.device.state
    with state.lock:
        session = state.install_sessions.get(session_id)
        if session is not None:
            session.splits[name] = data
    if session is None:
        return _no_session(inv, "install-write", session_id)
    inv.out(f"Success: streamed {len(data)} bytes\n")
    return 0


def _read_exactly(inv: Invocation, size: int) -> bytes:
    """What SizedInputStream gives: up to `size` bytes of stdin, fewer if it ends first."""
    parts = bytearray()
    while len(parts) < size and not inv.cancelled:
        chunk = inv.streams.stdin.read(min(65536, size - len(parts)))
        if not chunk:
            break
        parts += chunk
    return bytes(parts)


def _no_session(inv: Invocation, verb: str, session_id: int) -> int:
    return _fail(
        inv, verb, "java.lang.SecurityException", f"Caller has no access to session {session_id}"
    )


def install_commit(inv: Invocation, args: list[str]) -> int:
    session_id = _session_id(inv, "install-commit", args[0] if args else None)
    if session_id is None:
        return 255
    state = inv.device.state
    with state.lock:
        session = state.install_sessions.pop(session_id, None)
        if session is None:
            return _no_session(inv, "install-commit", session_id)
        result = _commit(state, session_id, session)
    inv.out(result + "\n")
    return 0 if result == "Success" else 1


def _commit(state: AndroidState, session_id: int, session: InstallSession) -> str:
    staged = f"/data/app/vmdl{session_id}.tmp"
    base: bytes | None = None
    package = ""
    split_names: list[str] = []
    for name, data in session.splits.items():
        try:
            manifest = read_manifest(data)
        except ApkError as exc:
            code = "NOT_APK" if str(exc) == "NOT_APK" else "BAD_MANIFEST"
            return f"Failure [INSTALL_PARSE_FAILED_{code}: Failed to parse {staged}/{name}]"
        if package and manifest.package != package:
            return (
                f"Failure [INSTALL_FAILED_INVALID_APK: Inconsistent package "
                f"{manifest.package} in {staged}/{name}; expected {package}]"
            )
        package = manifest.package
        if not manifest.split:
            if base is not None:
                return "Failure [INSTALL_FAILED_INVALID_APK: Split null was defined multiple times]"
            base = data
        elif manifest.split in split_names:
            return (
                f"Failure [INSTALL_FAILED_INVALID_APK: Split {manifest.split} was defined "
                "multiple times]"
            )
        else:
            split_names.append(manifest.split)
    if base is None:
        return "Failure [INSTALL_FAILED_INVALID_APK: Full install must include a base package]"
    result = install_apk_bytes(state, base, session.options)
    if result == "Success":
        state.packages[package].splits = split_names
    return result


def install_abandon(inv: Invocation, args: list[str]) -> int:
    session_id = _session_id(inv, "install-abandon", args[0] if args else None)
    if session_id is None:
        return 255
    state = inv.device.state
    with state.lock:
        session = state.install_sessions.pop(session_id, None)
    if session is None:
        return _no_session(inv, "install-abandon", session_id)
    inv.out("Success\n")
    return 0


SESSION_VERBS: dict[str, Callable[[Invocation, list[str]], int]] = {
    "install-create": install_create,
    "install-write": install_write,
    "install-commit": install_commit,
    "install-abandon": install_abandon,
}
