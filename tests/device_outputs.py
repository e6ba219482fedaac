"""Real device output: what phones and emulators printed, kept in tests/data/device_outputs.

Each file's origin is in tests/data/device_outputs/SOURCES.md. The files ship with the
repository, so a missing one is an error in the checkout, never a reason to skip.
"""

from __future__ import annotations

from pathlib import Path

DEVICE_OUTPUTS = Path(__file__).resolve().parent / "data" / "device_outputs"


def device_output_path(relative: str) -> Path:
    path = DEVICE_OUTPUTS / relative
    if not path.is_file():
        raise FileNotFoundError(f"device output {relative} is missing from {DEVICE_OUTPUTS}")
    return path


def device_output_bytes(relative: str) -> bytes:
    return device_output_path(relative).read_bytes()


def device_output(relative: str) -> str:
    return device_output_bytes(relative).decode("utf-8")


def ui_dump_names() -> list[str]:
    return sorted(path.name for path in (DEVICE_OUTPUTS / "uiautomator_dump").glob("*.xml"))
