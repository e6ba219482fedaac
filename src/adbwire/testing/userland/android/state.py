"""The simulated Android system's run-time state, and the things that change it.

All mutations happen under `lock` (commands run in one thread per stream). Launching an
activity starts its app's process and logs what ActivityManager logs; an activity with a
crash trace in the scenario dies at launch, leaving a real-looking FATAL EXCEPTION in the
crash buffer.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from adbwire.testing.scenario import ActivitySpec, ProcessSpec, Scenario
from adbwire.testing.userland.android import app_faults
from adbwire.testing.userland.android.logs import LogStore
from adbwire.testing.userland.android.navigation import Navigator, Visit
from adbwire.testing.userland.android.notifications import NotificationCenter
from adbwire.testing.userland.android.packages import (
    InstalledPackage,
    InstallSession,
    short_component,
)
from adbwire.testing.userland.android.power import PowerState

SHELL_UID = 2000
DEFAULT_BATTERY: dict[str, int | bool | str] = {
    "ac_powered": True,
    "usb_powered": False,
    "wireless_powered": False,
    "dock_powered": False,
    "max_charging_current": 0,
    "max_charging_voltage": 0,
    "charge_counter": 10000,
    "status": 2,
    "health": 2,
    "present": True,
    "level": 100,
    "scale": 100,
    "voltage": 5000,
    "temperature": 250,
    "technology": "Li-ion",
}
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


class Clock:
    """Device wall clock: the scenario's start time, advancing with real time."""

    def __init__(self, start: datetime, uptime_seconds: float) -> None:
        self._start = start
        self._uptime = uptime_seconds
        self._t0 = time.monotonic()

    def now(self) -> datetime:
        return self._start + timedelta(seconds=time.monotonic() - self._t0)

    def uptime(self) -> float:
        return self._uptime + time.monotonic() - self._t0


@dataclass
class Process:
    pid: int
    name: str
    uid: int
    ppid: int = 1
    package: str | None = None
    argv: tuple[str, ...] = ()
    started: float = 0.0
    """Uptime in seconds when it started (0: at boot)."""
    session: int = 0
    """The pid of the shell session it belongs to (0: not started by a shell)."""
    pending_signal: int = 0
    """A signal sent to a shell or command process, acted on by the userland."""


@dataclass(frozen=True)
class LaunchResult:
    status: str  # "ok", "front" (task brought to front), "crashed"
    component: str  # short form, pkg/.Activity
    launch_state: str  # "COLD", "WARM", "HOT" or "UNKNOWN (0)"
    total_ms: int | None


class AndroidState:
    def __init__(self, scenario: Scenario) -> None:
        self.lock = threading.RLock()
        self.scenario = scenario
        start = datetime.strptime(scenario.clock, TIME_FORMAT)
        self.clock = Clock(start, scenario.uptime_seconds)
        self.properties = dict(scenario.properties)
        self.settings = {ns: dict(table) for ns, table in scenario.settings.items()}
        self.battery = {**DEFAULT_BATTERY, **scenario.battery}
        self.packages = {spec.name: InstalledPackage.from_spec(spec) for spec in scenario.packages}
        self.logs = LogStore(start.year)
        for buffer, text in scenario.logcat.items():
            self.logs.load(buffer, text)
        self.processes: dict[int, Process] = {}
        for process in scenario.processes or _DEFAULT_PROCESSES:
            self.processes[process.pid] = Process(process.pid, process.name, process.uid)
        self._next_pid = max(4000, max(self.processes, default=0) + 37)
        self.display_size_override: tuple[int, int] | None = None
        self.density_override: int | None = None
        self.root = False
        boot_ms = int(scenario.uptime_seconds * 1000)
        self.power = PowerState(last_wake_ms=max(0, boot_ms - 25_000))
        self.nav = Navigator(scenario, self._on_show)
        posted_ms = int(start.replace(tzinfo=timezone.utc).timestamp() * 1000)
        self.notifications = NotificationCenter(scenario, posted_ms)
        self.install_sessions: dict[int, InstallSession] = {}  # `pm install-create` ones
        self.app_locales: dict[str, str] = {}  # package -> `cmd locale` tags, comma-separated
        self.pointer: tuple[int, int] | None = None  # where `input motionevent DOWN` put it
        for spec in scenario.packages:
            if spec.running:
                self.start_process(spec.name, pid=spec.pid, quiet=True)
        for visit in self.nav.stack:
            if visit.package in self.packages:
                self.start_process(visit.package, quiet=True)

    # -- basics ------------------------------------------------------------------------------
    @property
    def sdk(self) -> int:
        try:
            return int(self.properties.get("ro.build.version.sdk", "34"))
        except ValueError:
            return 34

    @property
    def system_server_pid(self) -> int:
        return next((p.pid for p in self.processes.values() if p.name == "system_server"), 500)

    def log(
        self, buffer: str, level: str, tag: str, message: str, *, pid: int, tid: int = 0
    ) -> None:
        self.logs.add(
            buffer, self.clock.now(), pid=pid, tid=tid or pid, level=level, tag=tag, message=message
        )

    def system_log(self, level: str, tag: str, message: str) -> None:
        pid = self.system_server_pid
        self.log("system", level, tag, message, pid=pid, tid=pid + 82)

    def pids_of(self, name: str) -> list[int]:
        return sorted((p.pid for p in self.processes.values() if p.name == name), reverse=True)

    def current(self) -> Visit | None:
        return self.nav.current

    # -- processes ---------------------------------------------------------------------------
    def _on_show(self, visit: Visit) -> None:
        if visit.package in self.packages and visit.package != "android":
            self.start_process(visit.package)

    def start_process(
        self,
        package: str,
        *,
        reason: str = "next-top-activity",
        pid: int | None = None,
        quiet: bool = False,
        activity: str | None = None,
    ) -> tuple[int, bool]:
        """Start the package's process if needed; returns (pid, started_now)."""
        app = self.packages[package]
        if app.pid is not None:
            return app.pid, False
        while pid is None or pid in self.processes:
            pid = self._next_pid
            self._next_pid += 1 + pid % 7
        app.pid = pid
        zygote = next((p.pid for p in self.processes.values() if p.name == "zygote64"), 1)
        self.processes[pid] = Process(pid, package, app.uid, zygote, package)
        launcher = app.launcher_activity()
        what = activity or (launcher.name if launcher else package)
        if not quiet:
            self.system_log(
                "I",
                "ActivityManager",
                f"Start proc {pid}:{package}/{app.user_name.replace('_', '')} for "
                f"{reason} {{{package}/{what}}}",
            )
        return pid, True

    def kill(self, package: str, reason: str) -> None:
        app = self.packages.get(package)
        if app is None or app.pid is None:
            return
        pid = app.pid
        self.processes.pop(pid, None)
        app.pid = None
        self.log("main", "I", "Process", f"Sending signal. PID: {pid} SIG: 9", pid=pid)
        self.system_log("I", "ActivityManager", f"Process {package} (pid {pid}) has died: {reason}")

    def force_stop(self, package: str) -> None:
        if package not in self.packages:
            return
        was_running = self.packages[package].pid is not None
        self.nav.drop_package(package)
        if was_running:
            self.system_log(
                "I",
                "ActivityManager",
                f"Force stopping {package} appid="
                f"{self.packages[package].uid} user=0: from pid {self._shell_pid()}",
            )
            self.kill(package, "fg  TOP ")

    def _shell_pid(self) -> int:
        return self._next_pid + 3

    def spare_pid(self) -> int:
        """A pid for a short-lived helper process (crash_dump, tombstoned) that no process
        of the table has."""
        pid = self._next_pid
        self._next_pid += 1 + pid % 7
        return pid

    # -- activities --------------------------------------------------------------------------
    def launch(self, package: str, activity: ActivitySpec, intent: str) -> LaunchResult:
        component = short_component(package, activity.name)
        self.system_log("I", "ActivityTaskManager", f"START u0 {{{intent}}} from uid {SHELL_UID}")
        top = self.nav.current
        fails = activity.crash_log or activity.native_crash or activity.anr
        if fails is None and activity.launcher and self.nav.bring_to_front(package):
            return LaunchResult("front", component, "HOT", None)
        if top is not None and top.package == package and activity.screen == top.screen.id:
            return LaunchResult("ok", component, "HOT", 38)
        pid, cold = self.start_process(package, activity=activity.name)
        if activity.crash_log is not None:
            self.crash(package, activity, pid)
            return LaunchResult("crashed", component, "UNKNOWN (0)", None)
        if activity.native_crash is not None:
            app_faults.native_crash(self, package, activity, pid)
            return LaunchResult("crashed", component, "UNKNOWN (0)", None)
        if activity.anr is not None:
            app_faults.schedule_anr(self, package, activity, pid)
            return LaunchResult("hung", component, "UNKNOWN (0)", None)
        assert activity.screen is not None
        self.nav.show(activity.screen)
        total = 250 + 7 * len(package) if cold else 96
        self.system_log("I", "ActivityTaskManager", f"Displayed {component} for user 0: +{total}ms")
        return LaunchResult("ok", component, "COLD" if cold else "WARM", total)

    def crash(self, package: str, activity: ActivitySpec, pid: int) -> None:
        trace = (activity.crash_log or "").rstrip("\n")
        self.log(
            "crash",
            "E",
            "AndroidRuntime",
            f"FATAL EXCEPTION: main\nProcess: {package}, PID: {pid}\n{trace}",
            pid=pid,
        )
        component = short_component(package, activity.name)
        self.system_log("W", "ActivityTaskManager", f"  Force finishing activity {component}")
        self.nav.drop_package(package)
        self.kill(package, "fg  TOP ")

    def resolve_view(self, uri: str, package: str | None) -> tuple[str, ActivitySpec] | None:
        for app in self.packages.values():
            if package is not None and app.name != package:
                continue
            for activity in app.activities:
                if any(uri.startswith(prefix) for prefix in activity.deep_links):
                    return app.name, activity
        return None

    def uninstall(self, package: str, keep_data: bool) -> bool:
        app = self.packages.get(package)
        if app is None or app.system:
            return False
        self.force_stop(package)
        del self.packages[package]
        self.system_log(
            "I",
            "PackageManager",
            f"Removing package {package}" + (" (keeping data)" if keep_data else ""),
        )
        return True

    def clear_data(self, package: str) -> bool:
        app = self.packages.get(package)
        if app is None:
            return False
        self.force_stop(package)
        app.granted_runtime.clear()
        app.data_cleared = True
        return True

    def now_text(self) -> str:
        return self.clock.now().strftime(TIME_FORMAT)


_DEFAULT_PROCESSES = (
    ProcessSpec("init", 1, 0),
    ProcessSpec("zygote64", 312, 0),
    ProcessSpec("system_server", 545, 1000),
    ProcessSpec("adbd", 401, 2000),
)
