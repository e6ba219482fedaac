"""Set-of-Mark screenshots: each actionable element's id drawn on the image.

A vision model reading the picture can then say "tap e22" and mean the element ``ui_tree``
calls e22 (same screen, same ids). Every element gets a thin box and, at its top-left
corner, its id on a filled tag; colours cycle so neighbouring boxes stay apart. The image
is decoded, drawn on and encoded again in its own format (PNG stays lossless; JPEG and
WebP keep their quality), so only an annotated call pays for it.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from adbwire.device.parsers import Bounds, UiElement
from adbwire.device.screen.encode import Encoded
from adbwire.device.screen.history import Mapping

COLOURS = ((230, 25, 75), (0, 130, 200), (60, 180, 75), (245, 130, 48), (145, 30, 180))
MAX_MARKS = 300
"""Beyond this many elements a screen is a list too long to read as marks anyway."""


def image_box(bounds: Bounds, mapping: Mapping) -> tuple[int, int, int, int] | None:
    """An element's bounds in image pixels, cut to the image; None when off the image."""
    left = round((bounds.left - mapping.left) * mapping.scale)
    top = round((bounds.top - mapping.top) * mapping.scale)
    right = round((bounds.right - mapping.left) * mapping.scale)
    bottom = round((bounds.bottom - mapping.top) * mapping.scale)
    left, top = max(0, left), max(0, top)
    right, bottom = min(mapping.image_width, right), min(mapping.image_height, bottom)
    if right - left < 2 or bottom - top < 2:
        return None
    return left, top, right, bottom


def annotate(image: Encoded, mapping: Mapping, elements: Sequence[UiElement]) -> Encoded:
    """``image`` with ``elements`` (usually the interactive ones) marked by their ids."""
    with Image.open(io.BytesIO(image.data)) as opened:
        canvas = opened.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    size = max(10, min(28, round(min(canvas.size) / 40)))
    font = ImageFont.load_default(size=size)
    for number, element in enumerate(elements[:MAX_MARKS]):
        box = image_box(element.bounds, mapping)
        if box is None:
            continue
        colour = COLOURS[number % len(COLOURS)]
        draw.rectangle(box, outline=colour, width=max(1, size // 8))
        left, top, right, bottom = draw.textbbox((0, 0), element.id, font=font)
        tag_w, tag_h = right - left + 4, bottom - top + 4
        x = min(box[0], canvas.width - tag_w)
        y = min(box[1], canvas.height - tag_h)
        draw.rectangle((x, y, x + tag_w, y + tag_h), fill=colour)
        draw.text((x + 2 - left, y + 2 - top), element.id, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    if image.format == "png":
        canvas.save(out, "PNG", compress_level=1)
    else:
        canvas.save(out, image.format.upper(), quality=image.quality or 80)
    return Encoded(out.getvalue(), image.format, canvas.width, canvas.height, image.quality)
