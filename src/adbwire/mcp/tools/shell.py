"""The escape hatch: run a shell command line (destructive: always confirmed; the guard in
mcp/safety/shell_guard.py refuses catastrophic lines and asks for unknowable ones every time)."""

from __future__ import annotations

from itertools import zip_longest

from mcp_types import TextContent
from pydantic import Field

from adbwire.device import commands
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.paging import split_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.safety.shell_guard import check_command
from adbwire.mcp.tools.common import Args, Cursor, DeviceArgs, Result

STDOUT_PAGE = 32 * 1024
STDERR_PAGE = 8 * 1024
MAX_CAPTURE = 4 * 1024 * 1024


class RunShellArgs(DeviceArgs):
    command: str = Field(min_length=1, max_length=8000)
    reason: str = Field(min_length=8, max_length=500, description="why no typed tool fits")
    timeout_s: float = Field(default=30, ge=1, le=600)


class ShellOutput(Result):
    exit_code: int | None = Field(default=None, description="absent when stopped at the output cap")
    stdout_chars: int = Field(description="stdout follows the JSON (text block)")
    stderr_chars: int = Field(description="stderr is the next text block, after 'stderr:'")
    next_cursor: str | None = None
    remaining_pages: int = 0
    note: str | None = None


class CursorArgs(Args):
    cursor: Cursor


def _pages(stdout: str, stderr: str) -> list[tuple[str, str]]:
    pairs = zip_longest(split_text(stdout, STDOUT_PAGE), split_text(stderr, STDERR_PAGE))
    return [(out or "", err or "") for out, err in pairs] or [("", "")]


def _describe(args: RunShellArgs) -> str:
    return f"run on the device shell: {args.command}\nReason given: {args.reason}"


def _precheck(args: RunShellArgs) -> str | None:
    """Refuse a catastrophic command line; say why an unknowable one is asked every time."""
    return check_command(args.command)


@tool(
    name="run_shell",
    title="Run a shell command",
    risk=Risk.DESTRUCTIVE,
    input=RunShellArgs,
    output=ShellOutput,
    example={"command": "ls -l /sdcard/Download", "reason": "no tool lists a directory's modes"},
    idempotent=False,
    describe=_describe,
    precheck=_precheck,
)
async def run_shell(call: ToolCall, args: RunShellArgs) -> ToolOutput:
    """Run a device shell command line; asks the user. Prefer typed tools; catastrophic
    commands are refused, and ones whose effect is unknowable (sh -c, eval, globs or
    variables in rm's paths) are asked every time. Output is paged: stdout after the JSON
    (text block), stderr in the next block."""
    result = await call.run(
        commands.run_capped,
        call.client,
        args.command,
        timeout=args.timeout_s,
        max_bytes=MAX_CAPTURE,
    )
    note = (
        f"output stopped at {MAX_CAPTURE} bytes; the command was ended" if result.cut_off else None
    )
    pages = _pages(commands.decode(result.stdout), commands.decode(result.stderr))
    page = call.app.pager.paginate(
        "run_shell", pages, 1, size=len(result.stdout) + len(result.stderr)
    )
    stdout, stderr = page.items[0]
    data = ShellOutput(
        exit_code=result.exit_code,
        stdout_chars=len(stdout),
        stderr_chars=len(stderr),
        next_cursor=page.next_cursor,
        remaining_pages=page.remaining,
        note=note,
    )
    return _output(f"exit {result.exit_code}", data, stdout, stderr)


@tool(
    name="read_shell_output",
    title="Next page of shell output",
    risk=Risk.READ,
    input=CursorArgs,
    output=ShellOutput,
    example={"cursor": "Zm9vYmFyYmF6.1"},
    needs_device=False,
)
async def read_shell_output(call: ToolCall, args: CursorArgs) -> ToolOutput:
    """The next page of a run_shell output (runs nothing)."""
    page = call.app.pager.next_page("run_shell", args.cursor)
    stdout, stderr = page.items[0]
    data = ShellOutput(
        stdout_chars=len(stdout),
        stderr_chars=len(stderr),
        next_cursor=page.next_cursor,
        remaining_pages=page.remaining,
    )
    return _output(f"{page.remaining} page(s) left", data, stdout, stderr)


def _output(summary: str, data: ShellOutput, stdout: str, stderr: str) -> ToolOutput:
    """The output travels once: stdout after the JSON line, stderr in a block of its own."""
    extra = (TextContent(type="text", text="stderr:\n" + stderr),) if stderr else ()
    return ToolOutput(summary, data, extra, text=stdout or None)


TOOLS = [run_shell, read_shell_output]
