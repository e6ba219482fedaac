"""The capture path per device (issue #25): raw frames or the device's PNG, chosen from what
each cost on this device and link, remembered, re-checked now and then. Unit tests drive
``CapturePaths`` with a clock of their own; the simulated device's knobs (link rate, PNG
encode time) show the choice on both kinds of link."""

from __future__ import annotations

import argparse
import time

import pytest

from adbwire.cli import simulate
from adbwire.device.screen import Budget, ScreenHistory, capture, take_screenshot
from adbwire.device.screen.path_choice import (
    MIN_SAMPLES,
    RECHECK_EVERY,
    RECHECK_SECONDS,
    CapturePaths,
)
from adbwire.errors import UsageError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from tests.device.ui_sim import simulated

RAW = 10_368_016  # a 1080x2400 RGBA frame and its header
PNG = 400_000


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def warmed(raw: tuple[float, float], png: tuple[float, float], clock: Clock) -> CapturePaths:
    """Paths after the warm-up: (seconds, transfer seconds) of each capture."""
    paths = CapturePaths(clock)
    for _ in range(MIN_SAMPLES):
        assert paths.choose() == "raw"
        paths.record("raw", raw[0], RAW, raw[1])
        assert paths.choose() == "png"
        paths.record("png", png[0], PNG, png[1])
    return paths


def test_each_path_is_tried_min_samples_times_raw_first() -> None:
    paths = CapturePaths(Clock())
    taken = []
    for _ in range(2 * MIN_SAMPLES):
        path = paths.choose()
        taken.append(path)
        paths.record(path, 0.1, RAW if path == "raw" else PNG, 0.05)
    assert taken == ["raw", "png"] * MIN_SAMPLES


def test_raw_frames_slow_only_at_first_are_still_chosen() -> None:
    # A session's first captures pay for warming up (the device's first frames, the host's
    # first buffers): two slow raw frames must not hide a raw path that is then fastest.
    paths = CapturePaths(Clock())
    raw_seconds = iter([0.25, 0.28] + [0.03] * 20)
    taken = []
    for _ in range(10):
        path = paths.choose()
        taken.append(path)
        paths.record(path, next(raw_seconds) if path == "raw" else 0.07, PNG, 0.0)
    assert taken[-3:] == ["raw"] * 3, taken


def test_a_slow_link_prefers_the_device_png() -> None:
    # 5 MB/s (USB 2 at its worst): the raw frame takes 2 s, the PNG 0.3 s to encode + 0.08
    paths = warmed((2.1, 2.0), (0.4, 0.08), Clock())
    assert paths.link_rate == pytest.approx(RAW / 2.0)
    assert paths.choose() == "png"
    assert paths.predicted("png") < paths.predicted("raw") / 2  # type: ignore[operator]


def test_a_fast_link_prefers_raw_frames_when_the_device_encodes_slowly() -> None:
    paths = warmed((0.035, 0.03), (0.45, 0.001), Clock())
    assert paths.choose() == "raw"


def test_a_slow_first_capture_does_not_decide_for_good() -> None:
    clock = Clock()
    paths = CapturePaths(clock)
    paths.record("raw", 1.5, RAW, 0.03)  # the device's first capture: cold
    paths.record("png", 0.2, PNG, 0.01)
    paths.record("raw", 0.04, RAW, 0.03)
    paths.record("png", 0.2, PNG, 0.01)
    assert paths.choose() == "raw"


def test_the_other_path_is_tried_again_every_so_many_captures() -> None:
    paths = warmed((0.035, 0.03), (0.45, 0.001), Clock())
    taken = []
    for _ in range(RECHECK_EVERY + 1):
        path = paths.choose()
        taken.append(path)
        paths.record(path, 0.035 if path == "raw" else 0.45, RAW if path == "raw" else PNG, 0.03)
    assert taken.count("png") == 1 and taken[-1] == "png"
    assert paths.choose() == "raw"  # measured again, still slower


def test_the_other_path_is_tried_again_after_a_while() -> None:
    clock = Clock()
    paths = warmed((0.035, 0.03), (0.45, 0.001), clock)
    paths.record("raw", 0.035, RAW, 0.03)
    assert paths.choose() == "raw"
    clock.now += RECHECK_SECONDS
    assert paths.choose() == "png"


def test_a_slower_link_flips_the_choice_without_trying_png_again() -> None:
    paths = warmed((0.12, 0.1), (0.3, 0.004), Clock())  # 100 MB/s: raw wins
    assert paths.choose() == "raw"
    for _ in range(3):  # the cable got worse: 5 MB/s
        paths.record("raw", 2.1, RAW, 2.0)
    assert paths.choose() == "png"


def test_raw_frames_the_host_cannot_read_leave_png() -> None:
    paths = CapturePaths(Clock())
    paths.raw_unreadable()
    assert paths.choose() == "png"


def test_a_fast_link_keeps_raw_frames_on_the_simulated_device() -> None:
    with simulated("notes_list") as sim:
        sim.userland.device.screencap_encode_ms = 300
        history = ScreenHistory()
        for _ in range(2 * MIN_SAMPLES):
            take_screenshot(sim.client, history=history, budget=Budget(max_edge=300))
        paths = history.capture_paths(sim.client.serial)
        assert (paths.predicted("png") or 0) > 0.3  # the encode time was measured
        assert paths.choose() == "raw"
        shot = take_screenshot(sim.client, history=history, budget=Budget(max_edge=300))
        assert shot.source == "raw" and shot.changed is False


def timed_shots(count: int, history: ScreenHistory | None, client: object) -> float:
    started = time.monotonic()
    for _ in range(count):
        take_screenshot(client, history=history)  # type: ignore[arg-type]
    return time.monotonic() - started


def test_on_a_slow_link_the_adaptive_choice_is_at_least_twice_as_fast_as_raw() -> None:
    # 20 Mbit/s (a phone on a poor USB 2 link): a 10 MB raw frame takes 4 s, the device's
    # PNG 300 ms; the raw side is paced by the link, so the margin holds on a busy machine
    # (at 40 Mbit/s, CPU load on the host's PNG decode once narrowed it below 2x).
    with simulated("notes_list", link_mbps=20) as sim:
        sim.userland.device.screencap_encode_ms = 300
        history = ScreenHistory()
        timed_shots(2 * MIN_SAMPLES, history, sim.client)  # the warm-up measures both
        assert history.capture_paths(sim.client.serial).choose() == "png"
        adaptive = timed_shots(3, history, sim.client)
        always_raw = timed_shots(3, None, sim.client)  # no history: raw every time
        assert always_raw >= 2 * adaptive, (always_raw, adaptive)
        shot = take_screenshot(sim.client, history=history)
        assert shot.source == "png" and shot.changed is False  # same screen, either path


def test_the_simulated_device_takes_its_png_encode_time() -> None:
    with simulated("notes_list") as sim:
        sim.userland.device.screencap_encode_ms = 400
        started = time.monotonic()
        assert capture(sim.client, "png").source == "png"
        assert time.monotonic() - started >= 0.4


def parsed(*arguments: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    simulate.register(parser.add_subparsers())
    return parser.parse_args(["simulate", "--accept-any-key", *arguments])


def test_simulate_takes_the_encode_time_on_its_command_line() -> None:
    assert parsed("--screencap-encode-ms", "350").screencap_encode_ms == 350.0
    simulate.build_options(parsed("--screencap-encode-ms", "350"))
    with pytest.raises(UsageError, match="screencap-encode-ms"):
        simulate.build_options(parsed("--screencap-encode-ms", "-1"))


def test_a_path_that_fails_is_not_tried_at_every_capture() -> None:
    def broken_png(inv: Invocation, command: CommandFn) -> int:
        if "-p" in inv.args:
            inv.out(b"not a PNG")
            return 0
        return command(inv)

    with simulated("notes_list") as sim:
        sim.userland.hooks["screencap"] = broken_png
        history = ScreenHistory()
        shots = [take_screenshot(sim.client, history=history, budget=Budget(max_edge=300))]
        shots += [take_screenshot(sim.client, history=history, budget=Budget(300))]
        for _ in range(6):
            shots.append(take_screenshot(sim.client, history=history, budget=Budget(300)))
        assert {shot.source for shot in shots} == {"raw"}
        png_tries = [c for c in sim.userland.commands_named("screencap") if "-p" in c]
        assert len(png_tries) == 1  # tried once in the warm-up, then left until a re-check
