"""Selectors: the id -> desc -> text -> hint order, exact/contains/regex, scoping, prefixes,
the nearest clickable ancestor, ambiguity, and stale element ids."""

from __future__ import annotations

from importlib import resources

import pytest

from adbwire.device.parsers import UiHierarchy, parse_ui_xml
from adbwire.device.ui import AmbiguousMatchError, NoMatchError, Selector, find, resolve_one
from adbwire.device.ui.errors import StaleElementError
from adbwire.device.ui.select import check_fresh, parse_query, tap_target
from adbwire.errors import UsageError
from tests.device_outputs import device_output_bytes


def screen(name: str) -> UiHierarchy:
    data = resources.files("adbwire.testing") / "data" / "screens" / f"{name}.xml"
    return parse_ui_xml(data.read_bytes())


def real(name: str) -> UiHierarchy:
    return parse_ui_xml(device_output_bytes(f"uiautomator_dump/{name}"))


def ids(tree: UiHierarchy, selector: Selector) -> list[str]:
    return [e.id for e in find(tree, selector).elements]


def test_auto_order_prefers_id_then_desc_then_text_then_hint() -> None:
    editor = screen("note_editor")
    assert find(editor, Selector("save_button")).matched_by == "id"
    assert ids(editor, Selector("com.example.notes:id/save_button")) == ["e7"]
    assert find(editor, Selector("Navigate up")).matched_by == "desc"
    assert find(editor, Selector("SAVE")).matched_by == "text"
    launcher = screen("launcher")  # "Notes" is both the text and the description: desc first
    notes = find(launcher, Selector("Notes"))
    assert (notes.matched_by, [e.id for e in notes.elements]) == ("desc", ["e5"])
    vault = screen("vault")
    assert find(vault, Selector("PIN", by="hint")).matched_by == "hint"


def test_match_modes() -> None:
    notes = screen("notes_list")
    assert ids(notes, Selector("groceries")) == []  # exact is case-sensitive
    assert ids(notes, Selector("groceries", match="contains")) == ["e11"]
    assert ids(notes, Selector(r"^(Apr|May) \d+$", match="regex")) == ["e12", "e16", "e20"]
    assert ids(notes, Selector("note_row", by="id")) == ["e10", "e14", "e18"]
    assert ids(notes, Selector("  Groceries ")) == ["e11"]  # surrounding blanks ignored


def test_within_scopes_to_a_subtree() -> None:
    notes = screen("notes_list")
    assert ids(notes, Selector("note_date", within="e14")) == ["e16"]
    with pytest.raises(NoMatchError):
        find(notes, Selector("x", within="e999"))


def test_query_prefixes_and_element_ids() -> None:
    assert parse_query("text:Save") == Selector("Save", "text")
    assert parse_query("id:fab", "contains") == Selector("fab", "id", "contains")
    assert parse_query("e12", within="e9") == Selector(element="e12", within="e9")
    assert parse_query("text:e12") == Selector("e12", "text")
    assert parse_query("Ratio: 3:2") == Selector("Ratio: 3:2")  # not a known field prefix
    assert parse_query("desc:") == Selector("desc:")


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"query": "a", "element": "e1"},
        {"query": ""},
        {"element": "12"},
        {"query": "a", "within": "x1"},
        {"query": "(", "match": "regex"},
        {"query": "a" * 201, "match": "regex"},
    ],
)
def test_bad_selectors_are_refused(arguments: dict[str, str]) -> None:
    with pytest.raises(UsageError):
        Selector(**arguments)  # type: ignore[arg-type]


def test_nearest_clickable_ancestor_and_tap_point() -> None:
    notes = screen("notes_list")
    resolved = resolve_one(notes, Selector("Trip to Lisbon"))
    assert (resolved.element.id, resolved.target.id) == ("e15", "e14")
    assert resolved.point == (411, 803)  # the centre of the label, inside the row
    vault = screen("vault")  # Compose: the text sits in an unlabelled clickable Button
    assert resolve_one(vault, Selector("Unlock")).target.id == "e7"
    # long press prefers a long-clickable ancestor
    assert tap_target(notes, notes.elements[11], long_press=True).id == "e10"


def test_matches_reaching_one_target_count_once() -> None:
    notes = screen("notes_list")
    resolved = resolve_one(notes, Selector("ay 2", match="contains"))  # "May 2" only
    assert resolved.target.id == "e10"
    both = resolve_one(notes, Selector("Groceries|Milk", match="regex"))  # title and snippet
    assert both.target.id == "e10"


def test_ambiguity_lists_every_candidate_with_ids_and_bounds() -> None:
    notes = screen("notes_list")
    with pytest.raises(AmbiguousMatchError) as caught:
        resolve_one(notes, Selector("note_title"))
    assert [e.id for e in caught.value.candidates] == ["e11", "e15", "e19"]
    message = str(caught.value)
    assert "nothing was done" in message
    for fragment in ("e11", "[63,472][760,546]", "e15", "e19", '"Ideas for the talk"'):
        assert fragment in message


def test_no_match_and_no_area() -> None:
    with pytest.raises(NoMatchError, match="nothing on screen matches"):
        resolve_one(screen("notes_list"), Selector("Shopping"))


def test_real_compose_dump_buttons_and_duplicates() -> None:
    tree = real("compose_lingbook_1220x2656.xml")
    with pytest.raises(AmbiguousMatchError) as caught:
        resolve_one(tree, Selector("删除"))  # three "delete" buttons, one per card
    assert len(caught.value.candidates) == 3
    scoped = resolve_one(tree, Selector("删除", within=tree.elements[20].id))
    assert scoped.target.id == "e24"


def test_real_views_dump_by_description() -> None:
    tree = real("views_youtube_1080x1794.xml")
    assert resolve_one(tree, Selector("Subscriptions")).target.content_desc == "Subscriptions"
    with pytest.raises(AmbiguousMatchError):
        resolve_one(tree, Selector("More actions"))


def test_stale_element_ids_are_refused() -> None:
    before, after = screen("notes_list"), screen("notes_list_scrolled")
    check_fresh(before, before, ["e10", None])
    check_fresh(before, after, ["e22", "e9"])  # the button and the list did not change
    check_fresh(None, after, ["e11"])  # nothing read before: nothing to compare
    with pytest.raises(StaleElementError, match="read the UI again"):
        check_fresh(before, after, ["e11"])  # same slot, another note after scrolling
    with pytest.raises(StaleElementError):
        check_fresh(before, screen("settings"), ["e10"])


def test_a_field_keeps_its_id_while_its_text_changes() -> None:
    editor = screen("note_editor")
    typed = parse_ui_xml(
        (resources.files("adbwire.testing") / "data" / "screens" / "note_editor.xml")
        .read_text()
        .replace('text="Title"', 'text="Shopping"', 1)
    )
    assert typed.elements[8].text == "Shopping"
    check_fresh(editor, typed, ["e8"])
