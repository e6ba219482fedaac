"""Device files and bounded transfers against the simulated device."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.device import files, install
from adbwire.device.errors import AlreadyExistsError, NotFoundError, TooLargeError
from adbwire.errors import UsageError
from adbwire.testing import SimulatedDevice
from adbwire.testing.userland.android.apk import build_apk
from adbwire.wire.client import AdbClient
from adbwire.wire.services.install_result import InstallOptions
from tests.mcp.harness import device_client

__all__ = ["device_client"]


def test_list_and_stat(device_client: AdbClient) -> None:
    entries = files.list_dir(device_client, "/sdcard/Download")
    assert [(e.name, e.kind, e.size) for e in entries] == [("groceries.txt", "file", 29)]
    assert files.stat(device_client, "/sdcard/Download").is_dir
    with pytest.raises(NotFoundError):
        files.stat(device_client, "/sdcard/nope")


def test_pull_is_complete_or_absent(
    device_client: AdbClient, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    target = tmp_path / "out" / "g.txt"
    assert (
        files.pull_to_file(device_client, "/sdcard/Download/groceries.txt", target, cap=1000) == 29
    )
    assert target.read_text() == "milk\neggs\ncoffee beans\nbasil\n"
    with pytest.raises(AlreadyExistsError):
        files.pull_to_file(device_client, "/sdcard/Download/groceries.txt", target, cap=1000)
    sim_device.files.write_bytes("/sdcard/Download/big.bin", b"z" * 5000)
    with pytest.raises(TooLargeError):
        files.pull_to_file(
            device_client, "/sdcard/Download/big.bin", tmp_path / "big.bin", cap=4000
        )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["g.txt", "out"]


def test_push_never_replaces(
    device_client: AdbClient, sim_device: SimulatedDevice, tmp_path: Path
) -> None:
    source = tmp_path / "a.txt"
    source.write_text("hello")
    assert files.push_from_file(device_client, source, "/data/local/tmp/a.txt", cap=100) == 5
    assert sim_device.files.host_path("/data/local/tmp/a.txt").read_text() == "hello"
    with pytest.raises(AlreadyExistsError):
        files.push_from_file(device_client, source, "/data/local/tmp/a.txt", cap=100)
    with pytest.raises(TooLargeError):
        files.push_from_file(device_client, source, "/data/local/tmp/b.txt", cap=4)
    with pytest.raises(NotFoundError):
        files.push_from_file(device_client, source, "/data/local/tmp/no/dir/c.txt", cap=100)


def test_symlinks_below_an_allowed_root_are_found(device_client: AdbClient) -> None:
    assert files.symlink_below(device_client, "/sdcard/Download/groceries.txt", "/sdcard") is None


def test_install_checks_the_version(device_client: AdbClient, tmp_path: Path) -> None:
    apk = tmp_path / "hello.apk"
    apk.write_bytes(build_apk("com.example.hello", version_code=7, version_name="0.7"))
    done = install.install_apk(device_client, apk, InstallOptions(replace=True), cap=10**7)
    assert (done.package, done.version_code, done.version_name) == ("com.example.hello", 7, "0.7")


def test_host_file_system_errors_name_the_file(device_client: AdbClient, tmp_path: Path) -> None:
    """Not a bare OSError (an internal error upstream): the caller's error, naming the file."""
    remote = "/sdcard/Download/groceries.txt"
    with pytest.raises(UsageError) as caught:
        files.pull_to_file(device_client, remote, tmp_path / ("n" * 300), cap=1000)
    assert str(caught.value) == f"cannot write the host file {'n' * 80!r}: File name too long"
    (tmp_path / "plain").write_text("a file")
    with pytest.raises(UsageError, match="a file is in the way of its directory"):
        files.pull_to_file(device_client, remote, tmp_path / "plain" / "g.txt", cap=1000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]


def test_a_name_as_long_as_the_host_allows_gets_a_staging_name_that_fits(
    device_client: AdbClient, tmp_path: Path
) -> None:
    target = tmp_path / ("g" * 255)
    assert files.pull_to_file(device_client, "/sdcard/Download/groceries.txt", target, cap=100)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_push_from_a_symlink_is_refused_as_the_callers_error(
    device_client: AdbClient, tmp_path: Path
) -> None:
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real.txt")
    with pytest.raises(UsageError, match=r"cannot read the host file 'link\.txt': "):
        files.push_from_file(device_client, tmp_path / "link.txt", "/sdcard/l.txt", cap=100)
