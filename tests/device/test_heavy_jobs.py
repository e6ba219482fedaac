"""The heavy-job lock: one install or instrumentation run per device, across processes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from adbwire.device import heavy_jobs
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


@pytest.fixture
def fresh_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heavy_jobs, "_resolved", {})


@pytest.mark.usefixtures("fresh_names")
def test_every_spelling_of_one_tcp_device_shares_its_lock() -> None:
    with heavy_job("127.0.0.1:5555", "install_apk a.apk"):
        for spelling in (
            "localhost:5555",
            "[::1]:5555",
            "LOCALHOST:05555",
            "[::ffff:127.0.0.1]:5555",
        ):
            with pytest.raises(HeavyJobBusyError), heavy_job(spelling, "install_apk b.apk"):
                pytest.fail(f"{spelling} got a lock of its own")
        for other in ("127.0.0.1:5556", "10.0.0.2:5555", "emulator-5554", "R58M12ABCDE"):
            with heavy_job(other, "install_apk c.apk"):
                pass
    assert heavy_jobs.device_key("[2001:DB8::0001]:5555") == "[2001:db8::1]:5555"
    assert heavy_jobs.device_key("emulator-5554") == "emulator-5554"


@pytest.mark.usefixtures("fresh_names")
def test_a_host_name_is_keyed_by_its_address(monkeypatch: pytest.MonkeyPatch) -> None:
    def resolver(host: str, *_: object, **__: object) -> list[tuple[object, ...]]:
        assert host == "phone.lan"
        return [(socket.AF_INET6, 0, 0, "", ("2001:db8::7", 0, 0, 0)),
                (socket.AF_INET, 0, 0, "", ("10.0.0.7", 0))]  # fmt: skip

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    assert lock_path("Phone.LAN:5555") == lock_path("10.0.0.7:5555")


@pytest.mark.usefixtures("fresh_names")
def test_a_resolver_that_hangs_costs_a_bounded_wait_then_the_name_is_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release, asked = threading.Event(), threading.Event()
    calls: list[str] = []

    def hung(host: str, *_: object, **__: object) -> list[tuple[object, ...]]:
        calls.append(host)
        asked.set()
        release.wait(30)
        return [(socket.AF_INET, 0, 0, "", ("10.0.0.9", 0))]

    monkeypatch.setattr(socket, "getaddrinfo", hung)
    try:
        assert heavy_jobs.device_key("slow.lan:5555") == "slow.lan:5555"
        assert asked.is_set() and not release.is_set()  # returned while the look-up hung
        assert heavy_jobs.device_key("slow.lan:5555") == "slow.lan:5555"
        assert calls == ["slow.lan"]  # not asked again for a while
    finally:
        release.set()
