"""Events to JSON objects and back: one object per fixture line (see docs/fixtures.md).

Decoding checks each line on its own (types, required keys); `fixture_file` checks how the
lines fit together and adds the file name and line number to every error.
"""

from __future__ import annotations

from typing import Any, Final

from adbwire.wire.recording.events import (
    AUTH_OUTCOMES,
    SIDES,
    AuthSummary,
    Call,
    Close,
    Data,
    End,
    Event,
    FixtureHeader,
    Open,
    Refused,
)
from adbwire.wire.recording.payload import decode_payload, encode_payload

MAGIC_KEY: Final = "adbwire_fixture"
"""The header's first key; its value is the format version."""


class LineError(ValueError):
    """A line is malformed; the message says how (the caller adds file and line)."""


def _hex(value: int | None) -> str | None:
    return None if value is None else f"0x{value:08x}"


def header_to_json(header: FixtureHeader) -> dict[str, Any]:
    return {
        MAGIC_KEY: header.format,
        "origin": header.origin,
        "note": header.note,
        "recorded_at": header.recorded_at,
        "adbwire": header.adbwire_version,
        "transport": header.transport,
        "banner": header.banner,
        "features": list(header.features),
        "device_version": _hex(header.device_version),
        "device_max_payload": header.device_max_payload,
        "version": _hex(header.version),
        "max_payload": header.max_payload,
        "delayed_ack": header.delayed_ack,
        "host_features": list(header.host_features),
        "auth": {
            "outcome": header.auth.outcome,
            "tokens": header.auth.tokens,
            "signatures": header.auth.signatures,
            "public_key_offered": header.auth.public_key_offered,
        },
        "serial_redacted": header.serial_redacted,
    }


def event_to_json(event: Event, service: str = "") -> dict[str, Any]:
    """`service` is the stream's service (it picks the readable form of shell v2 bytes)."""
    if isinstance(event, Open):
        return {"event": "open", "stream": event.stream, "service": event.service}
    if isinstance(event, Refused):
        return {"event": "refused", "stream": event.stream}
    if isinstance(event, Data):
        return {
            "event": event.side,
            "stream": event.stream,
            **encode_payload(event.data, service=service),
        }
    if isinstance(event, Close):
        return {"event": "close", "stream": event.stream, "by": event.by}
    if isinstance(event, End):
        return {"event": "end", "by": event.by, "reason": event.reason}
    return {"event": "call", "call": event.name, "args": event.args, "result": event.result}


# ---------------------------------------------------------------- decoding


def _field(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str = "") -> Any:
    if key not in obj:
        raise LineError(f'missing "{key}"')
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise LineError(f'"{key}" must be {what or getattr(kind, "__name__", kind)}')
    return value


def _optional_int(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            raise LineError(f'"{key}" must be a number, not {value!r}') from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise LineError(f'"{key}" must be a number')
    return value


def _strings(obj: dict[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LineError(f'"{key}" must be a list of strings')
    return tuple(value)


def _auth(obj: object) -> AuthSummary:
    if obj is None:
        return AuthSummary()
    if not isinstance(obj, dict):
        raise LineError('"auth" must be an object')
    outcome = obj.get("outcome", "none")
    if outcome not in AUTH_OUTCOMES:
        raise LineError(f'"auth.outcome" must be one of {", ".join(AUTH_OUTCOMES)}')
    return AuthSummary(
        outcome=outcome,
        tokens=_optional_int(obj, "tokens") or 0,
        signatures=_optional_int(obj, "signatures") or 0,
        public_key_offered=bool(obj.get("public_key_offered", False)),
    )


def header_from_json(obj: dict[str, Any]) -> FixtureHeader:
    """A header whose format version was already checked."""
    banner = obj.get("banner")
    if banner is not None and not isinstance(banner, str):
        raise LineError('"banner" must be a string or null')
    return FixtureHeader(
        origin=_field(obj, "origin", str),
        note=str(obj.get("note", "")),
        adbwire_version=str(obj.get("adbwire", "")),
        transport=str(obj.get("transport", "")),
        recorded_at=str(obj.get("recorded_at", "")),
        banner=banner,
        features=_strings(obj, "features"),
        device_version=_optional_int(obj, "device_version"),
        device_max_payload=_optional_int(obj, "device_max_payload"),
        version=_optional_int(obj, "version"),
        max_payload=_optional_int(obj, "max_payload"),
        delayed_ack=bool(obj.get("delayed_ack", False)),
        host_features=_strings(obj, "host_features"),
        auth=_auth(obj.get("auth")),
        serial_redacted=bool(obj.get("serial_redacted", False)),
        format=_field(obj, MAGIC_KEY, int, "an integer"),
    )


def _side(obj: dict[str, Any], key: str) -> Any:
    value = obj.get(key)
    if value not in SIDES:
        raise LineError(f'"{key}" must be "host" or "device"')
    return value


def _stream(obj: dict[str, Any]) -> int:
    number: int = _field(obj, "stream", int, "a positive integer")
    if number < 1:
        raise LineError('"stream" must be a positive integer')
    return number


def event_from_json(obj: dict[str, Any]) -> Event:
    kind = obj.get("event")
    if kind == "open":
        return Open(_stream(obj), _field(obj, "service", str, "a string"))
    if kind == "refused":
        return Refused(_stream(obj))
    if kind in SIDES:
        try:
            data = decode_payload(obj)
        except ValueError as exc:
            raise LineError(f"corrupted bytes: {exc}") from None
        if not data:
            raise LineError("a data event must carry at least one byte")
        return Data(_stream(obj), kind, data)
    if kind == "close":
        return Close(_stream(obj), _side(obj, "by"))
    if kind == "end":
        return End(_side(obj, "by"), str(obj.get("reason", "")))
    if kind == "call":
        return Call(
            _field(obj, "call", str, "a string"),
            _field(obj, "args", dict, "an object"),
            _field(obj, "result", dict, "an object"),
        )
    raise LineError(f"unknown event {kind!r}")
