"""The compact text form on real dumps (Views, Compose, Flutter, a system dialog) and on the
simulator's screens: small, and no interactive element lost."""

from __future__ import annotations

from importlib import resources

import pytest

from adbwire.device.parsers import UiHierarchy, parse_ui_xml
from adbwire.device.ui import compact_tree, element_line, merged_labels
from tests.device_outputs import device_output_bytes

REAL = [
    "compose_lingbook_1220x2656.xml",
    "flutter_termux_flutter_ide_1080x2400.xml",
    "system_anr_dialog_quietlog.xml",
    "views_youtube_1080x1794.xml",
]
SIMULATED = ["launcher", "notes_list", "notes_list_scrolled", "note_editor", "settings", "vault"]
TARGET_RATIO = 0.15


def real_dump(name: str) -> bytes:
    return device_output_bytes(f"uiautomator_dump/{name}")


def simulated_dump(screen: str) -> bytes:
    return (resources.files("adbwire.testing") / "data" / "screens" / f"{screen}.xml").read_bytes()


def all_dumps() -> list[tuple[str, bytes]]:
    found = [(f"sim:{s}", simulated_dump(s)) for s in SIMULATED]
    found += [(f"real:{n}", real_dump(n)) for n in REAL]
    return found


def line_ids(text: str) -> list[str]:
    return [line.split(" ", 1)[0] for line in text.splitlines()]


@pytest.mark.parametrize(
    ("name", "raw"), all_dumps(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_interactive_form_is_small_and_complete(name: str, raw: bytes) -> None:
    tree = parse_ui_xml(raw)
    text = compact_tree(tree)
    assert len(text.encode()) <= TARGET_RATIO * len(raw), name
    interactive = [e.id for e in tree.elements if e.is_interactive]
    assert interactive, "every screen here has something to act on"
    assert line_ids(text) == interactive  # each one, once, in document order


@pytest.mark.parametrize("name", REAL)
def test_full_form_lists_every_element_indented(name: str) -> None:
    tree = parse_ui_xml(real_dump(name))
    lines = compact_tree(tree, interactive_only=False).splitlines()
    assert len(lines) == len(tree.elements)
    for line, element in zip(lines, tree.elements, strict=True):
        assert line == " " * element.depth + element_line(element)


def youtube() -> UiHierarchy:
    return parse_ui_xml(real_dump("views_youtube_1080x1794.xml"))


def test_line_format_on_a_real_views_dump() -> None:
    tree = youtube()
    avatar = next(e for e in tree.elements if e.resource_id.endswith("mobile_topbar_avatar"))
    line = element_line(avatar, merged_labels(tree).get(avatar.id))
    assert line == (
        f'{avatar.id} FrameLayout #mobile_topbar_avatar ~"Account" [942,63][1080,189] click long'
    )
    home = next(e for e in tree.elements if e.content_desc == "Home")
    assert element_line(home).endswith('Button desc:"Home" [0,1665][270,1791] click selected')


def test_children_text_rides_on_the_clickable_row() -> None:
    tree = parse_ui_xml(simulated_dump("notes_list"))
    text = compact_tree(tree)
    assert (
        'e10 LinearLayout #note_row ~"Groceries | May 2 | Milk, eggs, coffee beans, basil"' in text
    )
    assert "e11" not in line_ids(text)  # the title itself is not interactive


def test_text_is_quoted_escaped_and_shortened() -> None:
    tree = parse_ui_xml(real_dump("flutter_termux_flutter_ide_1080x2400.xml"))
    described = next(e for e in tree.elements if "\n" in e.content_desc)
    line = element_line(described)
    assert "\n" not in line and "\\n" in line
    long_one = next(e for e in youtube().elements if len(e.content_desc) > 100)
    shown = element_line(long_one).split('desc:"', 1)[1].split('" [', 1)[0]
    assert len(shown) == 60 and shown.endswith("\u2026")
    assert long_one.content_desc.startswith(shown[:-1])


def test_flags_and_password_and_hint() -> None:
    vault = parse_ui_xml(simulated_dump("vault"))
    field = next(e for e in vault.elements if e.password)
    assert (
        element_line(field)
        == 'e6 EditText #pin_field "PIN" [63,800][1017,960] click focused password'
    )
    settings = parse_ui_xml(simulated_dump("settings"))
    assert "unchecked" in element_line(settings.elements[10])
    assert element_line(settings.elements[14]).endswith("click checked")
