"""How much each measurement does, in full and quick mode, and the issue's targets."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Config:
    quick: bool
    echo_calls: int
    """Sequential `echo` calls per client."""
    echo_block: int
    """Calls per client before the next client takes a turn (A B A B interleaving)."""
    mcp_calls: int
    transfer_sizes: tuple[int, ...]
    transfer_rounds: int
    hol_size: int
    memory_sizes: tuple[int, ...]
    startup_runs: int
    screen_calls: int
    verify_bytes: bool
    """Compare every pulled byte with the source (quick mode: proves the harness moves data)."""
    compression_size: int = 16 * MIB
    """File size of the compression section (each way, each mode, at 40 Mbit/s)."""
    small_payload_size: int = 10 * MIB
    """File size of the small-payload section (1 KiB and 4 KiB payloads, sync v1)."""


FULL = Config(
    quick=False,
    echo_calls=300,
    echo_block=25,
    mcp_calls=100,
    transfer_sizes=(64 * MIB, 512 * MIB),
    transfer_rounds=3,
    hol_size=512 * MIB,
    memory_sizes=(64 * MIB, 1024 * MIB),
    startup_runs=5,
    screen_calls=10,
    verify_bytes=False,
)

QUICK = Config(
    quick=True,
    echo_calls=12,
    echo_block=4,
    mcp_calls=4,
    transfer_sizes=(2 * MIB,),
    transfer_rounds=1,
    hol_size=16 * MIB,
    memory_sizes=(2 * MIB, 8 * MIB),
    startup_runs=1,
    screen_calls=1,
    verify_bytes=True,
    compression_size=MIB,
    small_payload_size=MIB // 2,
)


@dataclass(frozen=True)
class Target:
    key: str
    description: str
    limit: float
    higher_is_better: bool

    def verdict(self, measured: float | None) -> str:
        if measured is None:
            return "PENDING"  # the caller tells PENDING from NOT RUN
        passed = measured >= self.limit if self.higher_is_better else measured <= self.limit
        return "PASS" if passed else "MISS"

    @property
    def wanted(self) -> str:
        return f"{'≥' if self.higher_is_better else '≤'} {self.limit:g}"


TARGETS = (
    Target("latency_vs_adb", "echo latency: adb subprocess median / adbwire median (x)", 20, True),
    Target("latency_vs_adb_shell", "echo latency: adb_shell median / adbwire median (x)", 1, True),
    Target("push_vs_adb", "push: adbwire MB/s / adb MB/s (x)", 1, True),
    Target("pull_vs_adb", "pull: adbwire MB/s / adb MB/s (x)", 1, True),
    Target("push_vs_adb_shell", "push: adbwire MB/s / adb_shell MB/s (x)", 2, True),
    Target("pull_vs_adb_shell", "pull: adbwire MB/s / adb_shell MB/s (x)", 2, True),
    Target("push_vs_ceiling", "push: adbwire MB/s / loopback socket copy MB/s", 0.5, True),
    Target("pull_vs_ceiling", "pull: adbwire MB/s / loopback socket copy MB/s", 0.5, True),
    Target("head_of_line", "echo median during a bulk pull / idle median (x)", 3, False),
    Target("memory_peak_mb", "client peak RSS during the largest push/pull (MB)", 150, False),
    Target(
        "startup_s", "spawn `adbwire serve --simulate` → first tools/list answer (s)", 1.5, False
    ),
    Target("compression_text", "40 Mbit/s link, log text: compressed / raw MB/s (x)", 2, True),
    Target(
        "compression_random", "40 Mbit/s link, random bytes: compressed / raw MB/s (x)", 0.95, True
    ),
    Target("cli_startup_ratio", "CLI start: adbwire / `python3 -S -c pass` (x)", 5, False),
    Target("mcp_startup_ratio", "MCP spawn → tools/list: serve --no-usb / minimal (x)", 1.3, False),
    Target(
        "small_payload_vs_adb",
        "1 KiB / 4 KiB payloads, checksums, sync v1: adbwire MB/s / adb MB/s (x)",
        1,
        True,
    ),
)
