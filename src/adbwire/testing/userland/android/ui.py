"""UI hierarchies in the exact format `uiautomator dump` writes, parsed and written back.

Android writes the dump with its XmlSerializer: one line, no trailing newline, attributes in
the dumper's order, `& < > "` as entities, newlines/tabs in attributes and characters beyond
the BMP (emoji) as numeric references (`&#10;`, `&#129401;`), everything else raw UTF-8.
Parsing then serialising a real dump gives back the same bytes.
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_ESCAPES = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\t": "&#9;",
    }
)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
EDIT_TEXT_CLASSES = (
    "android.widget.EditText",
    "android.widget.AutoCompleteTextView",
    "android.widget.MultiAutoCompleteTextView",
)
# Attributes a node needs for uiautomator's element order, in that order.
NODE_ATTRIBUTES = (
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
    "bounds",
)


@dataclass
class UiNode:
    attrs: dict[str, str]  # insertion order is the order written
    children: list[UiNode] = field(default_factory=list)

    def get(self, name: str) -> str:
        return self.attrs.get(name, "")

    def flag(self, name: str) -> bool:
        return self.attrs.get(name) == "true"

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        match = _BOUNDS.fullmatch(self.attrs.get("bounds", ""))
        if match is None:
            return (0, 0, 0, 0)
        left, top, right, bottom = (int(value) for value in match.groups())
        return (left, top, right, bottom)

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    @property
    def is_text_field(self) -> bool:
        return self.get("class") in EDIT_TEXT_CLASSES

    def walk(self) -> Iterator[UiNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class UiTree:
    rotation: str
    roots: list[UiNode]

    def walk(self) -> Iterator[UiNode]:
        for root in self.roots:
            yield from root.walk()

    def copy(self) -> UiTree:
        return copy.deepcopy(self)

    def path_at(self, x: int, y: int) -> list[UiNode]:
        """The chain root..deepest node under (x, y); later siblings are drawn on top."""
        for root in reversed(self.roots):
            if root.contains(x, y):
                chain = [root]
                while True:
                    hit = next((c for c in reversed(chain[-1].children) if c.contains(x, y)), None)
                    if hit is None:
                        return chain
                    chain.append(hit)
        return []

    def focused_field(self) -> UiNode | None:
        return next((n for n in self.walk() if n.is_text_field and n.flag("focused")), None)

    def focus(self, target: UiNode | None) -> None:
        for node in self.walk():
            if "focused" in node.attrs:
                node.attrs["focused"] = "true" if node is target else "false"


def parse_hierarchy(xml: str) -> UiTree:
    root = ET.fromstring(xml)  # noqa: S314 - the scenario's own, trusted asset
    return UiTree(
        root.get("rotation", "0"), [_node(child) for child in root if child.tag == "node"]
    )


def _node(element: ET.Element) -> UiNode:
    return UiNode(dict(element.attrib), [_node(child) for child in element if child.tag == "node"])


def escape_attribute(value: str) -> str:
    escaped = value.translate(_ESCAPES)
    if _ASTRAL.search(escaped):
        escaped = _ASTRAL.sub(lambda m: f"&#{ord(m.group())};", escaped)
    return escaped


def serialize(tree: UiTree) -> str:
    parts = [XML_DECLARATION, f'<hierarchy rotation="{escape_attribute(tree.rotation)}">']
    for root in tree.roots:
        _write(root, parts)
    parts.append("</hierarchy>")
    return "".join(parts)


def _write(node: UiNode, parts: list[str]) -> None:
    attrs = " ".join(f'{name}="{escape_attribute(value)}"' for name, value in node.attrs.items())
    if not node.children:
        parts.append(f"<node {attrs} />")
        return
    parts.append(f"<node {attrs}>")
    for child in node.children:
        _write(child, parts)
    parts.append("</node>")


def compressed(tree: UiTree) -> UiTree:
    """`uiautomator dump --compressed`: drop layout-only nodes, keep what a user can see."""

    def important(node: UiNode) -> bool:
        return bool(node.get("text") or node.get("content-desc") or node.get("resource-id")) or any(
            node.flag(name) for name in ("clickable", "scrollable", "checkable", "long-clickable")
        )

    def keep(node: UiNode) -> list[UiNode]:
        children = [kept for child in node.children for kept in keep(child)]
        if important(node) or not children:
            if not important(node) and not children:
                return []
            clone = UiNode(dict(node.attrs), children)
            for index, child in enumerate(children):
                child.attrs["index"] = str(index)
            return [clone]
        return children

    roots = [kept for root in tree.roots for kept in keep(root)] or copy.deepcopy(tree.roots[:1])
    for index, root in enumerate(roots):
        root.attrs["index"] = str(index)
    return UiTree(tree.rotation, roots)
