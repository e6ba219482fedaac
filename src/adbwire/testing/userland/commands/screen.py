"""`uiautomator dump`, `screencap`, `wm size`, `wm density`."""

from __future__ import annotations

import dataclasses
import time

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.android.display_modes import rotation
from adbwire.testing.userland.android.png import raw_frame
from adbwire.testing.userland.android.ui import UiTree, compressed, serialize
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

DEFAULT_DUMP_PATH = "/sdcard/window_dump.xml"
_STDOUT_PATHS = ("/dev/tty", "/dev/stdout", "/proc/self/fd/1")


def current_tree(inv: Invocation) -> UiTree | None:
    visit = inv.device.state.current()
    return visit.tree if visit is not None else None


def uiautomator(inv: Invocation) -> int:
    if not inv.args or inv.args[0] != "dump":
        inv.err(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
            "help: displays help message\n\nruntest: executes UI automation tests\n\n"
            "dump: creates an XML dump of current UI hierarchy\n\n"
            "events: prints out accessibility events until terminated\n"
        )
        return 0
    path = DEFAULT_DUMP_PATH
    verbose = True
    for arg in inv.args[1:]:
        if arg == "--compressed":
            verbose = False
        elif not arg.startswith("-"):
            path = inv.path(arg)
    state = inv.device.state
    with state.lock:
        tree = current_tree(inv)
        if tree is None:
            inv.err("ERROR: null root node returned by UiTestAutomationBridge.\n")
            return 0
        shown = tree if verbose else compressed(tree)
        xml = serialize(dataclasses.replace(shown, rotation=str(rotation(state))))
    if path in _STDOUT_PATHS:
        inv.out(xml)
    elif path != "/dev/null":
        try:
            inv.device.files.write_file(path, xml.encode(), 0o100660)
        except FsError:
            # As on Android: the dumper logs the IOException and still reports success.
            state.log(
                "main",
                "E",
                "AccessibilityNodeInfoDumper",
                "failed to dump window to file",
                pid=inv.shell.pid,
            )
    inv.out(f"UI hierchary dumped to: {path}\n")
    return 0


def screencap(inv: Invocation) -> int:
    png = False
    operands: list[str] = []
    args = list(inv.args)
    while args:
        arg = args.pop(0)
        if arg in ("-p", "--png"):
            png = True
        elif arg == "-d" and args:
            args.pop(0)
        elif arg in ("-h", "--help") or (arg.startswith("-") and arg != "-a"):
            inv.err(
                "usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n"
                "   -p: save the file as a png.\n   -d: specify the display ID to capture\n"
                "If FILENAME ends with .png it will be saved as a png.\n"
                "If FILENAME is not given, the results will be printed to stdout.\n"
            )
            return 1
        elif arg != "-a":
            operands.append(arg)
    if len(operands) > 1:
        return inv.fail("too many arguments")
    target = operands[0] if operands else None
    if target is not None and target.endswith(".png"):
        png = True
    device = inv.device
    with device.state.lock:
        width, height, data = device.screenshot(raw=not png)
    if png:
        _encode_pause(inv, device.screencap_encode_ms / 1000)
    if not png:
        data = raw_frame(width, height, data, sdk=device.state.sdk)
    if target is None:
        inv.out(data)
        return 0
    try:
        device.files.write_file(inv.path(target), data, 0o100660)
    except FsError as exc:
        inv.err(f"Error opening file: {target} ({exc.message})\nSaving image failed.\n")
        return 1
    return 0


def _encode_pause(inv: Invocation, seconds: float) -> None:
    """The time a phone's PNG encoder takes (the simulator's image is cached and tiny)."""
    deadline = time.monotonic() + seconds
    while not inv.cancelled and (remaining := deadline - time.monotonic()) > 0:
        time.sleep(min(remaining, 0.02))


def wm(inv: Invocation) -> int:
    state = inv.device.state
    display = state.scenario.display
    if inv.args[:1] == ["dismiss-keyguard"]:
        return 0  # the device has no lock screen: nothing to dismiss
    if not inv.args or inv.args[0] not in ("size", "density"):
        inv.err(f"Unknown command: {inv.args[0] if inv.args else ''}\n")
        return 255
    verb, rest = inv.args[0], [a for a in inv.args[1:] if a not in ("-d", "0")]
    with state.lock:
        if verb == "size":
            if rest == ["reset"]:
                state.display_size_override = None
            elif rest:
                try:
                    width, height = (int(v) for v in rest[0].lower().split("x"))
                except ValueError:
                    inv.err(f"Error: bad size {rest[0]}\n")
                    return 255
                state.display_size_override = (width, height)
            else:
                inv.out(f"Physical size: {display.width}x{display.height}\n")
                if state.display_size_override:
                    inv.out("Override size: {}x{}\n".format(*state.display_size_override))
            return 0
        if rest == ["reset"]:
            state.density_override = None
        elif rest:
            if not rest[0].isdigit():
                inv.err(f"Error: bad number {rest[0]}\n")
                return 255
            state.density_override = int(rest[0])
        else:
            inv.out(f"Physical density: {display.density}\n")
            if state.density_override:
                inv.out(f"Override density: {state.density_override}\n")
    return 0


COMMANDS: dict[str, CommandFn] = {"uiautomator": uiautomator, "screencap": screencap, "wm": wm}
