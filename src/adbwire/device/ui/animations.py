"""Turning the animation scales off for a while, and putting them back.

Endless animations keep ``uiautomator dump`` from ever seeing an idle screen. Setting the
three global animation scales to 0 fixes that; an :class:`AnimationGuard` remembers each
device's original values the first time it turns them off, and ``restore_all`` (or
``close``) writes them back, deleting the settings that were unset before.
"""

from __future__ import annotations

import logging
import threading

from adbwire.device import commands
from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient

log = logging.getLogger(__name__)
SCALES = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")


def read_scales(client: AdbClient) -> dict[str, str | None]:
    """Each scale's setting (None when unset: the device's default, 1)."""
    values: dict[str, str | None] = {}
    for name in SCALES:
        value = commands.text(client, ["settings", "get", "global", name]).strip()
        values[name] = None if value in ("", "null") else value
    return values


def write_scales(client: AdbClient, values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if name not in SCALES:
            raise ValueError(f"not an animation scale: {name}")
        if value is None:
            commands.text(client, ["settings", "delete", "global", name])
        else:
            commands.text(client, ["settings", "put", "global", name, value])


class AnimationGuard:
    """Animation scales turned off per device, with the originals kept for restoring."""

    def __init__(self) -> None:
        self._saved: dict[str, tuple[AdbClient, dict[str, str | None]]] = {}
        self._lock = threading.Lock()

    def disable(self, client: AdbClient) -> bool:
        """Set every scale to 0; False when this guard had already done so for the device."""
        with self._lock:
            if client.serial in self._saved:
                return False
            original = read_scales(client)
            self._saved[client.serial] = (client, original)
        write_scales(client, dict.fromkeys(SCALES, "0"))
        return True

    def disabled(self, serial: str) -> bool:
        with self._lock:
            return serial in self._saved

    def restore(self, serial: str) -> bool:
        with self._lock:
            saved = self._saved.pop(serial, None)
        if saved is None:
            return False
        client, original = saved
        write_scales(client, original)
        return True

    def restore_all(self) -> None:
        with self._lock:
            serials = list(self._saved)
        for serial in serials:
            try:
                self.restore(serial)
            except AdbwireError:
                log.warning("could not restore the animation scales of %s", serial, exc_info=True)

    close = restore_all
