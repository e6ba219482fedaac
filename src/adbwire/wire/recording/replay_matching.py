"""Which recorded stream a host's stream replays: by service at OPEN, then by its bytes.

A host stream stays bound to every unused recorded stream that still matches (same service
or the same meaning in another spelling, then the same host bytes) until one is left or the
device's recorded answer is due. Volatile tokens (ports, session ids) are learned on the way
and swapped into what the device sends. `replay_device` speaks the packets around this.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adbwire.wire.recording.host_bytes import HostCanon
from adbwire.wire.recording.meaning import (
    EXIT_STATUS_UNKNOWN,
    SAME,
    Translation,
    match_meaning,
)
from adbwire.wire.recording.script import (
    DeviceChunk,
    RecordedStream,
    ReplayScript,
    match_bytes,
    match_service,
)
from adbwire.wire.recording.sync_replay import SyncPool, SyncServe


@dataclass
class LiveStream:
    """One host stream being replayed, and the recorded streams it may still be."""

    host_id: int
    device_id: int
    service: str
    candidates: list[RecordedStream]
    swaps: dict[int, dict[bytes, bytes]]
    translations: dict[int, Translation]
    canon: HostCanon
    recorded: RecordedStream | None = None
    chunks: list[DeviceChunk] = field(default_factory=list)
    """What the device sends: the recorded chunks, translated for the client's spelling."""
    current: bytes = b""
    """The device chunk being sent, with volatile tokens swapped."""
    host_offset: int = 0
    next_chunk: int = 0
    chunk_offset: int = 0
    awaiting_okay: bool = False
    closed: bool = False
    sync: SyncServe | None = None
    """A `sync:` stream, answered request by request (`sync_replay`)."""

    def answer_due(self) -> bool:
        """The first candidate's device answers (or closes) once the host has written this much."""
        first = self.candidates[0]
        if first.device:
            return first.device[0].gate <= self.host_offset
        return first.close_by == "device" and first.close_gate <= self.host_offset

    def device_closes(self) -> bool:
        if self.sync is not None:
            return self.sync.quit
        recorded = self.recorded
        assert recorded is not None
        return recorded.close_by == "device" and recorded.close_gate <= self.host_offset

    def racing_device_close(self) -> bool:
        """Everything the host wrote when recorded is in, and the device closes each candidate."""
        return all(
            self.host_offset >= len(candidate.host) and candidate.close_by == "device"
            for candidate in self.candidates
        )


class StreamMatcher:
    """The recorded streams used so far and the volatile tokens learned, for one connection."""

    def __init__(self, script: ReplayScript) -> None:
        self.script = script
        self.used: dict[int, LiveStream | None] = {}  # recorded number -> its live stream
        self.swaps: dict[bytes, bytes] = {}
        """Volatile tokens seen so far: recorded -> what this host uses instead."""

    def open_candidates(
        self, service: str
    ) -> tuple[list[RecordedStream], dict[int, dict[bytes, bytes]], dict[int, Translation]]:
        """The unused recorded streams an OPEN of `service` may be, in recorded order, with
        the tokens each would swap and how each translates the client's spelling."""
        swaps: dict[int, dict[bytes, bytes]] = {}
        translations: dict[int, Translation] = {}
        candidates: list[RecordedStream] = []
        for recorded in self.script.streams:
            if recorded.number in self.used:
                continue
            found = match_service(recorded.service, service)
            translation: Translation | None = SAME
            if found is None:
                found, translation = {}, match_meaning(recorded.service, service)
            if translation is not None and self.consistent(found):
                candidates.append(recorded)
                swaps[recorded.number] = found
                translations[recorded.number] = translation
        return candidates, swaps, translations

    def narrow(self, live: LiveStream, data: bytes) -> bool:
        """Keep the candidates whose recorded host bytes go on with `data` and take it in;
        False (nothing changed) when none does."""
        start = live.host_offset
        matching: list[RecordedStream] = []
        learned: list[dict[bytes, bytes]] = []
        for candidate in live.candidates:
            found = match_bytes(bytes(candidate.host[start : start + len(data)]), data)
            if found is not None and self.consistent(found):
                matching.append(candidate)
                learned.append(found)
        if not matching:
            return False
        self.swaps.update(learned[0])
        live.candidates = matching
        live.host_offset += len(data)
        return True

    def commit(self, live: LiveStream, recorded: RecordedStream) -> None:
        """`live` is `recorded` from now on: its chunks are what the device sends."""
        live.recorded = recorded
        live.candidates = [recorded]
        live.chunks = list(recorded.device)
        marker = live.translations.get(recorded.number, SAME).exit_marker
        if marker is not None and recorded.close_by == "device":
            # The recorded plain `shell:` gave no exit status; adbwire's wrapper asked for one.
            status = marker.encode() + EXIT_STATUS_UNKNOWN + b"\n"
            live.chunks.append(DeviceChunk(recorded.close_gate, status, recorded.close_line or 0))
        self.used[recorded.number] = live
        self.swaps.update(live.swaps.get(recorded.number, {}))

    def consistent(self, swaps: dict[bytes, bytes]) -> bool:
        return all(self.swaps.get(old, new) == new for old, new in swaps.items())

    def swapped(self, data: bytes) -> bytes:
        for old, new in self.swaps.items():
            data = data.replace(old, new)
        return data

    def leftovers(self, sync_pool: SyncPool) -> list[str]:
        """Recorded traffic the client never asked for, one sentence each."""
        found: list[str] = sync_pool.leftovers()
        for recorded in self.script.streams:
            if recorded.number in sync_pool.streams:
                continue
            if recorded.number not in self.used:
                found.append(f"{recorded.describe()} was never opened")
                continue
            live = self.used[recorded.number]
            if live is None:
                continue
            sent = sum(len(chunk.data) for chunk in recorded.device[: live.next_chunk])
            sent += live.chunk_offset
            total = recorded.device_size
            if sent < total:
                found.append(f"{recorded.describe()}: {total - sent} device bytes never sent")
            if live.host_offset < len(recorded.host):
                found.append(
                    f"{recorded.describe()}: the client wrote {live.host_offset} of the "
                    f"{len(recorded.host)} recorded bytes"
                )
        return found
