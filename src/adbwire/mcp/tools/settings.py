"""Device settings a test sets up, each read back and restored when the session ends.

One tool covers orientation, dark mode, font scale, an app's language, the radios and an
emulator's GPS position (the issue's set_orientation, set_dark_mode, set_font_scale,
set_app_locale, set_network and set_location): ``setting`` picks which, ``value`` is checked
for it before the device is touched. A location is not restored (there is nothing to read
back from the console).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import Field

from adbwire.device import location
from adbwire.device.errors import UnsupportedError
from adbwire.device.info import reports_emulator
from adbwire.device.settings import appearance, locale, network, orientation
from adbwire.device.settings.ledger import Noted, Restore
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import DeviceArgs, Package, Result
from adbwire.mcp.tools.session_restore import remember, session_of
from adbwire.wire.client import AdbClient

Setting = Literal[
    "orientation", "dark_mode", "font_scale", "app_locale", "wifi", "mobile_data", "location"
]  # fmt: skip
ORIENTATIONS = ("portrait", "landscape", "reverse_portrait", "reverse_landscape", "auto")
SWITCH = {"on": True, "off": False}
ALIASES = ("set_orientation", "set_dark_mode", "set_font_scale", "set_app_locale", "set_network",
           "set_location")  # fmt: skip


class SettingArgs(DeviceArgs):
    setting: Setting
    value: str = Field(max_length=40)
    package: Package | None = Field(default=None, description="app_locale's app")
    keep: bool = False


class SettingResult(Result):
    setting: str
    before: str | None = None
    after: str | None = None
    restore: str = Field(description="at session end, when the server stops, kept or never")
    note: str | None = None


@dataclass(frozen=True)
class Applied:
    before: str | None
    after: str | None
    note: str | None = None


Apply = Callable[[AdbClient, SettingArgs, Noted], Applied]


def _choice(value: str, allowed: tuple[str, ...], setting: str) -> str:
    if value not in allowed:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENTS, f"{setting} is one of {', '.join(allowed)}, not {value!r}"
        )
    return value


def _orientation(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
    wanted = cast(orientation.Orientation, _choice(args.value, ORIENTATIONS, "orientation"))
    change = orientation.set_orientation(client, wanted, noted=noted)
    after = "auto" if change.after.auto_rotate else change.after.orientation
    return Applied(change.before.orientation, after, change.note)


def _dark_mode(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
    mode = _choice(args.value, ("yes", "no", "auto"), "dark_mode")
    change = appearance.set_night_mode(client, mode, noted=noted)
    return Applied(change.before, change.after)


def _font_scale(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
    try:
        scale = float(args.value)
    except ValueError:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENTS, "font_scale is a number, e.g. 1.3") from None
    change = appearance.set_font_scale(client, scale, noted=noted)
    return Applied(change.before, change.after)


def _app_locale(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
    if args.package is None:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENTS, "app_locale needs `package`")
    wanted = tuple(tag for tag in args.value.split(",") if tag)
    change = locale.set_app_locales(client, args.package, wanted, noted=noted)
    return Applied(",".join(change.before), ",".join(change.after))


def _radio(radio: str) -> Apply:
    def apply(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
        on = SWITCH[_choice(args.value, tuple(SWITCH), args.setting)]
        change = network.set_radio(client, radio, on, noted=noted)
        return Applied(_switch(change.before), _switch(change.after))

    return apply


def _switch(value: bool | None) -> str | None:
    return None if value is None else ("on" if value else "off")


def _location(client: AdbClient, args: SettingArgs, noted: Noted) -> Applied:
    try:
        lat, lon = (float(part) for part in args.value.split(","))
    except ValueError:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENTS, "location is lat,lon e.g. 48.85,2.29"
        ) from None
    if not reports_emulator(client):
        raise UnsupportedError(
            f"{client.serial} is not an emulator: only an emulator's console sets a location"
        )
    console = location.set_location(client.serial, lat, lon)
    note = f"emulator console {console.host}:{console.port}; not restored"
    return Applied(None, f"{lat:g},{lon:g}", note)


APPLY: dict[str, Apply] = {
    "orientation": _orientation,
    "dark_mode": _dark_mode,
    "font_scale": _font_scale,
    "app_locale": _app_locale,
    "wifi": _radio("wifi"),
    "mobile_data": _radio("data"),
    "location": _location,
}


@tool(
    name="set_device_setting",
    title="Set a device setting",
    risk=Risk.ACTION,
    input=SettingArgs,
    output=SettingResult,
    example={"setting": "orientation", "value": "landscape"},
    full_only=True,
    aliases=ALIASES,
)
async def set_device_setting(call: ToolCall, args: SettingArgs) -> ToolOutput:
    """orientation portrait/landscape/reverse_*/auto; dark_mode yes/no/auto; font_scale
    0.5-2; app_locale tag or '' (package; Android 13+); wifi, mobile_data on/off; location
    lat,lon (emulator). Read back; undone at session end unless keep."""
    session = session_of(call)
    key = args.setting if args.setting != "app_locale" else f"app_locale:{args.package}"
    when = "never"

    def noted(restore: Restore) -> None:
        # Before the setter writes: a change whose read-back fails is undone all the same.
        nonlocal when
        when = remember(call, session, key, args.setting, restore, keep=args.keep)

    applied = await call.run(APPLY[args.setting], call.client, args, noted)
    data = SettingResult(setting=args.setting, before=applied.before, after=applied.after,
                         restore=when, note=applied.note)  # fmt: skip
    return ToolOutput(f"{args.setting}: {applied.before} -> {applied.after} ({when})", data)


TOOLS = [set_device_setting]
