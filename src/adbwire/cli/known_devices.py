"""TCP devices `adbwire connect` remembered, so `devices` lists them and commands find them.

adb keeps them in its server's memory; adbwire has no server, so they live in a small file:
`$XDG_STATE_HOME/adbwire/connected` (default `~/.local/state/adbwire/connected`), one
HOST:PORT a line, mode 0600, replaced atomically (a reader never sees half a file).
$ADBWIRE_STATE_DIR overrides the directory (tests use it).
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from adbwire.errors import UsageError
from adbwire.wire.transport import parse_tcp_address

if TYPE_CHECKING:  # `load`, which every command runs, needs no pathlib (#20)
    from pathlib import Path

STATE_DIR_VARIABLE = "ADBWIRE_STATE_DIR"
FILE_NAME = "connected"
MAX_BYTES = 64 * 1024
"""A larger file is not ours to trust: it is ignored rather than read whole."""


def state_directory() -> Path:
    from pathlib import Path  # noqa: PLC0415 - see the imports

    return Path(_state_directory_name())


def _state_directory_name() -> str:
    explicit = os.environ.get(STATE_DIR_VARIABLE)
    if explicit:
        return explicit
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "adbwire")


def state_file() -> Path:
    return state_directory() / FILE_NAME


def load() -> list[str]:
    """The remembered addresses, in the order they were connected (none if no file)."""
    try:
        with open(os.path.join(_state_directory_name(), FILE_NAME), "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return []
    if len(data) > MAX_BYTES:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    return list(dict.fromkeys(line.strip() for line in lines if _is_address(line.strip())))


def _is_address(text: str) -> bool:
    """A line a damaged or hand-edited file may hold is skipped, not fatal to every command."""
    try:
        parse_tcp_address(text)
    except UsageError:
        return False
    return ":" in text


def save(addresses: list[str]) -> None:
    """Replace the file with `addresses` (removed when there are none)."""
    path = state_file()
    if not addresses:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = "".join(f"{address}\n" for address in dict.fromkeys(addresses))
    import tempfile  # noqa: PLC0415 - only a save needs it, not every command (#20)

    descriptor, temporary = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def remember(address: str) -> bool:
    """Add `address`; False when it was already there."""
    known = load()
    if address in known:
        return False
    save([*known, address])
    return True


def forget(address: str | None) -> list[str]:
    """Remove `address` (all when None); returns what was removed."""
    known = load()
    removed = known if address is None else [a for a in known if a == address]
    save([a for a in known if a not in removed])
    return removed
