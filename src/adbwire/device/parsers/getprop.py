"""``getprop`` output: ``[key]: [value]`` lines, where a value may span several lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from adbwire.device.parsers._text import lines_of

_RECORD_START = re.compile(r"^\[([^\[\]]+)\]: \[(.*)$")


def parse_getprop(text: str) -> dict[str, str]:
    """Parse the output of ``getprop`` (no arguments) into a dict.

    A value that contains newlines continues on the following lines up to the last line that
    ends with ``]`` before the next ``[key]: [`` line. A record that never closes (output cut
    short) is dropped rather than guessed.
    """
    props: dict[str, str] = {}
    key: str | None = None
    parts: list[str] = []

    def close() -> None:
        # Lines after the closing "]" that are not a new record (blank lines, noise) are dropped.
        while parts and not parts[-1].endswith("]"):
            parts.pop()
        if key is not None and parts:
            props[key] = "\n".join(parts)[:-1]

    for line in lines_of(text):
        start = _RECORD_START.match(line)
        if start is not None:
            close()
            key, parts = start.group(1), [start.group(2)]
        elif key is not None:
            parts.append(line)
    close()
    return props


@dataclass(frozen=True)
class DeviceSummary:
    """What the properties say about the device, with ``None`` where a property is missing."""

    model: str | None
    manufacturer: str | None
    brand: str | None
    device: str | None
    android_version: str | None
    sdk: int | None
    abis: tuple[str, ...]
    is_emulator: bool


def summarize_properties(props: dict[str, str]) -> DeviceSummary:
    """Pick out the identity of a device from ``getprop`` properties."""

    def get(key: str) -> str | None:
        value = props.get(key, "").strip()
        return value or None

    abilist = get("ro.product.cpu.abilist")
    if abilist is not None:
        abis = tuple(abi for abi in abilist.split(",") if abi)
    else:  # before Android 5.0 there was one ABI and an optional second one
        abis = tuple(abi for abi in (get("ro.product.cpu.abi"), get("ro.product.cpu.abi2")) if abi)
    sdk_text = get("ro.build.version.sdk")
    return DeviceSummary(
        model=get("ro.product.model"),
        manufacturer=get("ro.product.manufacturer"),
        brand=get("ro.product.brand"),
        device=get("ro.product.device"),
        android_version=get("ro.build.version.release"),
        sdk=int(sdk_text) if sdk_text is not None and sdk_text.isdigit() else None,
        abis=abis,
        is_emulator=get("ro.kernel.qemu") == "1" or get("ro.boot.qemu") == "1",
    )
