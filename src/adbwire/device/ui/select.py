"""Finding elements: selectors, the matching order, and where a tap should land.

A selector names an element by its resource-id or Compose test tag (``id``), its content
description (``desc``), its text (``text``) or its hint (``hint``). With ``by="auto"`` those
fields are tried in that order and the first that matches anything wins, so a query for
"Save" finds the button whose id is ``save`` before a paragraph that mentions saving. A
selector can instead name an element id from a recent read (``element="e12"``), and can be
scoped to the subtree of an element (``within="e9"``). As one string (``parse_query``), a
query names its field with a prefix (``id:save_button``, ``desc:Back``, ``text:Save``,
``hint:Title``), and ``e12`` names an element.

Matching is ``exact`` (whole value, surrounding whitespace ignored; for resource-ids the
part after ``:id/`` is enough), ``contains`` (case-insensitive) or ``regex`` (Python
``re.search``, case-sensitive). When nothing matches, ``suggest`` names the closest labels
on the screen (similar spelling, or containing the query), so a caller can retry.

One element model for every tool: a match is resolved to what a user would act on —
``tap_target`` (the nearest clickable ancestor) for touches, ``state_element`` (the
element itself when checkable, else its touch target or the one checkable control in it)
for checked/enabled checks — and matches that resolve to the same element count as one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from adbwire.device.parsers import Bounds, UiElement, UiHierarchy
from adbwire.device.ui.compact import element_line
from adbwire.device.ui.errors import AmbiguousMatchError, NoMatchError, StaleElementError
from adbwire.errors import UsageError

By = Literal["auto", "id", "desc", "text", "hint"]
MatchMode = Literal["exact", "contains", "regex"]
AUTO_ORDER: tuple[By, ...] = ("id", "desc", "text", "hint")
MAX_QUERY = 500
MAX_REGEX = 200
MAX_CANDIDATES = 10
MAX_SUGGESTIONS = 5
_SEARCHED_CHARS = 2000  # a regex never runs over more than this much of a value
_ELEMENT_ID = re.compile(r"^e\d{1,6}$")


@dataclass(frozen=True)
class Selector:
    query: str | None = None
    by: By = "auto"
    match: MatchMode = "exact"
    within: str | None = None
    """Only elements inside this element (an id such as ``e9``)."""
    element: str | None = None
    """An element id from a recent read, instead of a query."""

    def __post_init__(self) -> None:
        if (self.query is None) == (self.element is None):
            raise UsageError("give either a query (label, id, text...) or an element id")
        if self.query is not None and not 0 < len(self.query) <= MAX_QUERY:
            raise UsageError(f"the query must be 1..{MAX_QUERY} characters")
        for name, value in (("element", self.element), ("within", self.within)):
            if value is not None and not _ELEMENT_ID.match(value):
                raise UsageError(f"{name} must be an element id such as 'e12', not {value!r}")
        if self.match == "regex" and self.query is not None:
            if len(self.query) > MAX_REGEX:
                raise UsageError(f"a regex may be at most {MAX_REGEX} characters")
            try:
                re.compile(self.query)
            except re.error as exc:
                raise UsageError(f"invalid regex {self.query!r}: {exc}") from None

    def describe(self) -> str:
        if self.element is not None:
            target = f"element {self.element}"
        else:
            how = "" if self.match == "exact" else f" ({self.match})"
            field = "any of id/desc/text/hint" if self.by == "auto" else self.by
            target = f"{field} = {self.query!r}{how}"
        return target + (f" within {self.within}" if self.within else "")


def parse_query(query: str, match: MatchMode = "exact", within: str | None = None) -> Selector:
    """The selector a single query string names.

    ``e12`` is an element id; ``id:save``, ``desc:Back``, ``text:Save``, ``hint:Title`` name
    the field; anything else is matched on every field in the auto order. A label that
    really looks like one of those forms is found with ``text:`` in front of it.
    """
    if _ELEMENT_ID.match(query):
        return Selector(element=query, match=match, within=within)
    field, colon, rest = query.partition(":")
    if colon and rest and field in AUTO_ORDER:
        return Selector(rest, field, match, within)
    return Selector(query, "auto", match, within)


@dataclass(frozen=True)
class Matches:
    elements: tuple[UiElement, ...]
    matched_by: str | None
    """Which field matched: id, desc, text, hint, or element; None when nothing did."""


def _value(element: UiElement, field: By) -> str:
    return {
        "id": element.resource_id,
        "desc": element.content_desc,
        "text": element.text,
        "hint": element.hint,
    }.get(field, "")


def _matcher(selector: Selector, field: By) -> Callable[[str], bool]:
    query = selector.query or ""
    if selector.match == "regex":
        pattern = re.compile(query)
        return lambda value: pattern.search(value[:_SEARCHED_CHARS]) is not None
    if selector.match == "contains":
        folded = query.casefold()
        return lambda value: folded in value.casefold()
    wanted = query.strip()
    if field == "id":
        return lambda value: value == wanted or value.endswith(":id/" + wanted)
    return lambda value: value.strip() == wanted


def find(hierarchy: UiHierarchy, selector: Selector) -> Matches:
    """Every element the selector matches, in document order (none is not an error here)."""
    scope = _scope(hierarchy, selector.within)
    if selector.element is not None:
        found = hierarchy.get(selector.element)
        if found is None or (selector.within and found not in scope):
            return Matches((), None)
        return Matches((found,), "element")
    fields = AUTO_ORDER if selector.by == "auto" else (selector.by,)
    for field in fields:
        test = _matcher(selector, field)
        hits = tuple(e for e in scope if (value := _value(e, field)) and test(value))
        if hits:
            return Matches(hits, field)
    return Matches((), None)


def _scope(hierarchy: UiHierarchy, within: str | None) -> Sequence[UiElement]:
    if within is None:
        return hierarchy.elements
    parent = hierarchy.get(within)
    if parent is None:
        raise NoMatchError(f"no element {within} on the screen", selector=f"within {within}")
    return [e for e in hierarchy.elements if parent in hierarchy.ancestors(e)]


def tap_target(
    hierarchy: UiHierarchy, element: UiElement, *, long_press: bool = False
) -> UiElement:
    """The element a tap on ``element`` reaches: itself or its nearest clickable ancestor
    (for a long press: long-clickable first, then clickable), else the element itself."""
    chain = [element, *hierarchy.ancestors(element)]
    tests: list[Callable[[UiElement], bool]] = [lambda e: e.clickable]
    if long_press:
        tests.insert(0, lambda e: e.long_clickable)
    for test in tests:
        for candidate in chain:
            if test(candidate) and not candidate.bounds.is_empty:
                return candidate
    return element


def state_element(hierarchy: UiHierarchy, element: UiElement) -> UiElement:
    """The element whose state (checked, enabled) a check on ``element`` reads: itself when
    checkable, else its touch target when that is checkable, else the one checkable
    control inside the touch target (a settings row's switch), else the touch target."""
    if element.checkable:
        return element
    target = tap_target(hierarchy, element)
    if target.checkable:
        return target
    inside = [
        e
        for e in hierarchy.elements
        if e.checkable and target in hierarchy.ancestors(e) and not e.bounds.is_empty
    ]
    return inside[0] if len(inside) == 1 else target


def labels(element: UiElement) -> list[str]:
    return [v.strip() for v in (element.text, element.content_desc, element.hint) if v.strip()]


def suggest(hierarchy: UiHierarchy, selector: Selector) -> list[str]:
    """Up to ``MAX_SUGGESTIONS`` labels on the screen close to the query: containing it
    (case-insensitive), then similar in spelling; none for an element id or a regex."""
    if selector.query is None or selector.match == "regex":
        return []
    query = selector.query.strip().casefold()
    if not query:
        return []
    shown = [e for e in _scope(hierarchy, selector.within) if not e.bounds.is_empty]
    seen = list(dict.fromkeys(label for e in shown for label in labels(e)))
    near = [label for label in seen if query in label.casefold()]
    folded = {label.casefold()[:200]: label for label in seen}
    close = difflib.get_close_matches(query, list(folded), n=MAX_SUGGESTIONS, cutoff=0.6)
    near += [folded[c] for c in close if folded[c] not in near]
    return near[:MAX_SUGGESTIONS]


def no_match(hierarchy: UiHierarchy, selector: Selector) -> NoMatchError:
    """The error for a selector that matches nothing, with the closest labels."""
    found = suggest(hierarchy, selector)
    hint = f"; closest labels: {', '.join(repr(s) for s in found)}" if found else ""
    return NoMatchError(
        f"nothing on screen matches {selector.describe()}{hint}",
        selector=selector.describe(),
        suggestions=found,
    )


def tap_point(element: UiElement, target: UiElement) -> tuple[int, int]:
    """Where to touch: the centre of the part of ``element`` inside ``target``."""
    a, b = element.bounds, target.bounds
    overlap = Bounds(
        max(a.left, b.left), max(a.top, b.top), min(a.right, b.right), min(a.bottom, b.bottom)
    )
    return overlap.center if not overlap.is_empty else b.center


@dataclass(frozen=True)
class Resolved:
    """One matched element, the element a touch reaches, and the point to touch."""

    element: UiElement
    target: UiElement
    point: tuple[int, int]
    matched_by: str


def resolve_one(
    hierarchy: UiHierarchy, selector: Selector, *, long_press: bool = False
) -> Resolved:
    """Exactly one element to act on, or an error that acts on nothing.

    Matches that lead to the same touch target (a label and its row) count as one. No
    match raises :class:`NoMatchError`; several raise :class:`AmbiguousMatchError` listing
    the candidates (ids, labels, bounds) so the caller can narrow the selector.
    """
    matches = find(hierarchy, selector)
    if not matches.elements or matches.matched_by is None:
        raise no_match(hierarchy, selector)
    by_target: dict[str, tuple[UiElement, UiElement]] = {}
    for element in matches.elements:
        target = tap_target(hierarchy, element, long_press=long_press)
        by_target.setdefault(target.id, (element, target))
    if len(by_target) > 1:
        shown = [element for element, _ in by_target.values()]
        listing = "; ".join(element_line(e) for e in shown[:MAX_CANDIDATES])
        more = f" (and {len(shown) - MAX_CANDIDATES} more)" if len(shown) > MAX_CANDIDATES else ""
        raise AmbiguousMatchError(
            f"{len(shown)} elements match {selector.describe()}; nothing was done. "
            f"Narrow it (an element id, within, or an exact query): {listing}{more}",
            candidates=shown,
        )
    element, target = next(iter(by_target.values()))
    if target.bounds.is_empty:
        raise NoMatchError(
            f"{element.id} matches {selector.describe()} but has no area on screen",
            selector=selector.describe(),
        )
    return Resolved(element, target, tap_point(element, target), matches.matched_by)


def identity(element: UiElement) -> tuple[object, ...]:
    """What must stay the same for an element id to still mean the same element: its kind,
    id, place and position in the tree, and its text unless it is a field one types into."""
    editable = element.class_name.endswith(("EditText", "AutoCompleteTextView"))
    words = ("", "") if editable else (element.text, element.content_desc)
    b = element.bounds
    return (element.class_name, element.resource_id, b, element.depth, element.parent_id, words)


def check_fresh(
    previous: UiHierarchy | None, current: UiHierarchy, element_ids: Sequence[str | None]
) -> None:
    """Refuse element ids read from an earlier screen that no longer shows that element."""
    if previous is None:
        return
    for element_id in element_ids:
        if element_id is None:
            continue
        before, now = previous.get(element_id), current.get(element_id)
        if before is not None and (now is None or identity(before) != identity(now)):
            raise StaleElementError(
                f"{element_id} was read from an earlier screen and the screen has changed "
                "since; read the UI again (ui_tree or find_elements) and use the new id"
            )
