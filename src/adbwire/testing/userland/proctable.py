"""The device's process table, shared by every shell session.

Android's processes (init, zygote, system_server, apps) live in `AndroidState.processes`;
each shell (one per shell/exec stream) and each command it runs is added there while it
runs, so `ps -A` in one session sees a `sleep` running in another, `$$`, `pidof` and `kill`
agree, and /proc/PID is generated from the same entries. A signal to a shell or a command
is recorded on its entry; the interpreter acts on it between and during commands.
"""

from __future__ import annotations

import itertools
from typing import Final

from adbwire.testing.userland.android.state import AndroidState, Process

SIGNALS: Final = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8,
    "KILL": 9, "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
    "STKFLT": 16, "CHLD": 17, "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22,
    "URG": 23, "XCPU": 24, "XFSZ": 25, "VTALRM": 26, "PROF": 27, "WINCH": 28, "IO": 29,
    "PWR": 30, "SYS": 31,
}  # fmt: skip
SIGNAL_NAMES: Final = {number: name for name, number in SIGNALS.items()}
_IGNORED_BY_DEFAULT: Final = frozenset({SIGNALS["CHLD"], SIGNALS["CONT"], SIGNALS["URG"],
                                         SIGNALS["WINCH"]})  # fmt: skip


def signal_number(text: str) -> int | None:
    """`TERM`, `SIGTERM`, `term` or `15` as a number; None if it names no signal."""
    if text.isdigit():
        number = int(text)
        return number if 0 <= number <= 64 else None
    name = text.upper()
    name = name[3:] if name.startswith("SIG") else name
    return SIGNALS.get(name)


def terminates(signal: int) -> bool:
    """Whether the signal's default action ends the process (STOP is not simulated)."""
    return signal not in _IGNORED_BY_DEFAULT and signal not in (SIGNALS["STOP"], SIGNALS["TSTP"])


class ProcessTable:
    def __init__(self, state: AndroidState, first_pid: int) -> None:
        self.state = state
        self._pids = itertools.count(first_pid)

    def allocate_pid(self) -> int:
        with self.state.lock:
            while True:
                pid = next(self._pids)
                if pid not in self.state.processes:
                    return pid

    def spawn(self, argv: list[str], *, ppid: int, uid: int, session: int = 0) -> Process:
        """Add a running shell or command; `reap` removes it when it ends."""
        name = (argv[0].rsplit("/", 1)[-1] if argv else "sh") or "sh"
        state = self.state
        with state.lock:
            pid = next(self._pids)
            while pid in state.processes:
                pid = next(self._pids)
            process = Process(
                pid,
                name,
                uid,
                ppid,
                argv=tuple(argv),
                started=state.clock.uptime(),
                session=session or pid,
            )
            state.processes[pid] = process
        return process

    def reap(self, process: Process) -> None:
        with self.state.lock:
            if self.state.processes.get(process.pid) is process:
                del self.state.processes[process.pid]

    def get(self, pid: int) -> Process | None:
        with self.state.lock:
            return self.state.processes.get(pid)

    def snapshot(self) -> list[Process]:
        with self.state.lock:
            return sorted(self.state.processes.values(), key=lambda p: p.pid)

    def send(self, pid: int, signal: int, *, sender_uid: int) -> str | None:
        """kill(2): None when delivered, else the error text ("No such process"…)."""
        state = self.state
        with state.lock:
            process = state.processes.get(pid)
            if process is None:
                return "No such process"
            if sender_uid not in (0, process.uid):
                return "Operation not permitted"
            if signal == 0 or not terminates(signal):
                return None
            if process.session:
                process.pending_signal = signal
            elif process.package is not None:
                state.kill(process.package, f"killed by signal {signal}")
            # init, zygote and system_server survive: their deaths are not simulated
        return None
