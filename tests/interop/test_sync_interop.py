"""adbwire's sync service against Google's adb (Debian's /usr/bin/adb) as the oracle.

Both talk to one simulated device: what adbwire pushes, adb pulls byte for byte (and the
other way round); adb's `ls` and adbwire's listing agree. adb gets its own HOME and server
port, and that server is killed at the end.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from adbwire.testing import DEVICE_FEATURES, DeviceOptions, SimulatedDevice
from adbwire.wire.client import AdbClient
from adbwire.wire.keys import AdbKey
from adbwire.wire.services import sync

ADB = Path("/usr/bin/adb")
TIMEOUT = 60.0

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Pair:
    device: SimulatedDevice
    client: AdbClient
    env: dict[str, str]

    def adb(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ADB), "-s", self.device.serial, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )


@pytest.fixture(params=["v2", "v1"])
def pair(
    request: pytest.FixtureRequest,
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    tmp_path: Path,
) -> Iterator[Pair]:
    features: tuple[str, ...] = DEVICE_FEATURES
    if request.param == "v1":
        v2 = {"stat_v2", "ls_v2", "sendrecv_v2", "sendrecv_v2_dry_run_send"}
        features = tuple(name for name in DEVICE_FEATURES if name not in v2)
    device = sim_device_factory(DeviceOptions(accept_any_key=True, features=features))
    home = tmp_path / "adb-home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(tmp_path),
        "ANDROID_ADB_SERVER_PORT": str(free_port()),
    }
    try:
        connected = subprocess.run(
            [str(ADB), "connect", device.serial],
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert "connected" in connected.stdout, connected
        with AdbClient.connect_tcp(device.serial, [adb_key]) as client:
            pair = Pair(device, client, env)
            wait = pair.adb("wait-for-device")
            assert wait.returncode == 0, wait
            yield pair
    finally:
        subprocess.run(
            [str(ADB), "kill-server"], env=env, capture_output=True, timeout=TIMEOUT, check=False
        )


def random_tree(root: Path) -> dict[str, bytes]:
    files = {
        "one.bin": os.urandom(3 * 1024 * 1024 + 11),
        "empty": b"",
        "edge.bin": os.urandom(64 * 1024),
        "sub/deeper/two.bin": os.urandom(70_001),
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return files


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_what_adbwire_pushes_adb_pulls_identically(pair: Pair, tmp_path: Path) -> None:
    files = random_tree(tmp_path / "tree")
    result = sync.push(pair.client.connection, str(tmp_path / "tree"), "/data/local/tmp/t")
    assert result.ok, result.failed
    pulled = pair.adb("pull", "/data/local/tmp/t", str(tmp_path / "by-adb"))
    assert pulled.returncode == 0, pulled
    for name, data in files.items():
        assert sha((tmp_path / "by-adb" / name).read_bytes()) == sha(data), name


def test_what_adb_pushes_adbwire_pulls_identically(pair: Pair, tmp_path: Path) -> None:
    files = random_tree(tmp_path / "tree")
    pushed = pair.adb("push", str(tmp_path / "tree"), "/data/local/tmp/t")
    assert pushed.returncode == 0, pushed
    result = sync.pull(pair.client.connection, "/data/local/tmp/t", str(tmp_path / "ours"))
    assert result.ok, result.failed
    for name, data in files.items():
        assert sha((tmp_path / "ours" / name).read_bytes()) == sha(data), name


def test_adb_ls_and_adbwire_listing_agree(pair: Pair, tmp_path: Path) -> None:
    random_tree(tmp_path / "tree")
    sync.push(pair.client.connection, str(tmp_path / "tree"), "/data/local/tmp/t")
    listed = pair.adb("ls", "/data/local/tmp/t")
    assert listed.returncode == 0, listed
    theirs = sorted(listed.stdout.splitlines())
    ours = sync.list_dir(pair.client.connection, "/data/local/tmp/t", dot_entries=True)
    assert theirs == sorted(
        f"{e.stat.mode:08x} {e.stat.size:08x} {e.stat.mtime:08x} {e.name}" for e in ours
    )


def test_a_single_file_keeps_its_mtime_both_ways(pair: Pair, tmp_path: Path) -> None:
    local = tmp_path / "stamped.txt"
    local.write_bytes(b"stamp")
    os.utime(local, (1_500_000_000, 1_500_000_000))
    assert sync.push(pair.client.connection, str(local), "/sdcard/stamped.txt").ok
    pulled = pair.adb("pull", "-a", "/sdcard/stamped.txt", str(tmp_path / "back.txt"))
    assert pulled.returncode == 0, pulled
    assert int((tmp_path / "back.txt").stat().st_mtime) == 1_500_000_000
