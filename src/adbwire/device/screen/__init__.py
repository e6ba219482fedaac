"""Screenshots that fit: captured binary-safe, encoded on the host within a budget.

- ``capture``: raw ``screencap`` frames or the device's PNG (``screencap -p``) into a
  Pillow image, with all-black (FLAG_SECURE) frames flagged; ``read_frame`` reads them
  into buffers ``frame_pool`` keeps for the next frame;
- ``path_choice``: per device, which of the two paths is faster, from measurements;
- ``scaling``: whole-factor box reductions, thumbnails and fingerprints;
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
from adbwire.device.screen.path_choice import CapturePaths
from adbwire.device.screen.screenshot import Screenshot, take_screenshot

__all__ = [
    "Budget",
    "CapturePaths",
    "Encoded",
    "Frame",
    "Mapping",
    "ScreenHistory",
    "Screenshot",
    "capture",
    "fit",
    "take_screenshot",
]
