"""`input motionevent DOWN|MOVE|UP|CANCEL X Y` (Android 11+): one pointer across processes.

The pointer's state lives in the device, as in the input dispatcher: DOWN puts it down, MOVE
moves it, UP lifts it and the gesture is then judged as a whole: barely moved, a tap; moved,
a swipe in its main direction.
"""

from __future__ import annotations

from adbwire.testing.userland.shell.interp import Invocation

ACTIONS = ("DOWN", "MOVE", "UP", "CANCEL")
SLOP = 10


def motionevent(inv: Invocation, rest: list[str]) -> int:
    if len(rest) != 3 or rest[0].upper() not in ACTIONS:
        inv.err("Error: Unknown action: " + (rest[0] if rest else "") + "\n")
        return 1
    try:
        x, y = int(float(rest[1])), int(float(rest[2]))
    except ValueError:
        inv.err("Error: Invalid arguments for command: motionevent\n")
        return 1
    state = inv.device.state
    action = rest[0].upper()
    with state.lock:
        if action == "DOWN":
            state.pointer = (x, y)
            return 0
        pointer = state.pointer
        if pointer is None or action == "MOVE":
            return 0
        state.pointer = None
        if action == "CANCEL" or not state.power.awake:
            return 0
        dx, dy = x - pointer[0], y - pointer[1]
        if abs(dx) < SLOP and abs(dy) < SLOP:
            state.nav.tap(*pointer)
        elif abs(dy) >= abs(dx):
            state.nav.swipe("up" if dy < 0 else "down")
        else:
            state.nav.swipe("left" if dx < 0 else "right")
    return 0
