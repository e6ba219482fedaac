"""install-multiple's session against the simulated package manager, by each route a device
offers: abb_exec, `cmd package` over exec:, and `pm` for devices without `cmd`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from adbwire.errors import AdbTimeoutError, DisconnectedError, UsageError
from adbwire.testing import DEVICE_FEATURES, SimulatedDevice
from adbwire.testing.userland.android.apk import build_apk
from adbwire.wire.keys import AdbKey
from adbwire.wire.services.install_multiple import _name_the_apk, install_multiple
from adbwire.wire.services.install_result import InstallOptions
from adbwire.wire.services.reconnect import tcp_connection_factory
from adbwire.wire.services.shell import run
from tests.wire.services.conftest import TEST_TIMEOUTS

ROUTES = {
    "abb_exec": DEVICE_FEATURES,
    "cmd": tuple(f for f in DEVICE_FEATURES if f != "abb_exec"),
    "pm": tuple(f for f in DEVICE_FEATURES if f not in ("abb_exec", "cmd")),
}


@pytest.fixture
def apks(tmp_path: Path) -> list[Path]:
    base = tmp_path / "base.apk"
    base.write_bytes(build_apk("com.split.app", version_code=3))
    config = tmp_path / "config.xxhdpi.apk"
    config.write_bytes(
        build_apk("com.split.app", split="config.xxhdpi", activities=(), launcher=None)
    )
    return [base, config]


@pytest.mark.parametrize("route", list(ROUTES))
def test_every_route_installs_the_splits(
    sim_device_factory: Callable[..., SimulatedDevice],
    adb_key: AdbKey,
    apks: list[Path],
    route: str,
) -> None:
    device = sim_device_factory(features=ROUTES[route])
    with tcp_connection_factory(device.serial, [adb_key], timeouts=TEST_TIMEOUTS)() as link:
        assert ("abb_exec" in link.features, "cmd" in link.features) == (
            route == "abb_exec",
            route != "pm",
        )
        seen: list[tuple[str, int, int]] = []
        result = install_multiple(
            link, apks, InstallOptions(replace=True), progress=lambda *step: seen.append(step)
        )
        assert (result.ok, result.output) == (True, "Success\n")
        for apk in apks:  # each APK's progress starts at 0 and ends at its size
            steps = [(sent, size) for name, sent, size in seen if name == apk.name]
            size = apk.stat().st_size
            assert steps[0] == (0, size) and steps[-1] == (size, size)
        assert [apk.package for apk in result.apks] == ["com.split.app"] * 2
        paths = run(link, "pm path com.split.app").stdout.decode().split()
        assert [path.rsplit("/", 1)[1] for path in paths] == ["base.apk", "split_config.xxhdpi.apk"]
        assert run(link, "pm list packages --show-versioncode com.split.app").stdout.strip()


def test_two_apks_of_one_name_are_refused_before_anything_is_sent(
    sim_device: SimulatedDevice, adb_key: AdbKey, apks: list[Path], tmp_path: Path
) -> None:
    twin = tmp_path / "twin"
    twin.mkdir()
    (twin / "base.apk").write_bytes(apks[0].read_bytes())
    with tcp_connection_factory(sim_device.serial, [adb_key], timeouts=TEST_TIMEOUTS)() as link:
        with pytest.raises(UsageError, match="share a file name"):
            install_multiple(link, [apks[0], twin / "base.apk"])
        with pytest.raises(UsageError, match="at least one APK"):
            install_multiple(link, [])


def test_a_failed_write_names_its_apk_and_keeps_the_error_type() -> None:
    """Over a dead link the session cannot be abandoned: the message gives its number."""
    lost = DisconnectedError("the device closed the connection")
    _name_the_apk(lost, Path("/tmp/split.apk"), 7, left_open=True)
    assert isinstance(lost, DisconnectedError) and lost.retryable
    assert str(lost) == (
        "writing /tmp/split.apk: the device closed the connection "
        "(install session 7 is left open on the device)"
    )
    late = AdbTimeoutError("install-multiple timed out")
    _name_the_apk(late, Path("base.apk"), 7, left_open=False)
    assert str(late) == "writing base.apk: install-multiple timed out"
