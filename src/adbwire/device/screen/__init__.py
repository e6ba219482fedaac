"""Screenshots that fit: captured binary-safe, encoded on the host within a budget.

- ``capture``: raw ``screencap`` frames (``screencap -p`` as fallback) into a Pillow image,
  with all-black (FLAG_SECURE) frames flagged;
- ``encode``: scaling and PNG/JPEG/WebP encoding to a pixel and byte budget;
- ``history``: per device, whether the screen changed and how the last image maps back;
- ``screenshot``: the whole path, with cropping.

Pillow (a runtime dependency) does the image work on the host; nothing runs on the device
but ``screencap``.
"""

from __future__ import annotations

from adbwire.device.screen.capture import Frame, capture
from adbwire.device.screen.encode import Budget, Encoded, fit
from adbwire.device.screen.history import Mapping, ScreenHistory
from adbwire.device.screen.screenshot import Screenshot, take_screenshot

__all__ = [
    "Budget",
    "Encoded",
    "Frame",
    "Mapping",
    "ScreenHistory",
    "Screenshot",
    "capture",
    "fit",
    "take_screenshot",
]
