"""Draw a screen from its UI hierarchy, for screens whose scenario gives no screenshot.

Flat shapes only: buttons and rows as tinted boxes, text as dark bars as wide as the text
would be, text fields as white boxes with an underline, and the soft keyboard (when up) as a
grey panel with rows of keys. Good enough to see what is where; tiny once compressed.
"""

from __future__ import annotations

import zlib

from adbwire.testing.userland.android.png import RGBA, Canvas, Rect
from adbwire.testing.userland.android.ui import UiNode, UiTree

STATUS_BAR = (32, 33, 36, 255)
TEXT = (60, 64, 67, 255)
DARK_TEXT = (232, 234, 237, 255)
FIELD = (255, 255, 255, 255)
UNDERLINE = (26, 115, 232, 255)
KEYBOARD = (232, 234, 237, 255)
KEY = (255, 255, 255, 255)


def _tint(package: str) -> RGBA:
    seed = zlib.crc32(package.encode())
    return (200 + seed % 40, 210 + (seed >> 8) % 35, 225 + (seed >> 16) % 30, 255)


def render_screen(
    tree: UiTree, width: int, height: int, *, keyboard: bool, dark: bool = False
) -> Canvas:
    """``dark``: night mode's theme (dark background, light text)."""
    package = tree.roots[0].get("package") if tree.roots else "android"
    light = package != "android" and not dark
    background = (250, 250, 252, 255) if light else (48, 48, 48, 255)
    canvas = Canvas(width, height, background, [])
    accent = _tint(package)
    for node in tree.walk():
        _draw(canvas, node, accent, TEXT if light else DARK_TEXT)
    if keyboard:
        _draw_keyboard(canvas)
    return canvas


def _draw(canvas: Canvas, node: UiNode, accent: RGBA, text_color: RGBA) -> None:
    left, top, right, bottom = node.bounds
    if right <= left or bottom <= top:
        return
    rects = canvas.rects
    if node.get("resource-id").endswith("statusBarBackground"):
        rects.append(Rect(left, top, right, bottom, STATUS_BAR))
    elif node.is_text_field:
        rects.append(Rect(left, top, right, bottom, FIELD))
        rects.append(Rect(left, bottom - 4, right, bottom, UNDERLINE))
    elif (
        node.flag("clickable")
        and (right - left) * (bottom - top) < canvas.width * canvas.height // 2
    ):
        rects.append(Rect(left + 2, top + 2, right - 2, bottom - 2, accent))
    text = node.get("text")
    if text:
        line = max(8, (bottom - top) * 2 // 5)
        text_width = min(right - left, len(text) * line * 3 // 5)
        middle = (top + bottom) // 2
        rects.append(
            Rect(
                left + 4, middle - line // 2, left + 4 + text_width, middle + line // 2, text_color
            )
        )


def _draw_keyboard(canvas: Canvas) -> None:
    top = canvas.height * 62 // 100
    canvas.rects.append(Rect(0, top, canvas.width, canvas.height, KEYBOARD))
    rows = 4
    row_height = (canvas.height - top) // (rows + 1)
    for row in range(rows):
        keys = 10 if row < 3 else 5
        key_width = canvas.width // keys
        y = top + row_height // 2 + row * row_height
        for key in range(keys):
            x = key * key_width
            canvas.rects.append(Rect(x + 6, y + 6, x + key_width - 6, y + row_height - 6, KEY))
