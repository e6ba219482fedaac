"""The stdin feed behind `adbwire serve`'s stdio transport, in a child process (it replaces
fd 0): every byte passes through unchanged, and `stop()` gives the reader end of input even
while the feed is blocked on a full pipe and the real stdin stays open."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import threading
from typing import IO

import pytest

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(sys.platform == "win32", reason="the feed is POSIX only"),
]

COPY_ALL = """
import hashlib, os
from adbwire.mcp.server.stdio import _StdinFeed
with _StdinFeed():
    digest, count = hashlib.sha256(), 0
    while chunk := os.read(0, 100_000):
        digest.update(chunk)
        count += len(chunk)
print(count, digest.hexdigest())
"""

STOP_WHILE_FULL = """
import array, fcntl, os, termios, time
from adbwire.mcp.server.stdio import _StdinFeed

def waiting_bytes():
    count = array.array("i", [0])
    fcntl.ioctl(0, termios.FIONREAD, count)
    return count[0]

def wait_until_the_pipe_is_full():
    # The writer never pauses, so a pipe whose content stops growing is full (its size
    # differs between systems: 64 KiB on Linux, 16 KiB at first on macOS).
    last, deadline = -1, time.monotonic() + 20
    while time.monotonic() < deadline:
        now = waiting_bytes()
        if now > 0 and now == last:
            return
        last = now
        time.sleep(0.05)
    raise AssertionError("the feed's pipe never filled")

with _StdinFeed() as feed:
    wait_until_the_pipe_is_full()
    feed.stop()
    count = 0
    while chunk := os.read(0, 100_000):
        count += len(chunk)
print("end of input after", count)
"""


STOP_BEFORE_ENTER = """
import os
from adbwire.mcp.server.stdio import _StdinFeed
feed = _StdinFeed()
feed.stop()  # a signal that came while `serve` was still starting
with feed:
    print("read", len(os.read(0, 100)))
feed.close()
"""


def run_child(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def write_ignoring_close(pipe: IO[bytes], size: int) -> None:
    with contextlib.suppress(BrokenPipeError):
        pipe.write(bytes(size))
        pipe.flush()


def test_every_byte_passes_through_in_order() -> None:
    data = os.urandom(5 * 1024 * 1024)  # far more than a pipe holds: partial writes happen
    with run_child(COPY_ALL) as child:
        out, err = child.communicate(data, timeout=30)
    assert child.returncode == 0, err.decode()
    assert out.split() == [str(len(data)).encode(), hashlib.sha256(data).hexdigest().encode()]


def test_stop_ends_input_while_the_real_stdin_stays_open() -> None:
    with run_child(STOP_WHILE_FULL) as child:
        assert child.stdin and child.stdout
        writer = threading.Thread(target=write_ignoring_close, args=(child.stdin, 1024 * 1024))
        writer.start()  # more than both pipes hold: the feed blocks on its full pipe
        try:
            child.wait(timeout=30)  # stdin is still open: only stop() can end the input
        finally:
            child.kill()
        writer.join(10)  # the child is gone, so the write ends with a broken pipe
        out = child.stdout.read().decode()
    assert not writer.is_alive()
    assert child.returncode == 0 and out.startswith("end of input after"), out


def test_a_stop_before_the_feed_starts_still_ends_input() -> None:
    with run_child(STOP_BEFORE_ENTER) as child:
        assert child.stdout
        try:
            child.wait(timeout=30)  # stdin stays open and empty: only the stop ends the read
        finally:
            child.kill()
        out = child.stdout.read().decode()
    assert (child.returncode, out) == (0, "read 0\n")
