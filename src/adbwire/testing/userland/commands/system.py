"""System services from the shell: getprop/setprop, settings, cmd."""

from __future__ import annotations

from adbwire.testing.userland.commands.device_modes import locale, statusbar, uimode
from adbwire.testing.userland.commands.network import wifi_status
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

NAMESPACES = ("global", "secure", "system")
CMD_SERVICES = (
    "activity", "connectivity", "input", "locale", "package", "settings", "statusbar", "uimode",
    "window",
)  # fmt: skip


def getprop(inv: Invocation) -> int:
    props = inv.device.state.properties
    args = [a for a in inv.args if not a.startswith("-")]
    if not args:
        inv.out("".join(f"[{key}]: [{props[key]}]\n" for key in sorted(props)))
        return 0
    default = args[1] if len(args) > 1 else ""
    inv.out(props.get(args[0], default) + "\n")
    return 0


def setprop(inv: Invocation) -> int:
    if len(inv.args) != 2:
        return inv.fail("need 2 arguments", 1)
    key, value = inv.args
    state = inv.device.state
    with state.lock:
        if key.startswith("ro.") and key in state.properties:
            inv.err(f"Failed to set property '{key}' to '{value}'.\nSee dmesg for error reason.\n")
            return 1
        state.properties[key] = value
    return 0


def settings(inv: Invocation) -> int:
    args = (
        [a for a in inv.args if a not in ("--user", "0", "current")]
        if "--user" in inv.args
        else list(inv.args)
    )
    if len(args) < 2 or args[0] not in ("get", "put", "delete", "list", "reset"):
        inv.err(
            "usage:  settings [--user <USER_ID> | current] get namespace key\n"
            "        settings [--user <USER_ID> | current] put namespace key value\n"
        )
        return 1 if args else 0
    verb, namespace, rest = args[0], args[1], args[2:]
    if namespace not in NAMESPACES:
        inv.err(f"Invalid namespace '{namespace}'\n")
        return 1
    state = inv.device.state
    with state.lock:
        table = state.settings.setdefault(namespace, {})
        if verb == "list":
            inv.out("".join(f"{key}={table[key]}\n" for key in sorted(table)))
        elif verb == "get" and rest:
            inv.out(table.get(rest[0], "null") + "\n")
        elif verb == "put" and len(rest) >= 2:
            table[rest[0]] = rest[1]
            state.system_log("D", "SettingsProvider", f"put {namespace} {rest[0]}={rest[1]}")
        elif verb == "delete" and rest:
            inv.out(f"Deleted {1 if table.pop(rest[0], None) is not None else 0} rows\n")
        else:
            return inv.fail("missing key or value", 1)
    return 0


def airplane_mode(inv: Invocation, args: list[str]) -> int:
    state = inv.device.state
    table = state.settings.setdefault("global", {})
    if not args:
        inv.out("enabled\n" if table.get("airplane_mode_on") == "1" else "disabled\n")
        return 0
    if args[0] not in ("enable", "disable"):
        inv.err(f"Unsupported argument: {args[0]}\n")
        return -1 & 0xFF
    enable = args[0] == "enable"
    with state.lock:
        table["airplane_mode_on"] = "1" if enable else "0"
        state.system_log("I", "ConnectivityService", f"setAirplaneMode: {str(enable).lower()}")
    return 0


def cmd(inv: Invocation) -> int:
    if not inv.args:
        inv.err(
            "cmd: No service specified; use -l to list all running services. "
            "Use -w to start and wait for a service.\n"
        )
        return 20
    service, rest = inv.args[0], inv.args[1:]
    if service == "-l":
        inv.out("Currently running services:\n" + "".join(f"  {s}\n" for s in CMD_SERVICES))
        return 0
    if service == "wifi":
        return wifi_status(inv, rest)
    if service == "connectivity" and rest[:1] == ["airplane-mode"]:
        return airplane_mode(inv, rest[1:])
    handler = {"uimode": uimode, "locale": locale, "statusbar": statusbar}.get(service)
    if handler is not None:
        return handler(inv, rest)
    forward = {
        "package": "pm",
        "activity": "am",
        "settings": "settings",
        "window": "wm",
        "input": "input",
    }
    if service in forward:
        target = inv.device.lookup(forward[service])
        assert target is not None
        return target(type(inv)([forward[service], *rest], inv.streams, inv.shell))
    if service in CMD_SERVICES:
        inv.err(f"Unknown command: {rest[0] if rest else ''}\n")
        return 255
    inv.err(f"cmd: Can't find service: {service}\n")
    return 20


COMMANDS: dict[str, CommandFn] = {
    "getprop": getprop,
    "setprop": setprop,
    "settings": settings,
    "cmd": cmd,
}
