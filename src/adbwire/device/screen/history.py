"""Per-device memory of what an agent last saw: the last screenshot and the last UI tree.

``changed`` compares the whole captured frame's thumbnail (``scaling``: 8x8-pixel blocks
averaged) with the previous capture of the same device, whatever crop or size was asked
for: a change smaller than moving one block's average by a level goes unnoticed. Only the
thumbnail is kept, never a frame. The mapping turns a point in the last screenshot back
into device pixels: ``device = origin + image / scale``. The last UI tree lets an action
refuse an element id that was read from a screen that has since changed. Each device's
``CapturePaths`` remembers which capture path is fastest there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from PIL import Image

from adbwire.device.parsers import UiHierarchy
from adbwire.device.screen.path_choice import CapturePaths
from adbwire.errors import UsageError


@dataclass(frozen=True)
class Mapping:
    """How a screenshot sits on the device's screen."""

    scale: float
    """Image pixels per device pixel (0.5: the image is half the size)."""
    left: int
    top: int
    """Device pixel of the image's top-left corner (non-zero when cropped)."""
    image_width: int
    image_height: int
    device_width: int
    device_height: int

    def to_device(self, x: float, y: float) -> tuple[int, int]:
        """A point in image pixels -> the device pixel under it (refused outside the image)."""
        if not (0 <= x <= self.image_width and 0 <= y <= self.image_height):
            raise UsageError(
                f"({x:g}, {y:g}) is outside the last screenshot "
                f"({self.image_width}x{self.image_height})"
            )
        device_x = self.left + round(x / self.scale)
        device_y = self.top + round(y / self.scale)
        return min(device_x, self.device_width - 1), min(device_y, self.device_height - 1)


class ScreenHistory:
    """Thread-safe, keyed by device serial."""

    def __init__(self) -> None:
        self._fingerprints: dict[str, str] = {}
        self._thumbnails: dict[str, Image.Image] = {}
        self._mappings: dict[str, Mapping] = {}
        self._trees: dict[str, UiHierarchy] = {}
        self._paths: dict[str, CapturePaths] = {}
        self._lock = threading.Lock()

    def record(self, serial: str, fingerprint: str, thumbnail: Image.Image) -> bool | None:
        """Remember a capture; whether it differs from the previous one (None: first)."""
        with self._lock:
            previous = self._fingerprints.get(serial)
            self._fingerprints[serial] = fingerprint
            self._thumbnails[serial] = thumbnail
        return None if previous is None else previous != fingerprint

    def thumbnail(self, serial: str) -> Image.Image | None:
        """The thumbnail of this device's last capture (None: none yet)."""
        with self._lock:
            return self._thumbnails.get(serial)

    def capture_paths(self, serial: str) -> CapturePaths:
        """What each capture path cost on this device (created on first use)."""
        with self._lock:
            return self._paths.setdefault(serial, CapturePaths())

    def set_mapping(self, serial: str, mapping: Mapping) -> None:
        with self._lock:
            self._mappings[serial] = mapping

    def mapping(self, serial: str) -> Mapping | None:
        with self._lock:
            return self._mappings.get(serial)

    def set_tree(self, serial: str, hierarchy: UiHierarchy) -> None:
        with self._lock:
            self._trees[serial] = hierarchy

    def tree(self, serial: str) -> UiHierarchy | None:
        """The UI tree an agent last read from this device (None: none yet)."""
        with self._lock:
            return self._trees.get(serial)

    def forget(self, serial: str) -> None:
        with self._lock:
            self._fingerprints.pop(serial, None)
            self._thumbnails.pop(serial, None)
            self._mappings.pop(serial, None)
            self._trees.pop(serial, None)
            self._paths.pop(serial, None)
