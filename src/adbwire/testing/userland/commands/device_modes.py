"""`cmd uimode`, `dumpsys uimode`, `cmd locale`, `cmd statusbar` and `svc wifi|data`.

Texts follow AOSP's shell commands: ``Night mode: yes`` (UiModeManagerService.Shell),
``Locales for PKG for user 0 are [fr-FR]`` (LocaleManagerShellCommand); ``dumpsys uimode``
follows a real Android 14 dump (tests/data/device_outputs/dumpsys_uimode/).
"""

from __future__ import annotations

import re

from adbwire.testing.userland.android.display_modes import NIGHT_VALUES, night_mode
from adbwire.testing.userland.android.notifications import close_shade, open_shade
from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

_TAG = re.compile(r"^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$")


def uimode(inv: Invocation, args: list[str]) -> int:
    state = inv.device.state
    if args[:1] != ["night"]:
        inv.err(f"Unknown command: {args[0] if args else ''}\n")
        return 255
    with state.lock:
        if len(args) > 1:
            value = NIGHT_VALUES.get(args[1])
            if value is None:
                inv.err("Error: mode must be 'yes', 'no', or 'auto'\n")
                return 255
            state.settings.setdefault("secure", {})["ui_night_mode"] = value
            state.system_log("I", "UiModeManager", f"Night mode set to {args[1]}")
        inv.out(f"Night mode: {night_mode(state)}\n")
    return 0


def dump_uimode(state: AndroidState) -> str:
    mode = night_mode(state)
    number = NIGHT_VALUES[mode]
    ui_mode = "0x21" if mode == "yes" else "0x11"
    return (
        "Current UI Mode Service state:\n"
        "  mDockState=0 mLastBroadcastState=0\n"
        f" mStartDreamImmediatelyOnDock=true  mNightMode={number} ({mode})  "
        "mOverrideOn/Off=false/false  mAttentionModeThemeOverlay=1000 mNightModeLocked=false\n"
        "  mCarModeEnabled=false (carModeApps=\n"
        f" mWaitForDeviceInactive=false mComputedNightMode={str(mode == 'yes').lower()} "
        "customStart=22:00 customEnd06:00 mCarModeEnableFlags=0 mEnableCarDockLaunch=false\n"
        f"  mCurUiMode={ui_mode} mUiModeLocked=false mSetUiMode={ui_mode}\n"
        "  mHoldingConfiguration=false mSystemReady=true\n"
        "  mTwilightService.getLastTwilightState()=null\n"
    )


def locale(inv: Invocation, args: list[str]) -> int:
    if not args or args[0] not in ("get-app-locales", "set-app-locales"):
        inv.err(f"Unknown command: {args[0] if args else ''}\n")
        return 255
    verb, rest = args[0], args[1:]
    if not rest:
        inv.err("Error: no package specified\n")
        return 255
    package, options = rest[0], rest[1:]
    tags = ""
    while options:
        option = options.pop(0)
        if option == "--user" and options:
            options.pop(0)
        elif option == "--locales" and verb == "set-app-locales":
            tags = options.pop(0) if options else ""
        else:
            inv.err(f"Exception occurred while executing '{verb}':\n"
                    f"java.lang.IllegalArgumentException: Unknown option: {option}\n")  # fmt: skip
            return 255
    state = inv.device.state
    with state.lock:
        if package not in state.packages:
            inv.out(f"Unknown package {package} for userId 0\n")
            return 0
        if verb == "get-app-locales":
            tags = state.app_locales.get(package, "")
            inv.out(f"Locales for {package} for user 0 are [{tags}]\n")
            return 0
        if tags and not all(_TAG.match(tag) for tag in tags.split(",")):
            inv.err(f"Exception occurred while executing '{verb}':\n"
                    f"java.util.IllformedLocaleException: Ill-formed tag: {tags}\n")  # fmt: skip
            return 255
        if tags:
            state.app_locales[package] = tags
        else:
            state.app_locales.pop(package, None)
    return 0


def statusbar(inv: Invocation, args: list[str]) -> int:
    state = inv.device.state
    verb = args[0] if args else ""
    with state.lock:
        if verb in ("expand-notifications", "expand-settings"):
            width, height = inv.device.screen_size()
            if state.power.awake:
                open_shade(state.nav, state.notifications, width, height)
            return 0
        if verb == "collapse":
            close_shade(state.nav)
            return 0
    inv.err(f"Unknown command: {verb}\n")
    return 255


def svc(inv: Invocation) -> int:
    args = inv.args
    settings = {"wifi": "wifi_on", "data": "mobile_data"}
    if len(args) != 2 or args[0] not in settings or args[1] not in ("enable", "disable"):
        inv.out(
            "Available commands:\n    help     Show information about the subcommands\n"
            "    power    Control the power manager\n    data     Control mobile data "
            "connectivity\n    wifi     Control the Wi-Fi manager\n"
        )
        return 0 if not args else 1
    state = inv.device.state
    with state.lock:
        on = args[1] == "enable"
        state.settings.setdefault("global", {})[settings[args[0]]] = "1" if on else "0"
        tag = "WifiService" if args[0] == "wifi" else "PhoneInterfaceManager"
        state.system_log("I", tag, f"{args[0]} {'enabled' if on else 'disabled'} by shell")
    return 0


COMMANDS: dict[str, CommandFn] = {"svc": svc}
