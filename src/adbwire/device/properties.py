"""System properties: read one, list them, set one (never the control namespaces)."""

from __future__ import annotations

from adbwire.device import commands, validate
from adbwire.device.errors import RefusedError, VerificationError
from adbwire.device.parsers import parse_getprop
from adbwire.wire.client import AdbClient

SETTABLE_PREFIXES = ("debug.", "log.tag.", "persist.log.tag.", "vendor.debug.")
"""What an agent may set without asking: debugging and logging switches. Everything else
(adb's own port, USB configuration, persist.*, ctl.* service control, sys.powerctl) can cut
the device off or outlive the session, so it needs run_shell, which asks the user."""


def all_properties(client: AdbClient) -> dict[str, str]:
    return parse_getprop(commands.text(client, ["getprop"]))


def get_property(client: AdbClient, name: str) -> str | None:
    """The value, or None when unset (getprop prints nothing for both unset and empty)."""
    value = commands.text(client, ["getprop", validate.property_name(name)]).rstrip("\r\n")
    return value or None


def list_properties(client: AdbClient, prefix: str = "") -> dict[str, str]:
    """Properties whose name starts with `prefix`, sorted by name."""
    if prefix:
        validate.property_name(prefix)
    props = all_properties(client)
    return {key: props[key] for key in sorted(props) if key.startswith(prefix)}


def check_settable(name: str) -> None:
    """Only debugging and logging properties; never anything that controls adb or USB."""
    validate.property_name(name)
    touches_link = any(part in ("adb", "adbd", "usb") for part in name.split("."))
    if not name.startswith(SETTABLE_PREFIXES) or touches_link:
        allowed = ", ".join(f"{prefix}*" for prefix in SETTABLE_PREFIXES)
        raise RefusedError(
            f"refusing to set {name!r}: only {allowed} can be set without asking (others can "
            "cut the device off or outlive the session); use run_shell, which asks the user"
        )


def set_property(client: AdbClient, name: str, value: str) -> str:
    """Set a property and return the value read back; raises if the device kept another."""
    check_settable(name)
    validate.property_value(value)
    commands.text(client, ["setprop", name, value])
    now = get_property(client, name) or ""
    if now != value:
        raise VerificationError(
            f"setprop {name}: the device kept {now[:80]!r} (read-only property, or SELinux "
            "refused it)"
        )
    return now
