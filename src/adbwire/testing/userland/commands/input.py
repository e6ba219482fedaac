"""`input tap|swipe|text|keyevent`: touches and keys that move the scenario's screens."""

from __future__ import annotations

from adbwire.testing.userland.android.power import press_power_key
from adbwire.testing.userland.commands.motion import motionevent
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

KEYCODES = {
    "UNKNOWN": 0,
    "SOFT_LEFT": 1,
    "SOFT_RIGHT": 2,
    "HOME": 3,
    "BACK": 4,
    "CALL": 5,
    "ENDCALL": 6,
    **{str(d): 7 + d for d in range(10)},
    "STAR": 17,
    "POUND": 18,
    "DPAD_UP": 19,
    "DPAD_DOWN": 20,
    "DPAD_LEFT": 21,
    "DPAD_RIGHT": 22,
    "DPAD_CENTER": 23,
    "VOLUME_UP": 24,
    "VOLUME_DOWN": 25,
    "POWER": 26,
    "CAMERA": 27,
    "CLEAR": 28,
    **{chr(ord("A") + i): 29 + i for i in range(26)},
    "COMMA": 55,
    "PERIOD": 56,
    "TAB": 61,
    "SPACE": 62,
    "ENVELOPE": 65,
    "ENTER": 66,
    "DEL": 67,
    "GRAVE": 68,
    "MINUS": 69,
    "EQUALS": 70,
    "LEFT_BRACKET": 71,
    "RIGHT_BRACKET": 72,
    "BACKSLASH": 73,
    "SEMICOLON": 74,
    "APOSTROPHE": 75,
    "SLASH": 76,
    "AT": 77,
    "MENU": 82,
    "NOTIFICATION": 83,
    "SEARCH": 84,
    "MEDIA_PLAY_PAUSE": 85,
    "PAGE_UP": 92,
    "PAGE_DOWN": 93,
    "ESCAPE": 111,
    "FORWARD_DEL": 112,
    "MOVE_HOME": 122,
    "MOVE_END": 123,
    "VOLUME_MUTE": 164,
    "APP_SWITCH": 187,
    "SETTINGS": 176,
    "SLEEP": 223,
    "WAKEUP": 224,
    "ALL_APPS": 284,
}
_NAMES_BY_CODE = {code: name for name, code in KEYCODES.items()}
SOURCES = (
    "keyboard",
    "mouse",
    "joystick",
    "touchnavigation",
    "touchpad",
    "trackball",
    "stylus",
    "dpad",
    "gamepad",
    "touchscreen",
    "rotaryencoder",
)
USAGE = (
    "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n"
    "The commands and default sources are:\n"
    "      text <string> (Default: keyboard)\n"
    "      keyevent [--longpress|--duration <duration to hold key down in ms>] "
    "[--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number "
    "or name> ... (Default: keyboard)\n"
    "      tap <x> <y> (Default: touchscreen)\n"
    "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n"
    "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n"
    "      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)\n"
)


def keycode_name(arg: str) -> str | None:
    """`KEYCODE_BACK`, `BACK` or `4` to `KEYCODE_BACK`; None if Android would not know it."""
    if arg.isdigit():
        code = int(arg)
        return "KEYCODE_" + _NAMES_BY_CODE[code] if code in _NAMES_BY_CODE else f"KEYCODE_{code}"
    name = arg.upper().removeprefix("KEYCODE_")
    return "KEYCODE_" + name if name in KEYCODES else None


def _shell_exception(inv: Invocation, verb: str, message: str) -> int:
    inv.err(
        f"Exception occurred while executing '{verb}':\n{message}\n"
        "\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:229)\n"
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec"
        "(BasicShellCommandHandler.java:97)\n"
    )
    return 255


def _ints(inv: Invocation, values: list[str]) -> list[int] | None:
    try:
        return [int(float(v)) for v in values]
    except ValueError:
        return None


def _touch(inv: Invocation, verb: str, rest: list[str]) -> int:
    """tap/press X Y and swipe/draganddrop X1 Y1 X2 Y2 [MS]; dropped while asleep."""
    state = inv.device.state
    nav = state.nav
    if verb in ("tap", "press"):
        coords = _ints(inv, rest[:2])
        if coords is None or len(coords) != 2:
            return _shell_exception(
                inv, "tap", f'java.lang.NumberFormatException: For input string: "{" ".join(rest)}"'
            )
        with state.lock:
            if state.power.awake:  # asleep, the input policy drops touches
                nav.tap(coords[0], coords[1])
        return 0
    coords = _ints(inv, rest[:4])
    if coords is None or len(coords) != 4:
        inv.out(USAGE)
        return 1
    x1, y1, x2, y2 = coords
    dx, dy = x2 - x1, y2 - y1
    with state.lock:
        if not state.power.awake:
            pass
        elif abs(dx) < 10 and abs(dy) < 10:
            nav.tap(x1, y1)
        elif abs(dy) >= abs(dx):
            nav.swipe("up" if dy < 0 else "down")
        else:
            nav.swipe("left" if dx < 0 else "right")
    return 0


def input_command(inv: Invocation) -> int:
    args = list(inv.args)
    if args and args[0] in SOURCES:
        args.pop(0)
    if len(args) >= 2 and args[0] == "-d":
        del args[:2]
    if not args:
        inv.out(USAGE)
        return 1
    verb, rest = args[0], args[1:]
    state = inv.device.state
    nav = state.nav
    if verb == "text":
        if not rest:
            inv.out(USAGE)
            return 1
        text = " ".join(rest).replace("%s", " ")
        if any(not (32 <= ord(c) < 127) for c in text):
            return _shell_exception(
                inv, "text", "java.lang.NullPointerException: Attempt to get length of null array"
            )
        with state.lock:
            nav.type_text(text)
        return 0
    if verb == "keyevent":
        keys = [a for a in rest if not a.startswith("--")]
        if not keys:
            inv.out(USAGE)
            return 1
        names = [keycode_name(k) for k in keys]
        unknown = next((k for k, n in zip(keys, names, strict=True) if n is None), None)
        if unknown is not None:
            return _shell_exception(
                inv, "keyevent", f"java.lang.IllegalArgumentException: Unknown keycode: {unknown}"
            )
        with state.lock:
            for name in names:
                assert name is not None
                if not press_power_key(state, name):
                    nav.key(name)
        return 0
    if verb in ("tap", "press", "swipe", "draganddrop"):
        return _touch(inv, verb, rest)
    if verb == "motionevent":
        return motionevent(inv, rest)
    inv.err(f"Error: Unknown command: {verb}\n")
    inv.out(USAGE)
    return 1


COMMANDS: dict[str, CommandFn] = {"input": input_command}
