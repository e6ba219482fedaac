"""Double tap, long press and drag at coordinates, each with the injection that works on
the device's release, and the command used reported back.

Why not simply two ``input tap`` in a row: each ``input`` run starts a Java runtime
(100-500 ms on a phone), so the second tap lands after the double-tap timeout (300 ms) and
the app sees two single taps. Two ``input tap`` processes started 80 ms apart in one shell
line spend their start-up time side by side, and their taps land about 80 ms apart.

- long press: ``input swipe x y x y MS`` (a swipe that does not move holds the finger
  down for MS; Android 4.4+).
- drag without a hold: ``input swipe x1 y1 x2 y2 MS``.
- drag with a hold (pick up an icon, a list item to reorder): on Android 11+
  (API 30) ``input motionevent DOWN``, a sleep of ``hold_ms``, a few ``MOVE`` events and
  ``UP`` — one gesture even across ``input`` processes, because the input dispatcher, not
  the process, keeps the pointer down. ``input draganddrop`` (Android 12+) also drags, but
  holds for the system's long-press timeout, not ``hold_ms``, so it is not used. Older
  releases get the swipe, and the result says the hold was not possible.
"""

from __future__ import annotations

from dataclasses import dataclass

from adbwire.device import commands
from adbwire.device.input import INPUT_TIMEOUT
from adbwire.device.sdk import sdk_level
from adbwire.errors import CommandFailedError, UsageError
from adbwire.wire import shell_quote
from adbwire.wire.client import AdbClient

DOUBLE_TAP_GAP_S = 0.08
MOTIONEVENT_SDK = 30
MAX_DURATION_MS = 10_000
MAX_HOLD_MS = 10_000
DRAG_STEPS = 4
MAX_COORDINATE = 100_000


@dataclass(frozen=True)
class Gesture:
    kind: str
    """double_tap, long_press or drag."""
    method: str
    """parallel_taps, swipe or motionevent."""
    command: str
    """The shell command line that ran on the device."""
    note: str | None = None


def _point(x: int, y: int) -> tuple[str, str]:
    for value in (x, y):
        if not 0 <= value <= MAX_COORDINATE:
            raise UsageError(f"coordinate {value} is outside the screen")
    return str(x), str(y)


def _duration(value: int, limit: int, what: str) -> str:
    if not 0 <= value <= limit:
        raise UsageError(f"{what} must be within 0..{limit} ms")
    return str(value)


def _run(client: AdbClient, line: str, what: str, seconds: float = 0.0) -> None:
    result = commands.run_line(client, line, timeout=INPUT_TIMEOUT + seconds)
    if result.exit_code != 0:
        said = commands.decode(result.stderr or result.stdout).strip()
        raise CommandFailedError(what, result.exit_code or 1, said[-300:])


def double_tap_line(x: int, y: int) -> str:
    tap = shell_quote.join(["input", "tap", *_point(x, y)])
    return f"{tap} & sleep {DOUBLE_TAP_GAP_S}; {tap}; wait"


def double_tap(client: AdbClient, x: int, y: int) -> Gesture:
    """Two taps at (x, y) inside the double-tap timeout (see the module docstring)."""
    line = double_tap_line(x, y)
    _run(client, line, "double tap")
    return Gesture("double_tap", "parallel_taps", line)


def long_press(client: AdbClient, x: int, y: int, *, duration_ms: int = 800) -> Gesture:
    """Hold the finger on (x, y) for ``duration_ms``."""
    argv = ["input", "swipe", *_point(x, y), *_point(x, y)]
    argv.append(_duration(duration_ms, MAX_DURATION_MS, "duration_ms"))
    line = shell_quote.join(argv)
    _run(client, line, "long press", duration_ms / 1000)
    return Gesture("long_press", "swipe", line)


def drag_line(
    start: tuple[int, int], end: tuple[int, int], duration_ms: int, hold_ms: int, sdk: int | None
) -> tuple[str, str]:
    """(method, command line) for a drag; pure, so the choice per release is testable."""
    duration = _duration(duration_ms, MAX_DURATION_MS, "duration_ms")
    _duration(hold_ms, MAX_HOLD_MS, "hold_ms")
    for point in (start, end):
        _point(*point)
    (x1, y1), (x2, y2) = start, end
    if hold_ms == 0 or sdk is None or sdk < MOTIONEVENT_SDK:
        return "swipe", shell_quote.join(["input", "swipe", *map(str, (x1, y1, x2, y2)), duration])
    steps = [shell_quote.join(["input", "motionevent", "DOWN", str(x1), str(y1)])]
    steps.append(f"sleep {hold_ms / 1000:g}")
    pause = duration_ms / 1000 / DRAG_STEPS
    for step in range(1, DRAG_STEPS + 1):
        x = x1 + (x2 - x1) * step // DRAG_STEPS
        y = y1 + (y2 - y1) * step // DRAG_STEPS
        steps.append(shell_quote.join(["input", "motionevent", "MOVE", str(x), str(y)]))
        if pause >= 0.001:
            steps.append(f"sleep {pause:.3f}")
    steps.append(shell_quote.join(["input", "motionevent", "UP", str(x2), str(y2)]))
    return "motionevent", " && ".join(steps)


def drag(
    client: AdbClient,
    start: tuple[int, int],
    end: tuple[int, int],
    *,
    duration_ms: int = 600,
    hold_ms: int = 0,
) -> Gesture:
    """Press at ``start``, optionally hold still for ``hold_ms``, move to ``end``, release."""
    sdk = sdk_level(client) if hold_ms else None
    method, line = drag_line(start, end, duration_ms, hold_ms, sdk)
    note = None
    if hold_ms and method == "swipe":
        note = (
            f"this device (API {sdk}) has no `input motionevent` (Android 11+): dragged "
            "without the hold"
        )
    if method == "motionevent":  # the finger must come up even if a step fails
        release = shell_quote.join(["input", "motionevent", "UP", *map(str, end)])
        line = f"{{ {line}; }} || {{ {release}; false; }}"
    _run(client, line, "drag", (duration_ms + hold_ms) / 1000 + 2 * DRAG_STEPS)
    return Gesture("drag", method, line, note)
