"""uiautomator dump XML on real dumps (Views, Compose, Flutter, a system dialog)."""

from __future__ import annotations

import pytest

from adbwire.device.parsers.ui_xml import Bounds, parse_ui_xml
from adbwire.errors import DeviceCommandError
from tests.device_outputs import device_output_bytes

# (file, nodes, clickable): counted in the files with grep '<node ' and ' clickable="true"'.
REAL_DUMPS = [
    ("compose_lingbook_1220x2656.xml", 50, 13),
    ("flutter_termux_flutter_ide_1080x2400.xml", 17, 7),
    ("system_anr_dialog_quietlog.xml", 12, 2),
    ("views_youtube_1080x1794.xml", 89, 20),
]


@pytest.mark.parametrize(("name", "nodes", "clickable"), REAL_DUMPS)
def test_real_dump_counts_and_tree_shape(name: str, nodes: int, clickable: int) -> None:
    tree = parse_ui_xml(device_output_bytes(f"uiautomator_dump/{name}"))
    assert tree.rotation == 0
    assert len(tree.elements) == nodes
    assert sum(e.clickable for e in tree.elements) == clickable
    root = tree.elements[0]
    assert (root.id, root.parent_id, root.depth, root.class_name) == (
        "e0",
        None,
        0,
        "android.widget.FrameLayout",
    )
    for position, element in enumerate(tree.elements):
        assert element.id == f"e{position}"
        assert tree.get(element.id) is element
        if element.parent_id is not None:
            parent = tree.get(element.parent_id)
            assert parent is not None and parent.depth == element.depth - 1
            assert int(element.parent_id[1:]) < position  # parents come first


def test_compose_dump() -> None:
    tree = parse_ui_xml(device_output_bytes("uiautomator_dump/compose_lingbook_1220x2656.xml"))
    title = next(e for e in tree.elements if e.text == "新建学科")
    assert title.class_name == "android.widget.TextView"
    assert title.bounds == Bounds(482, 719, 738, 794)
    card = tree.get(title.parent_id or "")
    assert card is not None and card.clickable and card.focusable
    assert sum(e.long_clickable for e in tree.elements) == 3
    assert sum(e.scrollable for e in tree.elements) == 1
    assert sum(e.content_desc == "删除" for e in tree.elements) == 3
    assert tree.elements[3].class_name == "androidx.compose.ui.platform.ComposeView"


def test_flutter_dump_decodes_newline_references_and_naf() -> None:
    tree = parse_ui_xml(
        device_output_bytes("uiautomator_dump/flutter_termux_flutter_ide_1080x2400.xml")
    )
    explorer = next(e for e in tree.elements if e.content_desc.startswith("Explorer"))
    assert explorer.content_desc == "Explorer\nTab 1 of 3"  # "&#10;" in the file
    assert explorer.selected and explorer.clickable
    assert explorer.bounds == Bounds(0, 2195, 360, 2358)
    assert explorer.label == "Explorer\nTab 1 of 3"
    assert sum(e.not_accessibility_friendly for e in tree.elements) == 2
    assert [e.id for e in tree.elements if e.focused] == ["e7"]


def test_youtube_dump_decodes_emoji_references() -> None:
    tree = parse_ui_xml(device_output_bytes("uiautomator_dump/views_youtube_1080x1794.xml"))
    video = next(e for e in tree.elements if e.content_desc.startswith("ANIMALS THAT ASKED"))
    assert "4K \U0001f979 #caughtoncamera" in video.content_desc  # "&#129401;" in the file
    search = next(e for e in tree.elements if e.content_desc == "Search")
    assert search.package == "com.google.android.youtube"
    assert sum(e.selected for e in tree.elements) == 5
    home = next(e for e in tree.elements if e.text == "Home")
    assert [a.id for a in tree.ancestors(home)][-1] == "e0"


def test_system_dialog_dump_has_hints() -> None:
    tree = parse_ui_xml(device_output_bytes("uiautomator_dump/system_anr_dialog_quietlog.xml"))
    wait = next(e for e in tree.elements if e.resource_id == "android:id/aerr_wait")
    assert (wait.text, wait.class_name, wait.package) == (
        "Wait",
        "android.widget.Button",
        "android",
    )
    assert wait.bounds == Bounds(70, 1347, 1010, 1473)
    assert wait.bounds.center == (540, 1410)
    assert all(e.hint == "" for e in tree.elements)
    parent = tree.get(wait.parent_id or "")
    assert parent is not None
    assert [c.text for c in tree.children(parent)] == ["Close app", "Wait"]


MINIMAL = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"1\">"
    '<node index="0" text="Email" resource-id="com.x:id/email" class="android.widget.EditText"'
    ' package="com.x" content-desc="" checkable="false" checked="false" clickable="true"'
    ' enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="false"'
    ' password="false" selected="false" bounds="[-5,10][200,90]" hint="you@example.com" />'
    "</hierarchy>"
)


def test_dump_to_tty_with_trailing_message_and_crlf() -> None:
    text = MINIMAL + "\r\nUI hierchary dumped to: /dev/tty\r\n"
    tree = parse_ui_xml(text)
    assert tree.rotation == 1
    (field,) = tree.elements
    assert (field.hint, field.focused, field.resource_id) == (
        "you@example.com",
        True,
        "com.x:id/email",
    )
    assert field.bounds == Bounds(-5, 10, 200, 90)
    assert field.label == "Email"


def test_control_characters_are_dropped_not_fatal() -> None:
    text = MINIMAL.replace('text="Email"', 'text="Em\x0bail&#1;"')
    (field,) = parse_ui_xml(text).elements
    assert field.text == "Email"


def test_empty_hierarchy_and_missing_attributes() -> None:
    assert parse_ui_xml("<hierarchy rotation='0'></hierarchy>").elements == ()
    (bare,) = parse_ui_xml("<hierarchy><node/></hierarchy>").elements
    assert (bare.text, bare.bounds, bare.clickable, bare.index) == (
        "",
        Bounds(0, 0, 0, 0),
        False,
        0,
    )
    assert bare.bounds.is_empty


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("ERROR: could not get idle state.\n", "could not get idle state"),
        ("", "no UI hierarchy"),
        (MINIMAL[:150], "cut short"),
        ("<hierarchy><node></hierarchy>", "not valid XML"),
    ],
)
def test_error_outputs(output: str, message: str) -> None:
    with pytest.raises(DeviceCommandError, match=message):
        parse_ui_xml(output)


def test_doctype_and_entities_are_refused() -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><hierarchy><node text="&lol2;"/></hierarchy>'
    )
    with pytest.raises(DeviceCommandError, match="DOCTYPE"):
        parse_ui_xml(bomb)
    with pytest.raises(DeviceCommandError, match="DOCTYPE"):
        parse_ui_xml(b"<hierarchy><!doctype x></hierarchy>")
