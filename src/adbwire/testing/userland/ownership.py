"""Who owns the device's files: what `ls -l`, `stat` and sync's STA2 report.

A file made on the device (a push, a redirection, `mkdir`, `ln -s`…) belongs to whoever
made it: adbd and its shells run as shell (2000) unless adbd was restarted as root. Files
no one made at run time (the image and the scenario's files) have the owners an Android 14
image gives them: /system/bin root:shell, /data system:system, /data/local/tmp and what is
under it shell:shell, shared storage the maker and media_rw, everything else root:root.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

ROOT: Final = 0
SYSTEM: Final = 1000
MEDIA_RW: Final = 1023
SHELL: Final = 2000

_IMAGE_OWNERS: Final = (
    ("/data/local/tmp", (SHELL, SHELL)),
    ("/data/local", (ROOT, ROOT)),
    ("/data", (SYSTEM, SYSTEM)),
    ("/storage/emulated", (ROOT, MEDIA_RW)),
    ("/system/bin", (ROOT, SHELL)),
)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


class FileOwners:
    """The userland's `DeviceFiles.ownership`: a record per file made at run time."""

    def __init__(self, maker: Callable[[], int]) -> None:
        self._maker = maker
        self._owners: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def owner_of(self, canonical: str) -> tuple[int, int]:
        with self._lock:
            recorded = self._owners.get(canonical)
        if recorded is not None:
            return recorded
        for prefix, owner in _IMAGE_OWNERS:
            if _under(canonical, prefix):
                return owner
        return ROOT, ROOT

    def created(self, canonical: str) -> None:
        uid = self._maker()
        gid = MEDIA_RW if _under(canonical, "/storage/emulated") else uid
        with self._lock:
            self._owners[canonical] = (uid, gid)

    def moved(self, old: str, new: str) -> None:
        with self._lock:
            for path in [p for p in self._owners if _under(p, old)]:
                self._owners[new + path[len(old) :]] = self._owners.pop(path)

    def removed(self, canonical: str) -> None:
        with self._lock:
            for path in [p for p in self._owners if _under(p, canonical)]:
                del self._owners[path]
