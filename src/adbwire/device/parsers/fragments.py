"""``dumpsys activity PACKAGE``: the fragments an app's activity holds.

The app process writes this dump itself: one ``ACTIVITY pkg/.Cls hash pid=N`` block per
activity, with ``Local Activity ... State:`` (``mResumed=``) and, when the activity hosts
fragments, its FragmentManager's dump: ``Active Fragments:`` (each fragment's toString,
then its fields one level deeper, a ``Child FragmentManager`` dump inside) and ``Added
Fragments:`` (``#0: HomeFragment{a1b2c3} (uuid id=0x7f0a0160 tag=home)``). AndroidX,
the support library and the platform's android.app fragments all print this layout; the
fragment toString differs (``Name{hash} (who id=... tag=...)`` vs ``Name{hash #0 id=...
tag}``) and both are read.

An activity without any fragment manager section (a Compose-only or plain-View screen)
yields no fragments and ``fragment_host=False``: "not available", not "no fragments".

No real device dump of this section was found to test against (public repositories hold
the dump code, not its output): the layout read here is the one AndroidX's FragmentManager
and FragmentStore dump code prints, which the simulator reproduces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import indent_of, lines_of

_ACTIVITY = re.compile(r"^(\s*)ACTIVITY\s+(\S+/\S+)\s+[0-9a-f]+(?:\s+pid=(\d+|\(not running\)))?")
_ADDED_ENTRY = re.compile(r"^\s*#\d+:\s+(.+?)\s*$")
_FRAGMENT_TEXT = re.compile(r"^([A-Za-z_$][\w$.]*)\{[0-9a-f]+(?:[^}]*)\}(?:\s+\((.*)\))?$")
_ID = re.compile(r"\bid=(0x[0-9a-f]+)")
_NEW_TAG = re.compile(r"\btag=(\S+)")
_OLD_TAG = re.compile(r"\{[0-9a-f]+ #\d+(?: id=0x[0-9a-f]+)? (\S+)\}")
_FLAG = re.compile(r"\b(mHidden|mAdded|mDetached|mResumed)=(true|false)")
_STATE = re.compile(r"\bmState=(-?\d+)")
_HOST_MARKERS = ("Local FragmentActivity", "Active Fragments", "Added Fragments")


@dataclass(frozen=True)
class FragmentInfo:
    name: str
    """The fragment's class (its simple name, as its toString prints it)."""
    fragment_id: str | None
    tag: str | None
    hidden: bool | None
    state: int | None
    """The FragmentManager's state number (AndroidX: 7 resumed, 5 started; android.app and
    the old support library: 5 resumed, 4 started)."""
    depth: int
    """0 for the activity's own fragments, 1 for their children (a NavHostFragment's
    destination), and so on."""
    parent: str | None


@dataclass(frozen=True)
class ActivityFragments:
    component: str
    pid: int | None
    resumed: bool | None
    fragment_host: bool
    """The activity printed a fragment manager: False means fragments are not available
    here (a Compose-only or plain-View screen), not that the list is empty."""
    fragments: tuple[FragmentInfo, ...]


def parse_activity_fragments(text: str) -> list[ActivityFragments]:
    """Every ACTIVITY block of the dump, in order."""
    lines = lines_of(text)
    starts = [i for i, line in enumerate(lines) if _ACTIVITY.match(line)]
    blocks = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(lines)
        blocks.append(_block(lines[start:end]))
    return blocks


def resumed_activity(blocks: list[ActivityFragments]) -> ActivityFragments | None:
    """The block of the resumed activity, else the last one printed."""
    resumed = [block for block in blocks if block.resumed]
    if resumed:
        return resumed[0]
    return blocks[-1] if blocks else None


def _block(lines: list[str]) -> ActivityFragments:
    head = _ACTIVITY.match(lines[0])
    assert head is not None
    pid = head.group(3)
    resumed: bool | None = None
    for line in lines[1:]:
        if "mResumed=" in line and "Local " not in line:
            found = _FLAG.search(line[line.index("mResumed=") :])
            if found is not None and resumed is None:
                resumed = found.group(2) == "true"
    host = any(marker in line for line in lines for marker in _HOST_MARKERS)
    return ActivityFragments(
        component=head.group(2),
        pid=int(pid) if pid and pid.isdigit() else None,
        resumed=resumed,
        fragment_host=host,
        fragments=tuple(_added_fragments(lines)),
    )


def _added_fragments(lines: list[str]) -> list[FragmentInfo]:
    details = _active_details(lines)
    found: list[FragmentInfo] = []
    seen: set[str] = set()
    # The fragments whose dump is open at a line: (indent, toString) of each enclosing one.
    enclosing: list[tuple[int, str]] = []
    added_indent: int | None = None
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        indent = indent_of(line)
        if stripped == "Added Fragments:":
            added_indent = indent
            while enclosing and enclosing[-1][0] >= indent:
                enclosing.pop()
            continue
        if added_indent is not None:
            entry = _ADDED_ENTRY.match(line)
            if entry is not None and indent > added_indent:
                text = entry.group(1)
                parsed = _fragment(text, details.get(text), enclosing)
                if parsed is not None and text not in seen:
                    seen.add(text)
                    found.append(parsed)
                continue
            added_indent = None
        text = _fragment_text(stripped)
        if text is not None and text in details:
            while enclosing and enclosing[-1][0] >= indent:
                enclosing.pop()
            enclosing.append((indent, text))
    return sorted(found, key=lambda fragment: fragment.depth)  # the activity's own first


def _active_details(lines: list[str]) -> dict[str, dict[str, str]]:
    """toString -> the fields printed under it in ``Active Fragments`` sections."""
    details: dict[str, dict[str, str]] = {}
    sections: list[int] = []  # indents of the open "Active Fragments" headers
    fragments: list[tuple[int, str]] = []  # open fragment dumps: (indent, toString)
    for line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        indent = indent_of(line)
        while fragments and fragments[-1][0] >= indent:
            fragments.pop()
        while sections and sections[-1] > indent:
            sections.pop()
        if stripped.startswith("Active Fragments"):
            while sections and sections[-1] >= indent:
                sections.pop()
            sections.append(indent)
            continue
        text = _fragment_text(stripped)
        first_level = sections and (
            indent == sections[-1] or (stripped.startswith("#") and not fragments)
        )
        if text is not None and first_level:
            fragments.append((indent, text))
            details.setdefault(text, {})
            continue
        if sections and indent == sections[-1]:
            sections.pop()  # "Added Fragments:", "Back Stack ...": the list is over
        if fragments:
            fields = details[fragments[-1][1]]
            for name, value in _FLAG.findall(stripped):
                fields.setdefault(name, value)
            state = _STATE.search(stripped)
            if state is not None:
                fields.setdefault("mState", state.group(1))
    return details


def _fragment_text(stripped: str) -> str | None:
    """The toString on a fragment's line (``Name{...} (...)`` or ``#0: Name{...}``)."""
    entry = _ADDED_ENTRY.match(stripped)
    text = entry.group(1) if entry is not None else stripped
    return text if _FRAGMENT_TEXT.match(text) else None


def _fragment(
    text: str, fields: dict[str, str] | None, enclosing: list[tuple[int, str]]
) -> FragmentInfo | None:
    match = _FRAGMENT_TEXT.match(text)
    if match is None:
        return None
    fields = fields or {}
    fragment_id = _ID.search(text)
    tag = _NEW_TAG.search(match.group(2) or "") or _OLD_TAG.search(text)
    state = fields.get("mState")
    hidden = fields.get("mHidden")
    return FragmentInfo(
        name=match.group(1).rsplit(".", 1)[-1],
        fragment_id=fragment_id.group(1) if fragment_id else None,
        tag=tag.group(1) if tag else None,
        hidden=None if hidden is None else hidden == "true",
        state=int(state) if state is not None else None,
        depth=len(enclosing),
        parent=_name_of(enclosing[-1][1]) if enclosing else None,
    )


def _name_of(text: str) -> str:
    match = _FRAGMENT_TEXT.match(text)
    return match.group(1).rsplit(".", 1)[-1] if match else text
