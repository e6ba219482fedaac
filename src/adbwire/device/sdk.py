"""The device's API level, read once per client (it cannot change while adbd runs)."""

from __future__ import annotations

import threading
import weakref

from adbwire.device import commands
from adbwire.wire.client import AdbClient

_known: weakref.WeakKeyDictionary[AdbClient, int | None] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def sdk_level(client: AdbClient) -> int | None:
    """``ro.build.version.sdk`` as a number, or None when the device does not say."""
    with _lock:
        if client in _known:
            return _known[client]
    text = commands.text(client, ["getprop", "ro.build.version.sdk"]).strip()
    level = int(text) if text.isdigit() and len(text) <= 3 else None
    with _lock:
        _known[client] = level
    return level
