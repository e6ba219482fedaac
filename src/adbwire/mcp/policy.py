"""The operator's policy: which tools exist, which devices and paths they may touch.

It comes from a TOML file (``--policy``) and the command line; flags win over the file. A
tool the policy turns off is never registered, so a client cannot list or call it; the
``adbwire://policy`` resource says what is off and why. Unknown keys in the file are an
error, so a typo cannot silently weaken the policy.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

from adbwire.device import validate
from adbwire.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]


class Risk(str, Enum):
    READ = "read"
    ACTION = "action"
    DESTRUCTIVE = "destructive"


PROFILES: dict[str, frozenset[Risk]] = {
    "read-only": frozenset({Risk.READ}),
    "standard": frozenset({Risk.READ, Risk.ACTION}),
    "full": frozenset({Risk.READ, Risk.ACTION, Risk.DESTRUCTIVE}),
}
DEFAULT_DEVICE_PATHS = ("/sdcard", "/storage", "/data/local/tmp")
DEFAULT_MAX_TRANSFER = 100 * 1024 * 1024
DEFAULT_CONFIRM_TIMEOUT = 120.0


@dataclass(frozen=True)
class Policy:
    profile: str = "standard"
    allow_tools: frozenset[str] = frozenset()
    deny_tools: frozenset[str] = frozenset()
    allow_destructive: bool = False
    """Destructive calls run without asking (the operator consented for the whole session)."""
    confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT
    allowed_devices: frozenset[str] = frozenset()
    """Empty means any device."""
    emulators_only: bool = False
    local_root: Path | None = None
    device_paths: tuple[str, ...] = DEFAULT_DEVICE_PATHS
    max_transfer_bytes: int = DEFAULT_MAX_TRANSFER
    sources: tuple[str, ...] = field(default=(), compare=False)
    """Where the settings came from (file path, 'command line'), for the policy resource."""

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise UsageError(f"unknown profile {self.profile!r}; use {', '.join(PROFILES)}")
        if not 0 < self.confirm_timeout <= 3600:
            raise UsageError("confirm timeout must be within 0..3600 seconds")
        if self.max_transfer_bytes <= 0:
            raise UsageError("the transfer size cap must be positive")
        for path in self.device_paths:
            if validate.device_path(path) != path:
                raise UsageError(f"device path {path!r} must be written normalised")

    def tool_state(self, name: str, risk: Risk) -> tuple[bool, str]:
        """Whether a tool exists under this policy, and why."""
        if name in self.deny_tools:
            return False, "denied by name"
        if name in self.allow_tools:
            return True, "allowed by name"
        if risk in PROFILES[self.profile]:
            return True, f"profile {self.profile}"
        return False, f"profile {self.profile} leaves out {risk.value} tools"


_TOP_KEYS = {
    "profile",
    "allow_tools",
    "deny_tools",
    "allow_destructive",
    "confirm_timeout_seconds",
    "devices",
    "files",
}
_DEVICE_KEYS = {"allow", "emulators_only"}
_FILE_KEYS = {"local_root", "device_paths", "max_transfer_mb"}


def load_policy_file(path: Path) -> Policy:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read policy file {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"policy file {path} is not valid TOML: {exc}") from exc
    return policy_from_mapping(data, source=str(path))


def policy_from_mapping(data: Mapping[str, Any], *, source: str) -> Policy:
    _check_keys(data, _TOP_KEYS, source)
    devices = _table(data, "devices", _DEVICE_KEYS, source)
    files = _table(data, "files", _FILE_KEYS, source)
    root = files.get("local_root")
    paths = files.get("device_paths", list(DEFAULT_DEVICE_PATHS))
    megabytes = files.get("max_transfer_mb", DEFAULT_MAX_TRANSFER // (1024 * 1024))
    if not isinstance(megabytes, int) or isinstance(megabytes, bool):
        raise UsageError(f"{source}: files.max_transfer_mb must be an integer")
    return Policy(
        profile=_typed(data, "profile", str, "standard", source),
        allow_tools=frozenset(_strings(data.get("allow_tools", []), "allow_tools", source)),
        deny_tools=frozenset(_strings(data.get("deny_tools", []), "deny_tools", source)),
        allow_destructive=_typed(data, "allow_destructive", bool, False, source),
        confirm_timeout=float(
            _typed(data, "confirm_timeout_seconds", (int, float), DEFAULT_CONFIRM_TIMEOUT, source)
        ),
        allowed_devices=frozenset(
            validate.serial(s) for s in _strings(devices.get("allow", []), "devices.allow", source)
        ),
        emulators_only=_typed(devices, "emulators_only", bool, False, source),
        local_root=resolve_local_root(Path(root).expanduser()) if root else None,
        device_paths=tuple(
            validate.device_path(p) for p in _strings(paths, "files.device_paths", source)
        ),
        max_transfer_bytes=megabytes * 1024 * 1024,
        sources=(source,),
    )


def with_flags(
    policy: Policy,
    *,
    profile: str | None = None,
    allow_destructive: bool = False,
    allow_devices: Iterable[str] = (),
    emulators_only: bool = False,
    local_root: Path | None = None,
) -> Policy:
    """Apply command-line flags: they add to the file's settings, never weaken a restriction
    the file sets (except --profile and --local-root, which replace it)."""
    chosen_profile = profile or policy.profile
    if allow_destructive and profile is None and not policy.sources:
        chosen_profile = "full"  # --allow-destructive alone means: destructive tools, no asking
    return replace(
        policy,
        profile=chosen_profile,
        allow_destructive=policy.allow_destructive or allow_destructive,
        allowed_devices=policy.allowed_devices | {validate.serial(s) for s in allow_devices},
        emulators_only=policy.emulators_only or emulators_only,
        local_root=resolve_local_root(local_root) if local_root else policy.local_root,
        sources=(*policy.sources, "command line"),
    )


def resolve_local_root(path: Path) -> Path:
    resolved = path.expanduser().resolve()
    if not resolved.is_dir():
        raise UsageError(f"--local-root {path}: not an existing directory")
    return resolved


def _check_keys(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise UsageError(f"{where}: unknown policy key(s) {', '.join(unknown)}")


def _table(data: Mapping[str, Any], key: str, allowed: set[str], source: str) -> Mapping[str, Any]:
    table = data.get(key, {})
    if not isinstance(table, Mapping):
        raise UsageError(f"{source}: [{key}] must be a table")
    _check_keys(table, allowed, f"{source} [{key}]")
    return table


def _typed(data: Mapping[str, Any], key: str, kind: Any, default: Any, source: str) -> Any:
    value = data.get(key, default)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise UsageError(f"{source}: {key} has the wrong type")
    return value


def _strings(value: Any, key: str, source: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise UsageError(f"{source}: {key} must be a list of strings")
    return list(value)
