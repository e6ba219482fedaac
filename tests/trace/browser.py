"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ended by NUL on fds 3 and 4), so the tests need no WebSocket library.

`Browser.open(url)` loads a page and records every network request it makes; `evaluate`
runs an expression in the page; `key` presses a key; `screenshot` returns a PNG. Every wait
is bounded by `TIMEOUT`.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

TIMEOUT = 60.0
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
_BASH = shutil.which("bash") or "/bin/bash"  # dash takes only one-digit descriptors
KEY_CODES = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, "f": 70}


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _pipe() -> tuple[int, int]:
    """A pipe whose ends are above fd 10, so moving them to 3 and 4 cannot clobber one."""
    ends = os.pipe()
    high = tuple(fcntl.fcntl(end, fcntl.F_DUPFD_CLOEXEC, 10) for end in ends)
    for end in ends:
        os.close(end)
    return high[0], high[1]


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, executable: str, profile: Path, log: Path) -> None:
        to_child_read, self._to_child = _pipe()
        self._from_child, from_child_write = _pipe()

        # Chromium reads commands on fd 3 and answers on fd 4: bash puts the pipe ends
        # there (no preexec_fn, which is unsafe in a process with threads).
        redirect = f'exec "$0" "$@" 3<&{to_child_read} 4>&{from_child_write}'
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [
                _BASH,
                "-c",
                redirect,
                executable,
                *FLAGS,
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            pass_fds=(to_child_read, from_child_write),
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # ------------------------------------------------------------------ protocol

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False
    ) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser and self.session is not None:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        for event in self.events:
            if event["method"] == method:
                return event
        while True:
            event = self._read(deadline)
            if "method" in event:
                self.events.append(event)
                if event["method"] == method:
                    return event

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer from Chromium within {TIMEOUT} s")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 16)
                if not chunk:
                    raise BrowserError("Chromium closed its DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        found: dict[str, Any] = json.loads(message)
        return found

    # ------------------------------------------------------------------ page

    def open(self, url: str) -> None:
        targets = self.send("Target.getTargets", browser=True)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, browser=True
        )
        self.session = attached["sessionId"]
        self.send("Network.enable")
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def key(self, key: str) -> None:
        code = KEY_CODES[key]
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code},
            )

    def screenshot(self, width: int = 1280, height: int = 900) -> bytes:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        return base64.b64decode(shot["data"])

    def requests(self) -> list[str]:
        """The URL of every request the page started (seen so far)."""
        return [
            e["params"]["request"]["url"]
            for e in self.events
            if e["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(
                self._to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0"
            )
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        os.close(self._to_child)
        os.close(self._from_child)
        self._log.close()
