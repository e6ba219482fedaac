"""How a simulated app dies or hangs at launch, logged as Android logs it.

- a native crash: libc's ``Fatal signal`` line from the app's process, then the tombstone
  crash_dump writes under the tag ``DEBUG`` (header, the scenario's body from ``signal``
  to the backtrace), tombstoned's line, and the activity manager seeing the process die;
- an ANR: the app's main thread hangs in ``onCreate`` (no window ever takes the focus);
  ``anr_after_ms`` later the activity manager logs ``ANR in`` with the PID and reason, and
  the "isn't responding" dialog (a screen whose component is ``android/Application Not
  Responding: PKG``, when the scenario has one) takes the focus.

The Java crash (``AndroidState.crash``) stays beside the launch it ends.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from adbwire.testing.scenario import ActivitySpec
from adbwire.testing.userland.android.packages import short_component

if TYPE_CHECKING:
    from adbwire.testing.userland.android.state import AndroidState

COMM_LENGTH = 15
_STARS = "*** " * 15 + "***"


def thread_name(process: str) -> str:
    """The name the kernel keeps for an app's main thread: the last 15 characters."""
    return process[-COMM_LENGTH:]


def native_crash(state: AndroidState, package: str, activity: ActivitySpec, pid: int) -> None:
    """Log a native crash of ``package``'s process ``pid`` and let the process die."""
    app = state.packages[package]
    name = thread_name(package)
    body = (activity.native_crash or "").strip("\n").splitlines()
    signal = next((line for line in body if line.startswith("signal ")), "signal 11 (SIGSEGV)")
    head = signal.split(", fault addr")[0].replace("signal", "Fatal signal", 1)
    state.log(
        "crash",
        "F",
        "libc",
        f"{head}, fault addr 0x0 in tid {pid} ({name}), pid {pid} ({name})",
        pid=pid,
    )
    dumper = state.spare_pid()
    fingerprint = state.properties.get("ro.build.fingerprint", "")
    abi = state.properties.get("ro.product.cpu.abi", "arm64-v8a").split("-")[0]
    lines = [
        _STARS,
        f"Build fingerprint: '{fingerprint}'",
        "Revision: '0'",
        f"ABI: '{abi}'",
        f"Timestamp: {state.clock.now().strftime('%Y-%m-%d %H:%M:%S.%f')}000+0000",
        "Process uptime: 1s",
        f"Cmdline: {package}",
        f"pid: {pid}, tid: {pid}, name: {name}  >>> {package} <<<",
        f"uid: {app.uid}",
        *body,
    ]
    for line in lines:
        state.log("crash", "F", "DEBUG", line, pid=dumper)
    state.log(
        "main",
        "E",
        "tombstoned",
        f"Tombstone written to: /data/tombstones/tombstone_0{pid % 10}",
        pid=state.spare_pid(),
    )
    component = short_component(package, activity.name)
    state.system_log("W", "ActivityTaskManager", f"  Force finishing activity {component}")
    state.nav.drop_package(package)
    state.kill(package, "crash")


def schedule_anr(state: AndroidState, package: str, activity: ActivitySpec, pid: int) -> None:
    """Report ``package`` as not responding ``anr_after_ms`` from now, if that process is
    still the app's by then."""

    def fire() -> None:
        with state.lock:
            app = state.packages.get(package)
            if app is None or app.pid != pid:
                return  # stopped or restarted meanwhile: nothing hangs any more
            component = short_component(package, activity.name)
            state.system_log(
                "E",
                "ActivityManager",
                f"ANR in {package} ({component})\nPID: {pid}\nReason: {activity.anr}\n"
                f"Parent: {component}\nFrozen: false\nLoad: 0.62 / 0.48 / 0.41",
            )
            dialog = f"android/Application Not Responding: {package}"
            screen = next(
                (s.id for s in state.scenario.screens.values() if s.component == dialog), None
            )
            if screen is not None:
                state.nav.show(screen)

    timer = threading.Timer(activity.anr_after_ms / 1000, fire)
    timer.daemon = True
    timer.start()
