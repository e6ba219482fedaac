"""``uiautomator dump`` XML into a flat list of elements with stable ids."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from xml.etree import ElementTree

from adbwire.device.parsers._text import output_error

_COMMAND = "uiautomator dump"
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
# Characters XML 1.0 forbids, raw or as character references; real dumps sometimes carry them.
_BAD_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_CHAR_REF = re.compile(r"&#(x[0-9a-fA-F]+|[0-9]+);")
_FORBIDDEN_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)


@dataclass(frozen=True)
class Bounds:
    """A screen rectangle in device pixels; ``right``/``bottom`` are exclusive."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return max(0, self.right - self.left)

    @property
    def height(self) -> int:
        return max(0, self.bottom - self.top)

    @property
    def center(self) -> tuple[int, int]:
        return (self.left + self.right) // 2, (self.top + self.bottom) // 2

    @property
    def is_empty(self) -> bool:
        return self.width == 0 or self.height == 0

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom


@dataclass(frozen=True)
class UiElement:
    """One node of the UI tree.

    ``id`` is ``e<N>`` with N the node's position in document order, so the same dump always
    gives the same ids and ``hierarchy.elements[N].id == f"e{N}"``. Text fields are ``""``
    when the dump has no such attribute (``hint`` only exists on newer Android versions).
    """

    id: str
    parent_id: str | None
    depth: int
    index: int
    class_name: str
    package: str
    resource_id: str
    text: str
    content_desc: str
    hint: str
    bounds: Bounds
    checkable: bool
    checked: bool
    clickable: bool
    long_clickable: bool
    enabled: bool
    focusable: bool
    focused: bool
    scrollable: bool
    password: bool
    selected: bool
    not_accessibility_friendly: bool

    @property
    def is_interactive(self) -> bool:
        """Whether a user can act on the element itself (tap, long-press, scroll, toggle)."""
        return self.clickable or self.long_clickable or self.scrollable or self.checkable

    @property
    def label(self) -> str:
        """The best human-readable name: text, content description, hint, else resource-id."""
        return self.text or self.content_desc or self.hint or self.resource_id


@dataclass(frozen=True)
class UiHierarchy:
    """A parsed dump: every element in document order, plus the screen rotation."""

    rotation: int | None
    elements: tuple[UiElement, ...]

    def get(self, element_id: str) -> UiElement | None:
        """The element with this id, or ``None``."""
        if not element_id.startswith("e") or not element_id[1:].isdigit():
            return None
        position = int(element_id[1:])
        return self.elements[position] if position < len(self.elements) else None

    def ancestors(self, element: UiElement) -> Iterator[UiElement]:
        """The element's parent, grandparent... up to the root."""
        current = element
        while current.parent_id is not None:
            parent = self.get(current.parent_id)
            if parent is None:
                return
            yield parent
            current = parent

    def children(self, element: UiElement) -> list[UiElement]:
        """The element's direct children, in order."""
        return [child for child in self.elements if child.parent_id == element.id]


def parse_ui_xml(data: str | bytes) -> UiHierarchy:
    """Parse the XML of ``uiautomator dump`` (also Appium-style page sources).

    Text around the XML (``UI hierchary dumped to: ...``) is ignored. Raises
    :class:`~adbwire.errors.DeviceCommandError` when the output is an error message (such as
    ``ERROR: could not get idle state.``), is cut short, is not XML, or declares a DOCTYPE or
    entities (refused, as no real dump has them and they enable entity-expansion attacks).
    """
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    start = text.find("<?xml")
    if start < 0:
        start = text.find("<hierarchy")
    if start < 0:
        raise output_error(_COMMAND, "no UI hierarchy in the output", text)
    end = text.rfind("</hierarchy>")
    if end < 0:
        raise output_error(_COMMAND, "the UI hierarchy XML is cut short", text[start:][-200:])
    document = text[start : end + len("</hierarchy>")]
    if _FORBIDDEN_DECLARATION.search(document):
        raise output_error(_COMMAND, "refusing XML with a DOCTYPE or entity declaration")
    document = _CHAR_REF.sub(_drop_forbidden_reference, _BAD_CHARS.sub("", document))
    try:
        # Safe here: DOCTYPE and ENTITY declarations were refused above, and without them
        # expat can neither expand entities nor fetch external resources.
        root = ElementTree.fromstring(document)  # noqa: S314
    except ElementTree.ParseError as exc:
        raise output_error(_COMMAND, f"the UI hierarchy is not valid XML ({exc})") from None
    rotation = root.get("rotation")
    return UiHierarchy(
        rotation=int(rotation) if rotation is not None and rotation.isdigit() else None,
        elements=tuple(_flatten(root)),
    )


def _drop_forbidden_reference(match: re.Match[str]) -> str:
    body = match.group(1)
    code = int(body[1:], 16) if body[0] == "x" else int(body)
    allowed = code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0x10FFFF
    return match.group(0) if allowed and code not in (0xFFFE, 0xFFFF) else ""


def _flatten(root: ElementTree.Element) -> Iterator[UiElement]:
    # Iterative pre-order walk: real trees can be deeper than Python's recursion limit.
    stack: list[tuple[ElementTree.Element, str | None, int]] = [
        (child, None, 0) for child in reversed(list(root))
    ]
    count = 0
    while stack:
        node, parent_id, depth = stack.pop()
        element_id = f"e{count}"
        count += 1
        yield _element(node, element_id, parent_id, depth)
        stack.extend((child, element_id, depth + 1) for child in reversed(list(node)))


def _element(
    node: ElementTree.Element, element_id: str, parent_id: str | None, depth: int
) -> UiElement:
    attrs = node.attrib

    def flag(name: str) -> bool:
        return attrs.get(name) == "true"

    bounds = _BOUNDS.fullmatch(attrs.get("bounds", "").strip())
    index = attrs.get("index", "")
    return UiElement(
        id=element_id,
        parent_id=parent_id,
        depth=depth,
        index=int(index) if index.isdigit() else 0,
        class_name=attrs.get("class") or ("" if node.tag == "node" else node.tag),
        package=attrs.get("package", ""),
        resource_id=attrs.get("resource-id", ""),
        text=attrs.get("text", ""),
        content_desc=attrs.get("content-desc", ""),
        hint=attrs.get("hint", ""),
        bounds=Bounds(*(int(v) for v in bounds.groups())) if bounds else Bounds(0, 0, 0, 0),
        checkable=flag("checkable"),
        checked=flag("checked"),
        clickable=flag("clickable"),
        long_clickable=flag("long-clickable"),
        enabled=flag("enabled"),
        focusable=flag("focusable"),
        focused=flag("focused"),
        scrollable=flag("scrollable"),
        password=flag("password"),
        selected=flag("selected"),
        not_accessibility_friendly=flag("NAF"),
    )
