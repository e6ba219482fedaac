"""`adbwire shell` on a terminal: an interactive pty session, with shell_v2 and without.

The child runs on a pseudo-terminal made here, as a person's terminal would be."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from adbwire.testing import DEVICE_FEATURES, SimulatedDevice
from adbwire.wire.keys import AdbKey, default_key_path

pytestmark = pytest.mark.skipif(os.name != "posix", reason="needs a POSIX pseudo-terminal")

WAIT = 60.0


def run_on_a_terminal(device: SimulatedDevice, *args: str, typed: bytes) -> tuple[int, bytes]:
    """Run `adbwire -s SERIAL ARGS` with a pty as its terminal; type `typed` once the device's
    prompt appears; return the exit status and everything shown on the terminal."""
    controller, terminal = os.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "adbwire", "-s", device.serial, *args],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=os.environ.copy(),
        close_fds=True,
    ) as child:
        os.close(terminal)
        shown = bytearray()
        deadline = time.monotonic() + WAIT
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([controller], [], [], deadline - time.monotonic())
                if not ready:
                    break
                try:
                    data = os.read(controller, 4096)
                except OSError:  # EIO: the child closed its end of the terminal
                    break
                if not data:
                    break
                before = b"$ " in shown
                shown += data
                if not before and b"$ " in shown:  # the device's prompt: type now
                    os.write(controller, typed)
            status = child.wait(timeout=WAIT)
        finally:
            child.kill()
            os.close(controller)
    return status, bytes(shown)


@pytest.fixture
def user_key(adb_key: AdbKey) -> None:
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())


def test_interactive_shell_with_shell_v2_returns_the_exit_status(
    sim_device: SimulatedDevice, user_key: None
) -> None:
    status, shown = run_on_a_terminal(sim_device, "shell", typed=b"echo hi-$((1+2))\nexit 3\n")
    assert status == 3 and b"hi-3" in shown


def test_interactive_shell_on_an_old_device(
    sim_device_factory: Callable[..., SimulatedDevice], user_key: None
) -> None:
    """No shell_v2: the session runs over legacy `shell:` (no exit status: 0, as adb)."""
    device = sim_device_factory(
        features=tuple(f for f in DEVICE_FEATURES if f != "shell_v2"),
        protocol_version=0x01000000,
        max_payload=1024,
    )
    status, shown = run_on_a_terminal(device, "shell", typed=b"echo hi-$((1+2))\nexit 3\n")
    assert status == 0 and b"hi-3" in shown
    assert b"shell_v2" not in shown  # no refusal, no warning
