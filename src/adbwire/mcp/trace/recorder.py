"""Recording tool calls into a trace: the three hooks `mcp/runtime.py` calls when it is on.

    call.trace = app.trace.start(call, raw)     # as the call arrives: its number, arguments
    await call.trace.before()                   # just before the handler: the screen
    await call.trace.finish(result, outcome)    # after: the record; the screen is due

With tracing off `app.trace` is None and the runtime skips all three. With it on, a call
that acts on what the screen shows (`shows_screen`) waits for one capture, the screen before
it, downscaled at once, in the device's lane like its other calls. The screen after it is
taken in the writer's capture lane for the device while the agent reads the result; the
device's next action waits for that capture first, so a 'before' is never taken ahead of the
previous 'after'.
Each capture reads within `CAPTURE_TIMEOUT` over the path the device's screenshots use
(``path_choice``, via the app's ``ScreenHistory``) into the pooled frame buffer, so a trace
costs what a screenshot does. Encoding and writing happen on the writer's thread. A
capture that fails or times out leaves the step without that screen, with the reason;
tracing never fails a call.
"""

from __future__ import annotations

import base64
import binascii
import functools
import io
import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp_types import CallToolResult, ImageContent, TextContent
from PIL import Image

from adbwire.device.screen import capture
from adbwire.device.screen.frame_pool import Lease
from adbwire.device.screen.history import ScreenHistory
from adbwire.device.screen.path_choice import CapturePaths
from adbwire.device.screen.scaling import Reductions
from adbwire.device.ui import compact_tree
from adbwire.errors import AdbwireError, DeviceQueueFullError
from adbwire.mcp.safety.audit import now_iso, redact_secrets, shorten_arguments
from adbwire.mcp.safety.policy import Risk
from adbwire.mcp.trace import extract
from adbwire.mcp.trace.writer import Capture, Shot, TraceWriter
from adbwire.wire.aio import DeviceLane
from adbwire.wire.client import AdbClient

if TYPE_CHECKING:
    from mcp_types import InputRequiredResult

    from adbwire.mcp.runtime import ToolCall

log = logging.getLogger(__name__)
CAPTURE_TIMEOUT = 5.0
"""Seconds a trace's capture may take (both paths together), and the next action waits."""
SHOT_EDGE = 480
"""Long edge of a kept screen, in pixels: enough to see what happened, small to keep."""
MAX_IMAGE_BYTES = 8 * 1024 * 1024
NO_SCREEN_FAMILIES = frozenset(
    {
        "devices",
        "files",
        "forwards",
        "install",
        "logs",
        "packages",
        "properties",
        "shell",
        "wireless",
    }
)
NO_SCREEN_TOOLS = frozenset({"reboot"})


def shows_screen(call: ToolCall) -> bool:
    """Whether a call is an action on what the screen shows (its trace step gets the
    screen before and after)."""
    spec = call.spec
    return (
        spec.risk is not Risk.READ
        and spec.needs_device
        and spec.family not in NO_SCREEN_FAMILIES
        and spec.name not in NO_SCREEN_TOOLS
    )


class TraceRecorder:
    """One trace for a server's (or a session's) lifetime."""

    def __init__(self, writer: TraceWriter) -> None:
        self.writer = writer
        self._screens_after: dict[str, threading.Event] = {}
        """Per device, the screen after its last action: set once taken."""

    @property
    def directory(self) -> Path:
        return self.writer.directory

    def start(self, call: ToolCall, raw: dict[str, Any]) -> TracedCall:
        return TracedCall(self, call, raw)

    async def settled(self, serial: str) -> None:
        """Wait (at most `CAPTURE_TIMEOUT`) until the screen after the device's last action
        is taken, so the next action's 'before' is never taken ahead of it."""
        taken = self._screens_after.get(serial)
        if taken is not None and not taken.is_set():
            await anyio.to_thread.run_sync(taken.wait, CAPTURE_TIMEOUT)

    def taking_after(self, serial: str, taken: threading.Event) -> None:
        self._screens_after[serial] = taken

    def close(self) -> None:
        """Take the screens still due and write everything (call before the devices close)."""
        self.writer.close()


class TracedCall:
    """One call being recorded."""

    def __init__(self, recorder: TraceRecorder, call: ToolCall, raw: dict[str, Any]) -> None:
        self._recorder = recorder
        self._writer = writer = recorder.writer
        self._call = call
        self._started = time.monotonic()
        self._overhead = 0.0
        spec = call.spec
        self._secrets = extract.secret_values(raw, spec.secret_args)
        self._record: dict[str, Any] = {
            "kind": "step",
            "index": writer.next_index(),
            "tool": spec.name,
            "risk": spec.risk.value,
            "arguments": shorten_arguments(redact_secrets(raw, spec.secret_args)),
            "started": now_iso(),
        }
        self._shots: dict[str, Shot] = {}
        self._missing: dict[str, str] = {}
        self._acting = False
        self._tree_before: object = None

    async def before(self) -> None:
        """The UI tree known before the call (a tree read by it is kept) and, for calls
        that act on the screen, the screen as the action finds it."""
        serial = self._call.serial
        if serial is None:
            return
        self._tree_before = _history(self._call).tree(serial)
        if not shows_screen(self._call):
            return
        began = time.monotonic()
        self._acting = True
        try:
            await self._recorder.settled(serial)
            await self._take("before", serial)
        except Exception:  # tracing must never fail the call it watches
            log.exception("trace: the screen before %s was not recorded", self._call.spec.name)
        self._overhead += time.monotonic() - began

    async def finish(self, result: CallToolResult | InputRequiredResult, outcome: str) -> None:
        """Describe the finished call and hand it to the writer; after an action, the writer
        takes the screen while the agent reads the result (the next action waits for it)."""
        began = time.monotonic()
        record = self._record
        record["duration_ms"] = round((began - self._started - self._overhead) * 1000)
        record["device"] = self._call.serial
        record["outcome"] = outcome
        try:
            if isinstance(result, CallToolResult):
                await self._describe(result)
        except Exception:
            log.exception("trace: the result of %s was not fully recorded", self._call.spec.name)
        later = None
        if self._acting and self._call.serial is not None:
            paths = _history(self._call).capture_paths(self._call.serial)
            lane = self._call.app.devices.lane(self._call.serial)
            later = ("after", functools.partial(_grab_unless_busy, lane, self._call.client, paths))
        record["trace_ms"] = round((self._overhead + time.monotonic() - began) * 1000)
        taken = self._submit(later)  # never blocks: a full queue drops the step
        if later is not None and self._call.serial is not None:
            self._recorder.taking_after(self._call.serial, taken)

    def cancelled(self) -> None:
        """The call was cancelled: what is known so far, without waiting for anything."""
        record = self._record
        record["duration_ms"] = round((time.monotonic() - self._started) * 1000)
        record["device"] = self._call.serial
        record["outcome"] = "cancelled"
        self._submit()

    # ------------------------------------------------------------------ the parts

    def _submit(self, later: tuple[str, Capture] | None = None) -> threading.Event:
        if self._missing:
            self._record["screens"] = {k: {"missing": v} for k, v in self._missing.items()}
        return self._writer.submit(self._record, self._shots, later)

    async def _describe(self, result: CallToolResult) -> None:
        record = self._record
        structured = dict(result.structured_content or {})
        blocks = [b.text for b in result.content if isinstance(b, TextContent)]
        record["summary"] = (blocks[0] if blocks else "").split("\n", 1)[0][: extract.MAX_STRING]
        error = structured.get("error") if result.is_error else None
        data = {} if result.is_error else structured
        if isinstance(error, dict):
            record["error"] = extract.bounded(error)
        else:
            record["result"] = extract.bounded(data)
        record["crash"] = extract.crashed(error if isinstance(error, dict) else None, data)
        found = extract.target(data)
        if found is not None:
            record["target"] = found
        lines = extract.log_slice(data, error if isinstance(error, dict) else None)
        if lines is not None:
            record["log"] = lines
        serial = self._call.serial
        tree = _history(self._call).tree(serial) if serial else None
        if tree is not None and tree is not self._tree_before:  # this call read it
            record["tree"] = compact_tree(tree)[: extract.MAX_TREE]
        if not result.is_error:  # what the result sent once as text (issue #18)
            sent_log, text = extract.payload_parts(
                self._call.spec.name, blocks, tree_kept="tree" in record
            )
            if sent_log and "log" not in record:
                record["log"] = sent_log
            if text:
                record["text"] = text
        for key in ("summary", "error", "result", "target", "log", "tree", "text"):
            if key in record:
                record[key] = extract.scrub(record[key], self._secrets)
        image = next((b for b in result.content if isinstance(b, ImageContent)), None)
        if image is not None and "after" not in self._shots:
            shot = await anyio.to_thread.run_sync(_shot_from_image, image.data)
            if shot is not None:
                self._shots["after"] = shot

    async def _take(self, moment: str, serial: str) -> None:
        call = self._call
        paths = _history(call).capture_paths(serial)
        try:
            with anyio.fail_after(CAPTURE_TIMEOUT):  # the reader's deadline, and the lane's queue
                self._shots[moment] = await call.app.devices.lane(serial).run(
                    _grab, call.client, paths
                )
        except TimeoutError:
            self._missing[moment] = f"no screen within {CAPTURE_TIMEOUT:g} s"
        except Exception as exc:  # a device gone, or a bug: the step says which, the call goes on
            if not isinstance(exc, AdbwireError):
                log.exception("trace: the screen %s %s failed", moment, self._call.spec.name)
            self._missing[moment] = f"no screen: {str(exc)[:200]}"
        else:
            self._missing.pop(moment, None)


def _history(call: ToolCall) -> ScreenHistory:
    """The app's (as `ui_common.memory`), made if need be: the capture paths it learns
    must outlive this call."""
    found = call.app.services.setdefault("screen_history", ScreenHistory())
    assert isinstance(found, ScreenHistory)
    return found


def _grab(client: AdbClient, paths: CapturePaths) -> Shot:
    """The screen, downscaled: over the path chosen for the device, into a pooled buffer."""
    lease = Lease()
    try:
        frame = capture(client, paths=paths, lease=lease, timeout=CAPTURE_TIMEOUT)
        shot = Shot(frame.reductions.shrunk(SHOT_EDGE), frame.width, frame.height)
        del frame  # its buffer goes back to the pool (unless the shot is a view of it)
        return shot
    finally:
        lease.give_back()


def _grab_unless_busy(lane: DeviceLane, client: AdbClient, paths: CapturePaths) -> Shot:
    """The screen after an action, in the trace's capture lane for the device: skipped while
    the device's lane has calls running or waiting (a hung device would hold back every step
    of the device)."""
    if lane.running or lane.waiting:
        raise DeviceQueueFullError("skipped: the device was busy with other calls")
    return _grab(client, paths)


def _shot_from_image(data: str) -> Shot | None:
    """The screen a screenshot tool answered with (no second capture)."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) > MAX_IMAGE_BYTES:
        return None
    try:
        with Image.open(io.BytesIO(raw), formats=["PNG", "JPEG", "WEBP"]) as image:
            image.draft("RGB", (SHOT_EDGE, SHOT_EDGE))
            rgb = image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return Shot(Reductions(rgb).shrunk(SHOT_EDGE), rgb.width, rgb.height)
