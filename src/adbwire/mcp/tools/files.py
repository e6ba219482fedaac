"""File tools: list and stat device paths; pull and push within the allowed places."""

from __future__ import annotations

import posixpath
from pathlib import Path

from pydantic import Field

from adbwire.device import files as ops
from adbwire.mcp.registry import ToolOutput, tool
from adbwire.mcp.results.envelope import ErrorCode, ToolFailure
from adbwire.mcp.results.rows import rows_text
from adbwire.mcp.runtime import ToolCall
from adbwire.mcp.safety.paths import check_device_path
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.tools.common import Cursor, DeviceArgs, DevicePath, Result

PAGE_SIZE = 500
ENTRY_COLUMNS = ("name", "kind", "size", "mode", "mtime")
INLINE_TEXT_BYTES = 64 * 1024
PULL_MIN_RATE = 64 * 1024
"""Bytes/s a pull must average after PULL_RATE_GRACE seconds, besides the idle timeout: a
device trickling bytes cannot hold a call open (a file of N bytes gets 30 s + N / 64 KiB)."""
PULL_RATE_GRACE = 30.0


class PathArgs(DeviceArgs):
    path: DevicePath


class ListDirArgs(PathArgs):
    cursor: Cursor | None = None


class Entry(Result):
    name: str
    kind: str
    size: int
    mode: str
    mtime: int


class Listing(Result):
    path: str
    count: int = Field(
        description="entries after the JSON (text block): a columns line, then arrays"
    )
    next_cursor: str | None = None
    remaining: int = 0


class PathInfo(Result):
    path: str
    kind: str
    size: int
    mode: str
    mtime: int
    link: bool = Field(description="the path itself is a symlink")


class PullArgs(PathArgs):
    to: str | None = Field(default=None, max_length=1024, description="under the local root")
    overwrite: bool = False


class Pulled(Result):
    path: str
    host_path: str
    size: int
    text: str | None = Field(default=None, description="contents, for small text files")


class PushArgs(PathArgs):
    source: str = Field(max_length=1024, description="under the local root")


class Pushed(Result):
    path: str
    size: int


@tool(
    name="list_dir",
    title="List a device directory",
    risk=Risk.READ,
    input=ListDirArgs,
    output=Listing,
    example={"path": "/sdcard/Download"},
)
async def list_dir(call: ToolCall, args: ListDirArgs) -> ToolOutput:
    """Entries of a device directory, rows after the JSON (text block); paged."""
    if args.cursor:
        page = call.app.pager.next_page("list_dir", args.cursor)
    else:
        found = await call.run(ops.list_dir, call.client, args.path)
        entries = [
            Entry(name=e.name, kind=e.kind, size=e.size, mode=f"{e.mode:o}", mtime=e.mtime)
            for e in found
        ]
        page = call.app.pager.paginate("list_dir", entries, PAGE_SIZE, size=len(entries) * 100)
    data = Listing(
        path=args.path,
        count=len(page.items),
        next_cursor=page.next_cursor,
        remaining=page.remaining,
    )
    summary = f"{len(page.items) + page.remaining} entries in {args.path}"
    return ToolOutput(summary, data, text=rows_text(page.items, ENTRY_COLUMNS))


@tool(
    name="stat_path",
    title="Stat a device path",
    risk=Risk.READ,
    input=PathArgs,
    output=PathInfo,
    example={"path": "/sdcard/Download/report.pdf"},
)
async def stat_path(call: ToolCall, args: PathArgs) -> ToolOutput:
    """Kind, size, mode and mtime of a device path."""
    link = (await call.run(ops.stat, call.client, args.path, follow=False)).is_symlink
    found = await call.run(ops.stat, call.client, args.path)
    data = PathInfo(
        path=args.path,
        kind=ops.kind_of(found),
        size=found.size,
        mode=f"{found.permissions:o}",
        mtime=found.mtime,
        link=link,
    )
    return ToolOutput(f"{args.path}: {data.kind}, {found.size} bytes", data)


async def allowed_device_path(call: ToolCall, path: str) -> str:
    """The path if it, and what it resolves to on the device, are in the allowed places."""
    allowed = call.app.policy.device_paths
    checked = check_device_path(path, allowed)
    resolved = await call.run(ops.resolve, call.client, checked)
    if resolved is not None:
        check_device_path(resolved, allowed)
        return checked
    root = next(r for r in allowed if checked == r or checked.startswith(r.rstrip("/") + "/"))
    link = await call.run(ops.symlink_below, call.client, checked, root)
    if link is not None:
        raise ToolFailure(
            ErrorCode.PATH_NOT_ALLOWED, f"{link} is a symlink; give the path it points to"
        )
    return checked


def _inline_text(path: Path, size: int) -> str | None:
    if size > INLINE_TEXT_BYTES:
        return None
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


@tool(
    name="pull_file",
    title="Pull a device file",
    risk=Risk.ACTION,
    input=PullArgs,
    output=Pulled,
    example={"path": "/sdcard/Download/log.txt", "to": "pulled/log.txt"},
    host_files=True,
    long_running=True,
)
async def pull_file(call: ToolCall, args: PullArgs) -> ToolOutput:
    """Copy a device file (allowed dirs) under the local root; small text files come back
    inline too."""
    remote = await allowed_device_path(call, args.path)
    root = call.app.local_root
    destination = root.resolve(args.to or posixpath.basename(remote))
    size = await call.run(
        ops.pull_to_file,
        call.client,
        remote,
        destination,
        cap=call.app.policy.max_transfer_bytes,
        overwrite=args.overwrite,
        progress=call.progress_from_thread(f"pulling {remote}"),
        min_rate=PULL_MIN_RATE,
        rate_grace=PULL_RATE_GRACE,
    )
    data = Pulled(
        path=remote,
        host_path=root.display(destination),
        size=size,
        text=_inline_text(destination, size),
    )
    return ToolOutput(f"pulled {size} bytes to {data.host_path}", data)


@tool(
    name="push_file",
    title="Push a file to the device",
    risk=Risk.ACTION,
    input=PushArgs,
    output=Pushed,
    example={"source": "fixtures/photo.jpg", "path": "/sdcard/Pictures/photo.jpg"},
    host_files=True,
    long_running=True,
)
async def push_file(call: ToolCall, args: PushArgs) -> ToolOutput:
    """Copy a file from the local root to a new device file (allowed dirs)."""
    source = call.app.local_root.resolve(args.source)
    if not source.is_file():
        raise ToolFailure(ErrorCode.NOT_FOUND, f"{args.source}: no such file under the local root")
    remote = args.path
    if await call.run(ops.is_dir, call.client, remote):
        remote = posixpath.join(remote, source.name)
    parent = await allowed_device_path(call, posixpath.dirname(remote) or "/")
    remote = posixpath.join(parent, posixpath.basename(remote))
    check_device_path(remote, call.app.policy.device_paths)
    size = await call.run(
        ops.push_from_file,
        call.client,
        source,
        remote,
        cap=call.app.policy.max_transfer_bytes,
        progress=call.progress_from_thread(f"pushing {args.source}"),
    )
    return ToolOutput(f"pushed {size} bytes to {remote}", Pushed(path=remote, size=size))


TOOLS = [list_dir, stat_path, pull_file, push_file]
