"""The audit log: one JSON line per tool call, rotated by size.

Each line holds: time, client (name/version from initialize), tool, arguments, device,
outcome, error code, duration and the confirmation decision. Long argument strings are
shortened; nothing from the device's output is written. The default file lives under the
user's state directory (``$XDG_STATE_HOME/adbwire`` or ``~/.local/state/adbwire``;
``%LOCALAPPDATA%\\adbwire`` on Windows), created private to the user.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 5 * 1024 * 1024
DEFAULT_BACKUPS = 3
MAX_ARGUMENT_CHARS = 500


def state_dir() -> Path:
    """The per-user directory for adbwire's own files (audit log, HTTP token)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    else:
        xdg = os.environ.get("XDG_STATE_HOME")
        base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "adbwire"


def ensure_private_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


@dataclass(frozen=True)
class AuditRecord:
    time: str
    client: str | None
    tool: str
    arguments: dict[str, Any]
    device: str | None
    outcome: str
    """ok, error, awaiting_confirmation or cancelled."""
    error_code: str | None
    duration_ms: int
    confirmation: str
    """not_needed, approved, preapproved, declined, cancelled, no_answer, unsupported, timeout."""


REDACTED = "<redacted>"


def redact_secrets(arguments: Mapping[str, Any], secret: Collection[str]) -> dict[str, Any]:
    """The arguments with the values of secret ones (typed text, a pairing code) replaced."""
    return {key: REDACTED if key in secret else value for key, value in arguments.items()}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def shorten_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    def shorten(value: Any) -> Any:
        if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            return value[:MAX_ARGUMENT_CHARS] + f"...(+{len(value) - MAX_ARGUMENT_CHARS} chars)"
        if isinstance(value, list):
            return [shorten(item) for item in value[:50]]
        if isinstance(value, dict):
            return {str(k): shorten(v) for k, v in list(value.items())[:50]}
        return value

    return {str(key): shorten(value) for key, value in arguments.items()}


class AuditLog:
    """Appends records to a JSONL file; rotates to .1 ... .N when it grows past max_bytes."""

    def __init__(
        self,
        path: Path | None,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        backups: int = DEFAULT_BACKUPS,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()
        self._warned = False

    def write(self, record: AuditRecord) -> None:
        if self.path is None:
            return
        fields = asdict(record)
        fields["arguments"] = shorten_arguments(record.arguments)
        line = json.dumps(fields, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"
        data = line.encode("utf-8")
        with self._lock:
            try:
                self._rotate_if_needed(len(data))
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError as exc:
                if not self._warned:  # an audit failure must never fail the tool call
                    log.error("cannot write the audit log %s: %s", self.path, exc)
                    self._warned = True

    def _rotate_if_needed(self, incoming: int) -> None:
        assert self.path is not None
        ensure_private_dir(self.path.parent)
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size + incoming <= self.max_bytes:
            return
        for index in range(self.backups - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{index}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{index + 1}"))
        if self.backups > 0:
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        else:
            self.path.unlink()
