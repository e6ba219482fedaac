"""Reading and writing ``settings`` values, with "unset" kept apart from any value."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Literal, TypeVar

from adbwire.device import commands
from adbwire.device.errors import VerificationError
from adbwire.wire.client import AdbClient

Namespace = Literal["system", "secure", "global"]
POLL_SECONDS = 0.2
_KEY = re.compile(r"^[A-Za-z0-9_.]{1,80}$")
T = TypeVar("T")


def read_setting(client: AdbClient, namespace: Namespace, key: str) -> str | None:
    """The value, or None when unset (``settings get`` prints ``null`` then)."""
    if not _KEY.match(key):
        raise ValueError(f"not a setting name: {key!r}")
    value = commands.text(client, ["settings", "get", namespace, key]).strip()
    return None if value in ("", "null") else value


def write_setting(client: AdbClient, namespace: Namespace, key: str, value: str | None) -> None:
    """Put the value, or delete the setting when ``value`` is None (back to the default)."""
    if not _KEY.match(key):
        raise ValueError(f"not a setting name: {key!r}")
    if value is None:
        commands.text(client, ["settings", "delete", namespace, key])
    else:
        commands.text(client, ["settings", "put", namespace, key, value])


def wait_for(read: Callable[[], T], done: Callable[[T], bool], *, timeout: float, what: str) -> T:
    """Read until ``done`` holds (the value read) or raise VerificationError after
    ``timeout`` seconds, naming what was last seen."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() >= deadline:
            raise VerificationError(
                f"{what}: the device still reports {value!r} after {timeout:g}s"
            )
        time.sleep(POLL_SECONDS)
