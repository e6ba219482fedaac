"""The compact text form of a UI tree: one short line per element.

A line reads ``e10 LinearLayout #note_row ~"Groceries | May 2" [0,430][1080,724] click long``:
the element id, the class without its package, ``#`` and the resource-id (test tag) without
``package:id/``, the text in quotes, ``desc:"…"`` and ``hint:"…"`` when they add something,
``~"…"`` for the text of the children of an element that has none of its own, the bounds as
uiautomator writes them, and the flags that are set (``click long scroll checked unchecked
focused selected disabled password``).

By default only interactive elements are listed (clickable, long-clickable, scrollable or
checkable), each carrying its children's text, so nothing a user can act on is lost while
layout containers and plain labels go. ``interactive_only=False`` lists every element,
indented one space per level.
"""

from __future__ import annotations

import json

from adbwire.device.parsers import UiElement, UiHierarchy

MAX_TEXT = 60
MAX_MERGED = 80
MERGE_SEPARATOR = " | "
_LEFT_RAW_BY_JSON = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
"""Line breaks json.dumps(ensure_ascii=False) leaves raw: escaped, so a line stays one line
for every splitter (str.splitlines breaks at them)."""


def short_class(class_name: str) -> str:
    return bare(class_name.rsplit(".", 1)[-1] or "?")


def short_resource_id(resource_id: str) -> str:
    return bare(resource_id.split(":id/", 1)[1] if ":id/" in resource_id else resource_id)


def bare(token: str) -> str:
    """A class name or resource id as one token of its line: as it is, or quoted when it
    holds a blank, a quote or a line break (the app names these: a class name or a Compose
    test tag could otherwise forge another element's line)."""
    if token.isprintable() and '"' not in token and not any(c.isspace() for c in token):
        return token
    return quoted(token)


def quoted(text: str, limit: int = MAX_TEXT) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return json.dumps(text, ensure_ascii=False).translate(_LEFT_RAW_BY_JSON)


def bounds_text(element: UiElement) -> str:
    b = element.bounds
    return f"[{b.left},{b.top}][{b.right},{b.bottom}]"


def flags(element: UiElement) -> list[str]:
    found = [
        name
        for name, on in (
            ("click", element.clickable),
            ("long", element.long_clickable),
            ("scroll", element.scrollable),
        )
        if on
    ]
    if element.checkable:
        found.append("checked" if element.checked else "unchecked")
    found += [
        name
        for name, on in (
            ("focused", element.focused),
            ("selected", element.selected),
            ("disabled", not element.enabled),
            ("password", element.password),
        )
        if on
    ]
    return found


def element_line(element: UiElement, merged: str | None = None) -> str:
    """The one-line description of an element (``merged``: its children's text)."""
    parts = [element.id, short_class(element.class_name)]
    if element.resource_id:
        parts.append("#" + short_resource_id(element.resource_id))
    if element.text:
        parts.append(quoted(element.text))
    if element.content_desc and element.content_desc != element.text:
        parts.append("desc:" + quoted(element.content_desc))
    if element.hint and element.hint != element.text:
        parts.append("hint:" + quoted(element.hint))
    if merged and not (element.text or element.content_desc):
        parts.append("~" + quoted(merged, MAX_MERGED))
    parts.append(bounds_text(element))
    parts.extend(flags(element))
    return " ".join(parts)


def merged_labels(hierarchy: UiHierarchy) -> dict[str, str]:
    """For each interactive element: the text and descriptions of the plain elements inside
    it (not inside a nested interactive element), in document order."""
    owner: dict[str, str] = {}  # element id -> nearest interactive ancestor-or-self id
    collected: dict[str, list[str]] = {}
    for element in hierarchy.elements:  # parents come before their children
        inherited = owner.get(element.parent_id) if element.parent_id else None
        if element.is_interactive:
            owner[element.id] = element.id
            continue
        if inherited is None:
            continue
        owner[element.id] = inherited
        for value in (element.text, element.content_desc):
            words = collected.setdefault(inherited, [])
            if value and value not in words:
                words.append(value)
    return {key: MERGE_SEPARATOR.join(words) for key, words in collected.items() if words}


def interactive_elements(hierarchy: UiHierarchy) -> list[UiElement]:
    return [element for element in hierarchy.elements if element.is_interactive]


def compact_tree(hierarchy: UiHierarchy, *, interactive_only: bool = True) -> str:
    """The tree as text, one line per element (see the module docstring)."""
    if interactive_only:
        merged = merged_labels(hierarchy)
        lines = [element_line(e, merged.get(e.id)) for e in interactive_elements(hierarchy)]
    else:
        lines = [" " * e.depth + element_line(e) for e in hierarchy.elements]
    return "\n".join(lines)
