"""``dumpsys notification --noredact``: the posted notifications, one record each.

A record starts ``NotificationRecord(0x…: pkg=P user=UserHandle{U} id=N tag=T [importance=I]
key=K: Notification(channel=C shortcut=…``; its indented body holds ``key=``, ``flags=``,
``when=`` (``when=MS`` or ``when=MS/MS`` on Android 16) and ``extras={ android.title=String
(…) … }``. Without ``--noredact`` (or on builds that ignore it) texts read
``String [length=11]``: the title is then None and ``redacted`` says why. Only the records of
the "Notification List" section are read (the archive and snoozed lists follow it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from adbwire.device.parsers._text import indent_of, lines_of

MAX_TEXT = 2000
_HEADER = re.compile(
    r"^\s*NotificationRecord\(0x[0-9a-fA-F]+:? pkg=(?P<pkg>\S+) user=UserHandle\{(?P<user>-?\d+)\}"
    r" id=(?P<id>-?\d+) tag=(?P<tag>.*?)(?: importance=(?P<importance>-?\d+))?"
    r"(?: key=(?P<key>\S+?))?(?:: Notification\((?P<rest>.*))?$"
)
_CHANNEL_IN_HEADER = re.compile(r"^channel=(.*?) (?:shortcut|contentView|pri)=")
_CHANNEL_ID = re.compile(r"\bmId='(.*?)'")
_WHEN = re.compile(r"^\s*when=(\d+)")
_CREATED = re.compile(r"^\s*mCreationTimeMs=(\d+)")
_FLAGS = re.compile(r"^\s*flags=(\S+)")
_EXTRA = re.compile(r"^\s*(android\.(?:title|text|bigText)|android\.title\.big)=(.*)$")
_TYPED = re.compile(r"^(\w+) \((.*)$", re.DOTALL)
_REDACTED = re.compile(r"^\w+ \[length=\d+\]$")
_SECTION_END = re.compile(r"^\s*(?:m[A-Z]\w*=|[A-Z][\w ]*:$)")
FLAG_ONGOING = 0x2


@dataclass(frozen=True)
class Notification:
    package: str
    key: str
    channel: str | None
    title: str | None
    text: str | None
    time: str | None
    """When it was posted (the app's ``when``, else the record's creation), ISO 8601 UTC."""
    ongoing: bool | None
    redacted: bool
    """The device hid the texts (``String [length=N]``)."""


def parse_notifications(text: str) -> list[Notification]:
    lines = lines_of(text)
    start = next((i for i, line in enumerate(lines) if line.strip() == "Notification List:"), None)
    section_indent = indent_of(lines[start]) if start is not None else -1
    records: list[list[str]] = []
    for line in lines[(start + 1) if start is not None else 0 :]:
        if start is not None and indent_of(line) <= section_indent and _SECTION_END.match(line):
            break  # (a text's own lines can start at column 0: only known fields end it)
        if _HEADER.match(line):
            records.append([line])
        elif records:
            records[-1].append(line)
    return [record for record in map(_record, records) if record is not None]


def _record(lines: list[str]) -> Notification | None:
    header = _HEADER.match(lines[0])
    if header is None:
        return None
    body = lines[1:]
    key = header["key"] or _body_value(body, "key") or ""
    extras, redacted = _extras(body)
    when = _first_int(_WHEN, body) or _first_int(_CREATED, body)
    return Notification(
        package=header["pkg"],
        key=key,
        channel=_channel(header["rest"] or "", body),
        title=extras.get("android.title.big") or extras.get("android.title"),
        text=extras.get("android.bigText") or extras.get("android.text"),
        time=_iso(when),
        ongoing=_ongoing(_body_value(body, "flags")),
        redacted=redacted,
    )


def _body_value(body: list[str], name: str) -> str | None:
    prefix = f"{name}="
    for line in body:
        stripped = line.strip()
        if stripped.startswith(prefix):
            return stripped[len(prefix) :]
    return None


def _channel(rest: str, body: list[str]) -> str | None:
    for line in body:
        if "NotificationChannel{" in line:
            match = _CHANNEL_ID.search(line)
            if match:
                return match.group(1)
    match = _CHANNEL_IN_HEADER.match(rest)
    if match and match.group(1) != "null":
        return match.group(1)
    return None


def _extras(body: list[str]) -> tuple[dict[str, str], bool]:
    """The title and text extras (their values joined across lines when they hold line
    breaks), and whether any of them was redacted."""
    found: dict[str, str] = {}
    redacted = False
    index = 0
    while index < len(body):
        match = _EXTRA.match(body[index])
        index += 1
        if match is None:
            continue
        name, raw = match.group(1), match.group(2)
        if raw == "null":
            continue
        if _REDACTED.match(raw):
            redacted = True
            continue
        typed = _TYPED.match(raw)
        if typed is None:
            found[name] = raw[:MAX_TEXT]
            continue
        value = typed.group(2)
        depth = indent_of(body[index - 1])
        while not value.endswith(")") and index < len(body) and len(value) < MAX_TEXT:
            following = body[index]
            if following.strip() and indent_of(following) <= depth and "=" in following:
                break  # the next extra: this value's ")" was lost
            value += "\n" + following
            index += 1
        found[name] = value.removesuffix(")")[:MAX_TEXT]
    return found, redacted


def _first_int(pattern: re.Pattern[str], body: list[str]) -> int | None:
    for line in body:
        match = pattern.match(line)
        if match:
            value = int(match.group(1))
            return value or None
    return None


def _iso(epoch_ms: int | None) -> str | None:
    if epoch_ms is None or not 0 < epoch_ms < 10**14:
        return None
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ongoing(flags: str | None) -> bool | None:
    """``flags=0x62`` (hex, up to Android 15) or ``flags=ONGOING_EVENT|NO_CLEAR`` (names)."""
    if flags is None:
        return None
    if flags.startswith("0x"):
        try:
            return bool(int(flags, 16) & FLAG_ONGOING)
        except ValueError:
            return None
    return "ONGOING_EVENT" in flags.split("|")
