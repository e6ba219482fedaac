"""What last_crash and list_crashes send of a hostile crash: bounded lines, a bounded stack,
and a visible mark for everything cut (the log is the device's: a line can be megabytes)."""

from __future__ import annotations

from adbwire.device.parsers.crash_stack import MAX_LINE_CHARS, MAX_STACK_LINES
from adbwire.testing import DeviceFiles, DeviceOptions, UserlandLike, running_device
from adbwire.testing.scenario import load_scenario
from adbwire.testing.userland import Userland
from tests.mcp.harness import connected, data_of, make_app, payload_of

FRAMES = 1000
LONG = 200_000
HUGE_FRAME = "\tat com.example.app.Deep.call(" + "x" * LONG + ")"


def hostile_crash_log() -> str:
    head = "05-02 14:31:07.101  4321  4321 E AndroidRuntime: "
    lines = [
        "FATAL EXCEPTION: main",
        "Process: com.example.app, PID: 4321",
        "java.lang.StackOverflowError: " + "m" * LONG,
        HUGE_FRAME,
        *(f"\tat com.example.app.Deep.call(Deep.kt:{n})" for n in range(FRAMES)),
    ]
    return "--------- beginning of crash\n" + "".join(head + line + "\n" for line in lines)


def hostile_userland(files: DeviceFiles) -> UserlandLike:
    scenario = load_scenario()
    scenario.logcat = {**scenario.logcat, "crash": hostile_crash_log()}
    userland: UserlandLike = Userland(scenario, files)
    return userland


async def test_crash_tools_cut_hostile_lines_and_stacks_with_a_mark() -> None:
    with running_device(DeviceOptions(auth_required=False), hostile_userland) as device:
        app = make_app([device])
        async with connected(app) as client:
            last = await client.call_tool("last_crash", {"package": "com.example.app"})
            listed = await client.call_tool("list_crashes", {"package": "com.example.app"})
        app.close()
    report, stack = data_of(last), payload_of(last)
    assert report["exception"] == "java.lang.StackOverflowError"
    assert report["frames"] == len(stack) == 31  # 30 lines, then the mark
    all_lines = 2 + FRAMES  # the exception line, the huge frame, the frames
    assert stack[-1] == f"[... {all_lines - 30} more lines cut]"
    cut = len(HUGE_FRAME) - MAX_LINE_CHARS
    assert stack[1] == HUGE_FRAME[:MAX_LINE_CHARS].strip() + f" [... {cut} more chars cut]"
    assert stack[2] == "at com.example.app.Deep.call(Deep.kt:0)"
    assert max(len(line) for line in stack) < MAX_LINE_CHARS + 40
    assert all_lines > MAX_STACK_LINES  # the parser cut the stack too, counted in the mark

    (item,) = data_of(listed)["crashes"]
    text = payload_of(listed)
    assert item["frames"] == 13 and text[-1] == f"  [... {all_lines - 12} more lines cut]"
    assert text[2].endswith(f" [... {cut} more chars cut]")
    assert sum(map(len, text)) < 13 * (MAX_LINE_CHARS + 40)
