"""Set-of-Mark screenshots: screenshot {annotate: true} draws ui_tree's ids on the image,
and those ids can be acted on at once."""

from __future__ import annotations

import io

from PIL import Image

from adbwire.device.screen.annotate import COLOURS
from tests.mcp.harness import data_of
from tests.mcp.test_ui_tools import image_of, session, tree_lines

FAB = (855, 2090, 1017, 2252)  # e22, the "New note" button on the notes list


async def test_ids_are_drawn_where_the_elements_are() -> None:
    async with session("notes_list") as s:
        plain = await s.call("screenshot", {"format": "png"})
        marked = await s.call("screenshot", {"format": "png", "annotate": True})
        data = data_of(marked)
        scale = data["scale"]
        with Image.open(io.BytesIO(image_of(plain)[0])) as image:
            before = image.convert("RGB")
        with Image.open(io.BytesIO(image_of(marked)[0])) as image:
            after = image.convert("RGB")
        assert after.size == before.size
        # the tag of e22 sits at the button's top-left corner, in a mark colour
        x, y = round(FAB[0] * scale) + 1, round(FAB[1] * scale) + 1
        assert after.getpixel((x, y)) in COLOURS and before.getpixel((x, y)) not in COLOURS
        # the button's middle is left as it was: boxes and tags, not a veil over the screen
        middle = (round((FAB[0] + FAB[2]) / 2 * scale), round((FAB[1] + FAB[3]) / 2 * scale))
        assert after.getpixel(middle) == before.getpixel(middle)
        # ids are ui_tree's: the same screen read as text names e22 the same element
        tree = await s.call("ui_tree")
        assert any(
            line.startswith("e22 ") and "[855,2090][1017,2252]" in line for line in tree_lines(tree)
        )


async def test_an_id_seen_on_the_image_can_be_tapped() -> None:
    async with session("notes_list") as s:
        await s.ok("screenshot", {"annotate": True})
        tapped = await s.ok("tap_element", {"query": "e22"})
        assert tapped["screen_changed"] is True and s.userland.screen() == "note_editor"
