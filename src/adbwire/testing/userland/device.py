"""The simulated device as commands see it: Android state, files, and the command table."""

from __future__ import annotations

import calendar
import contextlib
import os
from datetime import datetime

from adbwire.testing.device_files import DeviceFiles, FsError
from adbwire.testing.scenario import Scenario
from adbwire.testing.userland.android.display_modes import night_mode, rotation, turn_canvas
from adbwire.testing.userland.android.png import Canvas, decode_png, png_size
from adbwire.testing.userland.android.render import render_screen
from adbwire.testing.userland.android.state import TIME_FORMAT, AndroidState
from adbwire.testing.userland.commands import build_registry
from adbwire.testing.userland.commands.toybox import APPLETS
from adbwire.testing.userland.ownership import SHELL, FileOwners
from adbwire.testing.userland.proctable import ProcessTable
from adbwire.testing.userland.shell.interp import CommandFn

_PATH = ":".join(
    (
        "/product/bin",
        "/apex/com.android.runtime/bin",
        "/apex/com.android.art/bin",
        "/system_ext/bin",
        "/system/bin",
        "/system/xbin",
        "/odm/bin",
        "/vendor/bin",
        "/vendor/xbin",
    )
)


_BINARY = b"\x7fELF\x02\x01\x01" + bytes(57)  # the start of an ELF header, for `file`-like checks
_IMAGE_TIME = 1230768000  # 2009-01-01 00:00 UTC: the fixed time stamp of files in an Android image


_IMAGE_MODES = (  # directory modes of an Android 14 image (owners: see ownership.py)
    ("/", 0o40755),
    ("/data", 0o40771),
    ("/data/local", 0o40751),
    ("/data/local/tmp", 0o40771),
)


class Device:
    """One simulated Android device: shared by every shell that runs on it."""

    def __init__(self, scenario: Scenario, files: DeviceFiles) -> None:
        self.scenario = scenario
        self._files = files
        self.state = AndroidState(scenario)
        self._commands = build_registry()
        self._processes = ProcessTable(self.state, self.state.system_server_pid * 13 + 1000)
        self._image_cache: dict[tuple[object, ...], tuple[int, int, bytes]] = {}
        self.screencap_encode_ms = 0.0
        """What `screencap -p` spends encoding before it writes (a phone: hundreds of ms)."""
        files.ownership = FileOwners(self.user_id)
        self._install_system_bin()
        for path, mode in _IMAGE_MODES:
            with contextlib.suppress(FsError):
                files.chmod(path, mode)
        self._populate_files()

    @property
    def files(self) -> DeviceFiles:
        return self._files

    def lookup(self, name: str) -> CommandFn | None:
        return self._commands.get(name)

    def next_pid(self) -> int:
        return self._processes.allocate_pid()

    @property
    def processes(self) -> ProcessTable:
        return self._processes

    def user_id(self) -> int:
        """The uid shells run as: shell (2000), or root once adbd was restarted as root."""
        return 0 if self.state.root else SHELL

    def adbd_pid(self) -> int:
        """The newest adbd's pid (1 if none runs): every shell session's parent."""
        state = self.state
        with state.lock:  # another session may be adding or reaping a process
            return max((p.pid for p in state.processes.values() if p.name == "adbd"), default=1)

    def environment(self) -> dict[str, str]:
        user = "root" if self.state.root else "shell"
        return {
            "PATH": _PATH,
            "HOME": "/",
            "ANDROID_DATA": "/data",
            "ANDROID_ROOT": "/system",
            "ANDROID_STORAGE": "/storage",
            "EXTERNAL_STORAGE": "/sdcard",
            "ASEC_MOUNTPOINT": "/mnt/asec",
            "TMPDIR": "/data/local/tmp",
            "HOSTNAME": self.hostname,
            "USER": user,
            "LOGNAME": user,
            "SHELL": "/bin/sh",
            "TERM": "dumb",
            "IFS": " \t\n",
        }

    @property
    def hostname(self) -> str:
        return self.state.properties.get("ro.product.device", "localhost")

    # -- screen images -----------------------------------------------------------------------
    def screen_size(self) -> tuple[int, int]:
        display = self.scenario.display
        return self.state.display_size_override or (display.width, display.height)

    def screenshot(self, *, raw: bool) -> tuple[int, int, bytes]:
        """The current screen as (width, height, PNG bytes), or RGBA pixels when raw."""
        width, height = self.scenario.display.width, self.scenario.display.height
        visit = self.state.current()
        if visit is None or visit.screen.secure or not self.state.power.awake:
            canvas = Canvas(width, height, (0, 0, 0, 255), [])
            return width, height, canvas.rgba() if raw else canvas.png()
        turns, dark = rotation(self.state), night_mode(self.state) == "yes"
        shown = visit.record_id if visit.package == "android" else ""  # system windows change
        key = (visit.screen.id, visit.keyboard, raw, turns, dark, shown)
        cached = self._image_cache.get(key)
        if cached is None:
            png = visit.screen.screenshot
            if png is not None and not visit.keyboard and not turns and not dark:
                width, height = png_size(png)
                cached = (width, height, decode_png(png)[2] if raw else png)
            else:
                canvas = render_screen(
                    visit.tree, width, height, keyboard=visit.keyboard, dark=dark
                )
                canvas = turn_canvas(canvas, turns)
                width, height = canvas.width, canvas.height
                cached = (width, height, canvas.rgba() if raw else canvas.png())
            self._image_cache[key] = cached
        return cached

    # -- file tree ---------------------------------------------------------------------------
    def _install_system_bin(self) -> None:
        """/system/bin as the image has it: toybox and its links, and the other commands."""
        files = self._files
        if files.exists("/system/bin/toybox", follow=False):
            return
        files.write_bytes("/system/bin/toybox", _BINARY, 0o100755)
        links = {*APPLETS, "getprop", "setprop", "printenv"}
        for name in sorted(self._commands):
            if name in ("[", "toybox"):
                continue
            path = f"/system/bin/{name}"
            if name in links:
                os.symlink("toybox", files.host_path(path, follow=False))
            elif name == "sh":
                os.symlink("mksh", files.host_path(path, follow=False))
            else:
                files.write_bytes(path, _BINARY, 0o100755)
        for name in os.listdir(files.host_path("/system/bin")):
            os.utime(files.host_path(f"/system/bin/{name}", follow=False), (_IMAGE_TIME,) * 2,
                     follow_symlinks=False)  # fmt: skip

    def _populate_files(self) -> None:
        for spec in self.scenario.files:
            try:
                if spec.directory:
                    with contextlib.suppress(FsError):
                        self._files.mkdir(spec.path, parents=True)
                else:
                    default = (
                        0o100660 if spec.path.startswith(("/sdcard", "/storage")) else 0o100644
                    )
                    self._files.write_bytes(spec.path, spec.content, spec.mode or default)
                if spec.mtime:
                    stamp = datetime.strptime(spec.mtime, TIME_FORMAT)
                    self._files.set_mtime(spec.path, calendar.timegm(stamp.timetuple()))
            except FsError as exc:
                raise FsError(exc.errno_name, exc.message, spec.path) from exc
