"""`bugreportz` (and `bugreport`): a zipped bug report, as `adb bugreport PATH` asks for it.

`bugreportz -v` prints the version on stderr; `bugreportz -p` prints dumpstate's progress
and where the zip is, in the order a real device prints them (samples in
tests/simulator/data/bugreportz_p.txt): a PROGRESS line, BEGIN:PATH, PROGRESS lines, then
OK:PATH, and one more PROGRESS line after it. Without -p only the OK (or FAIL) line.

The report is small and made of the device's own state (getprop, dumpsys window and
package lines, the logcat buffers), in a zip laid out like a real one (main_entry.txt names
the text, version.txt). Real dumpstate takes minutes; this takes no time.
"""

from __future__ import annotations

import io
import zipfile
from typing import Final

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.android.state import AndroidState
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

__all__ = ["COMMANDS", "REPORT_DIR"]

VERSION: Final = "1.2"
"""bugreportz's version on Android 12 and later."""
REPORT_DIR: Final = "/data/user_de/0/com.android.shell/files/bugreports"
PROGRESS_TOTAL: Final = 1683
PROGRESS_STEPS: Final = (20, 40, 60, 110, 420, 870, 1310, 1560, 1619)
USAGE: Final = (
    "usage: bugreportz [-hpsv]\n"
    "  -h: to display this help message\n"
    "  -p: display progress\n"
    "  -s: stream content to standard output\n"
    "  -v: to display the version\n"
    "  or no arguments to generate a zipped bugreport\n"
)


def bugreportz(inv: Invocation) -> int:
    flags = set()
    for arg in inv.args:
        if not arg.startswith("-") or len(arg) < 2 or set(arg[1:]) - set("hpsv"):
            inv.err(USAGE)
            return 1
        flags |= set(arg[1:])
    if "h" in flags:
        inv.err(USAGE)
        return 0
    if "v" in flags:
        inv.err(f"{VERSION}\n")
        return 0
    if "s" in flags:
        inv.out(_report_zip(inv.device.state, _name(inv.device.state)))
        return 0
    progress = "p" in flags
    state = inv.device.state
    path = f"{REPORT_DIR}/{_name(state)}.zip"
    if progress:
        inv.out(f"PROGRESS:{PROGRESS_STEPS[0]}/{PROGRESS_TOTAL}\nBEGIN:{path}\n")
        for step in PROGRESS_STEPS[1:-1]:
            inv.out(f"PROGRESS:{step}/{PROGRESS_TOTAL}\n")
    try:
        inv.device.files.mkdir(REPORT_DIR, parents=True)
        inv.device.files.write_file(path, _report_zip(state, _name(state)), mode=0o100644)
    except FsError as exc:
        inv.out(f"FAIL:Could not write {path}: {exc.message}\n")
        return 0  # dumpstate's failure is in the text; bugreportz itself exits 0
    inv.out(f"OK:{path}\n")
    if progress:
        inv.out(f"PROGRESS:{PROGRESS_STEPS[-1]}/{PROGRESS_TOTAL}\n")
    return 0


def _name(state: AndroidState) -> str:
    """bugreport-DEVICE-BUILD_ID-YYYY-MM-DD-HH-MM-SS, as dumpstate names its reports."""
    device = state.properties.get("ro.product.device", "generic")
    build = state.properties.get("ro.build.id", "UNKNOWN")
    when = state.clock.now().strftime("%Y-%m-%d-%H-%M-%S")
    return f"bugreport-{device}-{build}-{when}"


def _report_zip(state: AndroidState, name: str) -> bytes:
    properties = "".join(f"[{key}]: [{value}]\n" for key, value in sorted(state.properties.items()))
    packages = "".join(
        f"  Package [{app.name}] versionCode={app.version_code}\n"
        for app in sorted(state.packages.values(), key=lambda app: app.name)
    )
    text = (
        "========================================================\n"
        "== dumpstate: " + state.clock.now().strftime("%Y-%m-%d %H:%M:%S") + "\n"
        "========================================================\n\n"
        f"Build: {state.properties.get('ro.build.display.id', '')}\n"
        f"Build fingerprint: '{state.properties.get('ro.build.fingerprint', '')}'\n\n"
        "------ SYSTEM PROPERTIES (getprop) ------\n" + properties + "\n"
        "------ DUMPSYS package (packages) ------\n" + packages
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{name}.txt", text)
        archive.writestr("main_entry.txt", f"{name}.txt")
        archive.writestr("version.txt", "2.0")
        archive.writestr("dumpstate_log.txt", "dumpstate: simulated report\n")
    return buffer.getvalue()


COMMANDS: dict[str, CommandFn] = {"bugreportz": bugreportz}
