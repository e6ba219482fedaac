"""`dumpsys SERVICE [ARGS]`: window, activity, package, input_method, battery, power."""

from __future__ import annotations

from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.commands.activity_dumps import (
    dump_activities_old,
    dump_package_activities,
)
from adbwire.testing.userland.commands.device_modes import dump_uimode
from adbwire.testing.userland.commands.dumpsys_notification import dump_notifications
from adbwire.testing.userland.commands.dumpsys_package import dump_packages
from adbwire.testing.userland.commands.dumpsys_power import dump_power
from adbwire.testing.userland.commands.dumpsys_window import (
    IME_PACKAGE,
    dump_activities,
    dump_window,
    window_ref,
)
from adbwire.testing.userland.commands.network import dump_connectivity
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

SERVICES = (
    "activity", "battery", "input_method", "notification", "package", "power", "uimode",
    "window",
)  # fmt: skip
_BATTERY_LABELS = (
    ("ac_powered", "AC powered"),
    ("usb_powered", "USB powered"),
    ("wireless_powered", "Wireless powered"),
    ("dock_powered", "Dock powered"),
    ("max_charging_current", "Max charging current"),
    ("max_charging_voltage", "Max charging voltage"),
    ("charge_counter", "Charge counter"),
    ("status", "status"),
    ("health", "health"),
    ("present", "present"),
    ("level", "level"),
    ("scale", "scale"),
    ("voltage", "voltage"),
    ("temperature", "temperature"),
    ("technology", "technology"),
)


def dump_battery(state: AndroidState) -> str:
    lines = ["Current Battery Service state:"]
    if state.battery.get("unplugged"):
        lines.append("  (UPDATES STOPPED -- use 'reset' to restart)")
    for key, label in _BATTERY_LABELS:
        value = state.battery[key]
        text = str(value).lower() if isinstance(value, bool) else str(value)
        lines.append(f"  {label}: {text}")
        if key == "max_charging_current":
            lines.append(
                " Time when the latest updated value of the Max charging current was "
                "sent via battery changed broadcast: +21s560ms"
            )
        if key == "voltage":
            lines.append(
                " Time when the latest updated value of the voltage was sent via battery "
                "changed broadcast: +21s560ms"
            )
            lines.append(f" The last voltage value sent via the battery changed broadcast: {value}")
    lines += ["  Charging state: 0", "  Charging policy: 0", "  Capacity level: -1"]
    return "\n".join(lines) + "\n"


def battery_command(state: AndroidState, args: list[str]) -> bool:
    """`dumpsys battery set level 5 | unplug | reset`; False if not such a command."""
    if args[:1] == ["unplug"]:
        state.battery.update(
            ac_powered=False, usb_powered=False, wireless_powered=False, unplugged=True
        )
    elif args[:1] == ["reset"]:
        state.battery.pop("unplugged", None)
        state.battery.update(ac_powered=True)
    elif args[:1] == ["set"] and len(args) == 3:
        key = {"ac": "ac_powered", "usb": "usb_powered", "wireless": "wireless_powered"}.get(
            args[1], args[1]
        )
        if key not in state.battery:
            return False
        current = state.battery[key]
        state.battery[key] = args[2] != "0" if isinstance(current, bool) else int(args[2])
        state.battery["unplugged"] = True
    else:
        return False
    return True


def dump_input_method(state: AndroidState) -> str:
    top = state.nav.current
    shown = "true" if top is not None and top.keyboard else "false"
    ime = f"{IME_PACKAGE}/com.android.inputmethod.latin.LatinIME"
    focused = window_ref(top) if top is not None else "null"
    return (
        "\n".join(
            [
                "Current Input Method Manager state:",
                "  Input Methods: mMethodMapUpdateCount=2 mBindInstantServiceAllowed=false",
                "  InputMethod #0:",
                f"    mId={ime} mSettingsActivity=com.google.android.apps.inputmethod.latin."
                "preferences.SettingsActivity mIsVrOnly=false "
                "mSupportsSwitchingToNextInputMethod=true",
                f"  mCurMethodId={ime}",
                f"  mCurFocusedWindow={focused} softInputMode=STATE_UNSPECIFIED|ADJUST_RESIZE|"
                "IS_FORWARD_NAVIGATION "
                "client=com.android.internal.view.IInputMethodClient$Stub$Proxy@6a1c2",
                f"  mCurId={ime} mHaveConnection=true mBoundToMethod=true mVisibleBound={shown}",
                "  mCurTokenDisplayId=0",
                f"  mCurIntent=Intent {{ act=android.view.InputMethod cmp={ime} }}",
                f"  mShowRequested={shown} mShowExplicitlyRequested=false mShowForced=false "
                f"mInputShown={shown}",
                "  mInFullscreenMode=false",
                f"  mSystemReady=true mInteractive={str(state.power.awake).lower()}",
            ]
        )
        + "\n"
    )


def dumpsys(inv: Invocation) -> int:
    state = inv.device.state
    if not inv.args:
        inv.out("".join(f"DUMP OF SERVICE {s}:\n" + _dump(state, s, []) for s in SERVICES))
        return 0
    if inv.args[0] == "-l":
        inv.out("Currently running services:\n" + "".join(f"  {s}\n" for s in SERVICES))
        return 0
    service, args = inv.args[0], inv.args[1:]
    if service == "connectivity":
        with state.lock:
            inv.out(dump_connectivity(state))
        return 0
    if service not in SERVICES:
        inv.out(f"Can't find service: {service}\n")
        return 0
    if service == "activity" and args and args[0] not in ("activities", "a", "-a"):
        package = args[0]
        with state.lock:
            match = [v for v in state.nav.stack if package in (v.package, v.screen.component)]
        if not match:
            inv.out(
                f"Unknown command: {package}\nBad activity command, or no activities match: "
                f"{package}\nUse -h for help.\n"
            )
            return 0
        if match[0].package == package:
            with state.lock:
                inv.out(dump_package_activities(state, package))
            return 0
    if service == "battery" and args:
        with state.lock:
            if battery_command(state, args):
                return 0
    inv.out(_dump(state, service, args))
    return 0


def _dump(state: AndroidState, service: str, args: list[str]) -> str:
    with state.lock:
        if service == "window":
            return dump_window(state, args[0] if args else None)
        if service == "activity":
            if state.sdk >= 29:
                return dump_activities(state)
            return dump_activities_old(state, detailed="-a" in args)
        if service == "package":
            package = next((a for a in args if not a.startswith("-") and "." in a), None)
            return dump_packages(state, package)
        if service == "input_method":
            return dump_input_method(state)
        if service == "power":
            return dump_power(state)
        if service == "notification":
            return dump_notifications(state, args)
        if service == "uimode":
            return dump_uimode(state)
        return dump_battery(state)


COMMANDS: dict[str, CommandFn] = {"dumpsys": dumpsys}
