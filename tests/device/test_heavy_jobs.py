"""The heavy-job lock: one install or instrumentation run per device, across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.device.heavy_jobs import (
    MAX_HOLDER_BYTES,
    HeavyJobBusyError,
    current_holder,
    heavy_job,
    lock_path,
)

# A second process that takes the lock, says so, and holds it until its stdin closes.
HOLDER_SCRIPT = """
import sys
from adbwire.device.heavy_jobs import heavy_job
with heavy_job(sys.argv[1], "install_apk app.apk"):
    print("locked", flush=True)
    sys.stdin.read()
"""


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADBWIRE_STATE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[str]]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER_SCRIPT, "emulator-5554"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "locked"
        yield child
    finally:
        child.kill()
        child.wait(timeout=30)


def test_a_second_job_on_the_same_device_is_refused_at_once_with_the_holder() -> None:
    with heavy_job("emulator-5554", "run_instrumentation com.x.test") as mine:
        with (
            pytest.raises(HeavyJobBusyError) as refused,
            heavy_job("emulator-5554", "install_apk b.apk"),
        ):
            pytest.fail("two heavy jobs ran on one device")
        assert refused.value.holder == mine
        assert refused.value.retryable
        assert "run_instrumentation com.x.test" in str(refused.value)
        assert mine.since in str(refused.value)
        assert current_holder("emulator-5554") == mine
    assert current_holder("emulator-5554") is None
    with heavy_job("emulator-5554", "install_apk b.apk"):  # free again once the first ended
        pass


def test_other_devices_are_not_blocked() -> None:
    with heavy_job("emulator-5554", "install_apk a.apk"), heavy_job("emulator-5556", "x"):
        pass
    assert lock_path("10.0.0.2:5555") != lock_path("10.0.0.2_5555")


def test_the_lock_is_shared_with_another_process_and_dies_with_it(
    other_process: subprocess.Popen[str],
) -> None:
    with (
        pytest.raises(HeavyJobBusyError) as refused,
        heavy_job("emulator-5554", "run_instrumentation com.x.test"),
    ):
        pytest.fail("the other process's lock was ignored")
    assert refused.value.holder is not None
    assert refused.value.holder.pid == other_process.pid
    assert refused.value.holder.job == "install_apk app.apk"
    other_process.kill()  # a crash: no cleanup code runs in the holder
    other_process.wait(timeout=30)
    with heavy_job("emulator-5554", "run_instrumentation com.x.test"):
        pass


def test_a_holder_file_that_is_not_ours_is_not_believed(state_dir: Path) -> None:
    with heavy_job("emulator-5554", "install_apk a.apk"):
        path = lock_path("emulator-5554")
        well_typed = json.dumps({"job": "x", "pid": 1, "since": "now"}).encode()
        past_the_cap = well_typed[:-1] + b" " * (MAX_HOLDER_BYTES + 1 - len(well_typed)) + b"}"
        for junk in (b"\xff\xfe", b"[1, 2]", json.dumps({"job": 3, "pid": "x"}).encode(),
                     past_the_cap):  # fmt: skip
            path.write_bytes(junk)
            with (
                pytest.raises(HeavyJobBusyError, match="has not said who") as refused,
                heavy_job("emulator-5554", "x"),
            ):
                pass
            assert refused.value.holder is None


def test_the_lock_file_is_private_and_emptied_after_the_job(state_dir: Path) -> None:
    with heavy_job("emulator-5554", "install_apk a.apk"):
        path = lock_path("emulator-5554")
        assert json.loads(path.read_text())["job"] == "install_apk a.apk"
        assert path.stat().st_mode & 0o077 == 0
        assert path.parent.stat().st_mode & 0o077 == 0
    assert path.read_bytes() == b""
