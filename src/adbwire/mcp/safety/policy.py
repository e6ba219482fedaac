"""The operator's policy: which tools exist, which devices and paths they may touch, and
how much device output one read of a tool may take.

It comes from a TOML file (``--policy``, format in docs/policy.md) and the command line;
flags win over the file. A tool the policy turns off is never registered, so a client
cannot list or call it; the ``adbwire://policy`` resource says what is off and why. Unknown
keys (and unknown tool names in ``[max_output_mb]``) are an error, so a typo cannot
silently weaken the policy.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from adbwire.device import validate
from adbwire.errors import UsageError


class Risk(str, Enum):
    READ = "read"
    ACTION = "action"
    DESTRUCTIVE = "destructive"


PROFILES: dict[str, frozenset[Risk]] = {
    "read-only": frozenset({Risk.READ}),
    "standard": frozenset({Risk.READ, Risk.ACTION}),
    "full": frozenset({Risk.READ, Risk.ACTION, Risk.DESTRUCTIVE}),
}
MIB = 1024 * 1024
DEFAULT_DEVICE_PATHS = ("/sdcard", "/storage", "/data/local/tmp")
DEFAULT_MAX_TRANSFER = 100 * MIB
DEFAULT_CONFIRM_TIMEOUT = 120.0

OTHER_TOOLS = "default"
"""The `[max_output_mb]` key for every tool without an entry of its own."""
MAX_OUTPUT_CAP = 1024 * MIB
"""Above this an output cap protects nothing: the server would need gigabytes for one read."""
DEFAULT_OUTPUT_CAPS: Mapping[str, int] = MappingProxyType(
    {
        OTHER_TOOLS: 4 * MIB,
        # getprop and dumpsys battery are tens of KiB on real devices
        **dict.fromkeys(
            ("device_info", "get_property", "list_properties", "set_property", "battery_status"),
            1 * MIB,
        ),
        # package lists, dumpsys package/window/activity, directory listings and logcat dumps
        # (20,000 lines) stay within a few MiB
        **dict.fromkeys(
            (
                "list_packages",
                "package_info",
                "current_activity",
                "list_dir",
                "read_logcat",
                "last_crash",
                "list_crashes",
            ),
            8 * MIB,
        ),
        # a uiautomator dump of a long list can reach a few MiB
        **dict.fromkeys(
            (
                "ui_tree",
                "find_elements",
                "tap_element",
                "long_press_element",
                "type_text",
                "scroll_to_element",
                "wait_for_element",
                "assert_element",
                "accessibility_audit",
                "debug_context",
                # action tools read the screen before and after (their outcome)
                "launch_app",
                "restart_app",
                "open_deep_link",
                "tap",
                "swipe",
                "press_key",
            ),
            16 * MIB,
        ),
        # dumpsys activity activities, as current_activity reads it
        "activity_stack": 8 * MIB,
        # a test run's whole status stream: a few hundred bytes a test, traces of failures
        "run_instrumentation": 32 * MIB,
    }
)
"""Bytes one read of device output (a command's stdout + stderr, a directory listing) may
take, per tool; past it the read stops and the call fails with `output_too_large`."""


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
    output_caps: Mapping[str, int] = field(default_factory=dict, hash=False)
    """The operator's output caps in bytes, by tool name (or OTHER_TOOLS); tools not named
    keep their entry in DEFAULT_OUTPUT_CAPS (see `output_cap`)."""
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
        for tool, cap in self.output_caps.items():
            if not isinstance(cap, int) or isinstance(cap, bool) or not 0 < cap <= MAX_OUTPUT_CAP:
                raise UsageError(
                    f"the output cap of {tool} must be 1 byte to {MAX_OUTPUT_CAP // MIB} MiB"
                )
        object.__setattr__(self, "output_caps", MappingProxyType(dict(self.output_caps)))

    def output_cap(self, tool: str) -> int:
        """Bytes one read of `tool` may take: the operator's entry for the tool, else the
        built-in one, else the operator's default, else the built-in default."""
        for table, key in (
            (self.output_caps, tool),
            (DEFAULT_OUTPUT_CAPS, tool),
            (self.output_caps, OTHER_TOOLS),
        ):
            if key in table:
                return table[key]
        return DEFAULT_OUTPUT_CAPS[OTHER_TOOLS]

    def tool_state(self, name: str, risk: Risk, *, full_only: bool = False) -> tuple[bool, str]:
        """Whether a tool exists under this policy, and why (``full_only``: a tool only the
        full profile publishes, unless allowed by name)."""
        if name in self.deny_tools:
            return False, "denied by name"
        if name in self.allow_tools:
            return True, "allowed by name"
        if full_only and self.profile != "full":
            return False, f"profile {self.profile} leaves it out (the full profile has it)"
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
    "max_output_mb",
}
_DEVICE_KEYS = {"allow", "emulators_only"}
_FILE_KEYS = {"local_root", "device_paths", "max_transfer_mb"}


def load_policy_file(path: Path) -> Policy:
    # The TOML parser loads with a policy file only (serve's start-up, issue #20).
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]  # noqa: PLC0415
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
    megabytes = files.get("max_transfer_mb", DEFAULT_MAX_TRANSFER // MIB)
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
        max_transfer_bytes=megabytes * MIB,
        output_caps=_output_caps(data.get("max_output_mb", {}), source),
        sources=(source,),
    )


def _output_caps(table: Any, source: str) -> dict[str, int]:
    """`[max_output_mb]`: tool name (or "default") = whole MiB, 1 to 1024."""
    if not isinstance(table, Mapping):
        raise UsageError(f"{source}: [max_output_mb] must be a table")
    unknown = sorted(set(table) - {OTHER_TOOLS, *_tool_names()})
    if unknown:
        raise UsageError(f"{source}: [max_output_mb] names unknown tool(s) {', '.join(unknown)}")
    caps: dict[str, int] = {}
    for tool, megabytes in table.items():
        if not isinstance(megabytes, int) or isinstance(megabytes, bool):
            raise UsageError(f"{source}: max_output_mb.{tool} must be an integer (MiB)")
        if not 1 <= megabytes <= MAX_OUTPUT_CAP // MIB:
            raise UsageError(
                f"{source}: max_output_mb.{tool} = {megabytes}: use 1 to "
                f"{MAX_OUTPUT_CAP // MIB} (MiB)"
            )
        caps[tool] = megabytes * MIB
    return caps


def _tool_names() -> set[str]:
    from adbwire.mcp.catalogue import published  # noqa: PLC0415 - it imports this module

    return {tool.name for tool in published()}


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
