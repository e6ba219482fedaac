"""The device layer reads command output and listings only under a byte cap: every shell,
exec and LIST call in `adbwire.device` passes `max_output` (commands.py does it for the
rest). A new operation that calls `client.shell(...)` directly fails here.

`device/screen/` reads frames with a cap of its own (the size the frame's header implies),
so it is left to its own tests."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from adbwire.device import commands, output_cap
from adbwire.errors import UsageError

DEVICE = Path(commands.__file__).resolve().parent
READS = {"shell", "shell_argv", "start_shell", "exec_out", "exec_chunks", "list_dir", "iter_dir"}
OPENS = {"open_stream", "open_exec"}


def uncapped_reads(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        capped = any(keyword.arg == "max_output" for keyword in node.keywords)
        if (name in READS and not capped) or name in OPENS:
            found.append(f"line {node.lineno}: .{name}(...)")
    return found


def test_every_read_in_the_device_layer_passes_a_cap() -> None:
    offenders = {}
    for path in sorted(DEVICE.rglob("*.py")):
        if "screen" in path.relative_to(DEVICE).parts:
            continue
        found = uncapped_reads(path.read_text(encoding="utf-8"))
        if found:
            offenders[str(path.relative_to(DEVICE))] = found
    assert offenders == {}, "read through adbwire.device.commands, or pass max_output"


def test_the_scan_sees_an_uncapped_read() -> None:
    assert uncapped_reads("client.shell('ls')\nsync.list_dir(c, p)\nc.open_stream('x')") == [
        "line 1: .shell(...)",
        "line 2: .list_dir(...)",
        "line 3: .open_stream(...)",
    ]
    assert uncapped_reads("client.shell('ls', max_output=output_cap.current())") == []


def test_the_cap_of_the_current_context() -> None:
    assert output_cap.current() == output_cap.DEFAULT_MAX_OUTPUT == 16 * 1024 * 1024
    with output_cap.limited_to(5):
        assert output_cap.current() == 5
        with output_cap.limited_to(7):
            assert output_cap.current() == 7
        assert output_cap.current() == 5
    assert output_cap.current() == output_cap.DEFAULT_MAX_OUTPUT
    with pytest.raises(UsageError), output_cap.limited_to(0):
        pass
