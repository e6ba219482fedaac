"""What sessions changed on devices, and how to put each thing back when they end.

The first change of a setting on a device keeps how to restore the original; later changes
by any session only join it. A setting goes back when the last session that changed it ends,
so two sessions driving one device never restore each other's values. A call that asks to
keep its change drops the entry: nobody restores it then.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from adbwire.errors import AdbwireError
from adbwire.wire.client import AdbClient

log = logging.getLogger(__name__)
Restore = Callable[[AdbClient], object]
Noted = Callable[[Restore], None]
"""Told how to undo a change before a setter writes anything, so that a change whose
read-back then fails is still undone."""
ClientFor = Callable[[str], AdbClient]


@dataclass
class _Entry:
    description: str
    restore: Restore
    holders: set[Hashable] = field(default_factory=set)


@dataclass(frozen=True)
class Restored:
    serial: str
    key: str
    description: str
    error: str | None = None


class RestoreLedger:
    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], _Entry] = {}
        self._lock = threading.Lock()

    def record(
        self, session: Hashable, serial: str, key: str, description: str, restore: Restore
    ) -> bool:
        """Remember how to undo ``key`` on ``serial`` for ``session``; False when an
        earlier change already holds the original (the session joins it)."""
        with self._lock:
            entry = self._entries.get((serial, key))
            if entry is not None:
                entry.holders.add(session)
                return False
            self._entries[(serial, key)] = _Entry(description, restore, {session})
            return True

    def holds(self, serial: str, key: str) -> bool:
        """Whether an original of ``key`` on ``serial`` is already kept."""
        with self._lock:
            return (serial, key) in self._entries

    def keep(self, serial: str, key: str) -> bool:
        """Forget ``key`` on ``serial``: its current value stays after every session."""
        with self._lock:
            return self._entries.pop((serial, key), None) is not None

    def pending(self, session: Hashable | None = None) -> list[tuple[str, str, str]]:
        """(serial, key, description) of what will be restored (for ``session`` only)."""
        with self._lock:
            return [
                (serial, key, entry.description)
                for (serial, key), entry in self._entries.items()
                if session is None or session in entry.holders
            ]

    def end_session(self, session: Hashable, client_for: ClientFor) -> list[Restored]:
        """The session is over: restore what no other session still holds."""
        due: list[tuple[str, str, _Entry]] = []
        with self._lock:
            for (serial, key), entry in list(self._entries.items()):
                entry.holders.discard(session)
                if not entry.holders:
                    due.append((serial, key, entry))
                    del self._entries[(serial, key)]
        return _run(due, client_for)

    def restore_all(self, client_for: ClientFor) -> list[Restored]:
        with self._lock:
            due = [(serial, key, entry) for (serial, key), entry in self._entries.items()]
            self._entries.clear()
        return _run(due, client_for)


def _run(due: list[tuple[str, str, _Entry]], client_for: ClientFor) -> list[Restored]:
    """Newest first, so a setting changed twice ends at its first original."""
    done: list[Restored] = []
    for serial, key, entry in reversed(due):
        try:
            entry.restore(client_for(serial))
        except AdbwireError as exc:
            log.warning("could not restore %s on %s: %s", entry.description, serial, exc)
            done.append(Restored(serial, key, entry.description, str(exc)[:300]))
        else:
            done.append(Restored(serial, key, entry.description))
    return done
