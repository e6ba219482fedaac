"""Headless Firefox driven over Marionette (its own protocol: ``length:json`` messages on a
loopback TCP port the browser writes into the profile), so the tests need no driver.

`Firefox.open(url)` loads a page; `evaluate` runs a script's ``return``; `key` presses a
key. Every wait is bounded by `TIMEOUT`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

TIMEOUT = 60.0
PREFERENCES = """
user_pref("marionette.port", 0);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.disabledForTesting", true);
user_pref("network.captive-portal-service.enabled", false);
"""
KEYS = {"ArrowRight": "\ue014", "ArrowLeft": "\ue012", "Home": "\ue011", "End": "\ue010", "f": "f"}


def find_firefox() -> str | None:
    for name in ("firefox-esr", "firefox"):
        found = shutil.which(name)
        if found:
            return found
    return None


class FirefoxError(Exception):
    pass


class Firefox:
    def __init__(self, executable: str, profile: Path, log: Path) -> None:
        profile.mkdir(parents=True)
        (profile / "user.js").write_text(PREFERENCES)
        self._log = log.open("wb")
        self.process = subprocess.Popen(
            [executable, "--headless", "--marionette", "--no-remote", "--profile", str(profile)],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            env={**os.environ, "HOME": str(profile)},
        )
        port_file = profile / "MarionetteActivePort"
        deadline = time.monotonic() + TIMEOUT
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise FirefoxError(f"Firefox did not open Marionette within {TIMEOUT} s")
            time.sleep(0.1)  # the browser writes the file once; no event to wait on
        self._socket = socket.create_connection(
            ("127.0.0.1", int(port_file.read_text())), timeout=TIMEOUT
        )
        self._buffer = b""
        self._next_id = 0
        self._read()  # the greeting
        self.command("WebDriver:NewSession", {"capabilities": {}})

    def _read(self) -> Any:
        while b":" not in self._buffer:
            self._receive()
        size, _, rest = self._buffer.partition(b":")
        self._buffer = rest
        while len(self._buffer) < int(size):
            self._receive()
        message, self._buffer = self._buffer[: int(size)], self._buffer[int(size) :]
        return json.loads(message)

    def _receive(self) -> None:
        chunk = self._socket.recv(1 << 16)
        if not chunk:
            raise FirefoxError("Firefox closed the Marionette connection")
        self._buffer += chunk

    def command(self, name: str, parameters: dict[str, Any]) -> Any:
        self._next_id += 1
        data = json.dumps([0, self._next_id, name, parameters]).encode()
        self._socket.sendall(str(len(data)).encode() + b":" + data)
        while True:
            kind, number, error, result = self._read()
            if kind == 1 and number == self._next_id:
                if error:
                    raise FirefoxError(f"{name}: {error}")
                return result

    def open(self, url: str) -> None:
        self.command("WebDriver:Navigate", {"url": url})

    def evaluate(self, script: str) -> Any:
        return self.command("WebDriver:ExecuteScript", {"script": script, "args": []})["value"]

    def key(self, key: str) -> None:
        value = KEYS[key]
        strokes = [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
        self.command(
            "WebDriver:PerformActions",
            {"actions": [{"type": "key", "id": "keyboard", "actions": strokes}]},
        )

    def close(self) -> None:
        with contextlib.suppress(OSError, FirefoxError):
            self.command("WebDriver:DeleteSession", {})
        self._socket.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        self._log.close()
