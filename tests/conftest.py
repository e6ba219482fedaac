"""Suite-wide guards: no test may spawn Google's adb (except the interop oracle tests), and
no test touches the real ~/.android of the machine it runs on.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adbwire.testing import (
    DeviceOptions,
    SimulatedDevice,
    UserlandFactory,
    default_userland_factory,
    running_device,
)
from adbwire.wire.keys import AdbKey, default_key_path, generate_key


def _is_adb(argv: object) -> bool:
    if isinstance(argv, (str, bytes, os.PathLike)):
        first = os.fsdecode(argv).split()[0] if os.fsdecode(argv).strip() else ""
    elif isinstance(argv, (list, tuple)) and argv:
        first = os.fsdecode(argv[0])
    else:
        return False
    return Path(first).name in {"adb", "adb.exe"}


class AdbSpawnedError(AssertionError):
    pass


@pytest.fixture(autouse=True)
def _forbid_adb_processes(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Fail any test outside tests/interop that starts a process named adb."""
    if request.node.get_closest_marker("interop") or "interop" in request.node.nodeid.split("/"):
        yield
        return
    original_init = subprocess.Popen.__init__

    def guarded_init(
        self: subprocess.Popen[bytes], args: object, *rest: object, **kw: object
    ) -> None:
        if _is_adb(args) or _is_adb(kw.get("executable")):
            raise AdbSpawnedError(f"adbwire must never run adb, but this test tried: {args!r}")
        original_init(self, args, *rest, **kw)  # type: ignore[call-overload]

    original_execv = os.execv
    original_spawnv = os.posix_spawn

    def guarded_execv(path: str, argv: object) -> None:
        if _is_adb(path) or _is_adb(argv):
            raise AdbSpawnedError(f"adbwire must never exec adb: {path!r}")
        original_execv(path, argv)  # type: ignore[arg-type]

    def guarded_posix_spawn(path: str, argv: object, *rest: object, **kw: object) -> int:
        if _is_adb(path) or _is_adb(argv):
            raise AdbSpawnedError(f"adbwire must never spawn adb: {path!r}")
        return original_spawnv(path, argv, *rest, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded_init)
    monkeypatch.setattr(os, "execv", guarded_execv)
    monkeypatch.setattr(os, "posix_spawn", guarded_posix_spawn)
    yield


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Point HOME and the Android key variables at an empty directory for every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for variable in ("ANDROID_USER_HOME", "ANDROID_SDK_HOME", "ADB_VENDOR_KEYS", "ANDROID_SERIAL"):
        monkeypatch.delenv(variable, raising=False)
    # `adbwire connect` remembers devices under the state directory: the test's HOME's.
    for variable in ("XDG_STATE_HOME", "ADBWIRE_STATE_DIR"):
        monkeypatch.delenv(variable, raising=False)
    # `devices -l` looks for wireless devices by mDNS unless told not to: tests that want it
    # run in a private network namespace (tests/wire/mdns) and turn it back on.
    monkeypatch.setenv("ADBWIRE_MDNS", "0")


@pytest.fixture(scope="session")
def adb_key(tmp_path_factory: pytest.TempPathFactory) -> AdbKey:
    """One RSA key for the whole run (generating 2048-bit keys is slow)."""
    return generate_key(tmp_path_factory.mktemp("keys") / "adbkey", comment="test@adbwire")


@pytest.fixture(scope="session")
def other_key(tmp_path_factory: pytest.TempPathFactory) -> AdbKey:
    """A second key that devices in the tests do not trust."""
    return generate_key(tmp_path_factory.mktemp("keys") / "otherkey", comment="other@adbwire")


# ---- the simulated device (adbwire.testing) ---------------------------------------------


def _public_key_text(key: AdbKey) -> str:
    return key.public_key_bytes().rstrip(b"\0").decode()


@pytest.fixture
def sim_device_factory(adb_key: AdbKey) -> Iterator[Callable[..., SimulatedDevice]]:
    """Start simulated devices with chosen options; every one is stopped after the test.

    Unless `authorized_keys` is given, the devices trust `adb_key` (real RSA checks)."""
    with contextlib.ExitStack() as stack:

        def start(
            options: DeviceOptions | None = None,
            userland_factory: UserlandFactory | None = None,
            **option_fields: Any,
        ) -> SimulatedDevice:
            if options is None:
                option_fields.setdefault("authorized_keys", (_public_key_text(adb_key),))
                options = DeviceOptions(**option_fields)
            elif option_fields:
                raise TypeError("pass either DeviceOptions or its fields, not both")
            factory = userland_factory or default_userland_factory
            return stack.enter_context(running_device(options, factory))

        yield start


CliRun = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_cli(adb_key: AdbKey, capsysbinary: pytest.CaptureFixture[bytes]) -> CliRun:
    """Run `adbwire ARGS...` in-process as a user whose ~/.android/adbkey is `adb_key`:
    (exit status, stdout, stderr)."""
    default_key_path().parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(adb_key.path, default_key_path())

    def run(*args: str) -> tuple[int, str, str]:
        from adbwire.cli import main as cli_main  # noqa: PLC0415 - only tests of the CLI

        capsysbinary.readouterr()
        status = cli_main.main(list(args))
        captured = capsysbinary.readouterr()
        return status, captured.out.decode(), captured.err.decode()

    return run


@pytest.fixture
def sim_device(sim_device_factory: Callable[..., SimulatedDevice]) -> SimulatedDevice:
    """A running simulated device on a free loopback port that trusts `adb_key`."""
    return sim_device_factory()


NETWORK_OPT_IN = "ADBWIRE_NETWORK_TESTS"


# Modules whose tests start other processes (`adbwire serve`, the CLI, a second server,
# pytest itself); with the interop tests (Google's adb) they are marked `slow`, so
# `pytest -m "not slow"` is a quick loop while editing.
SLOW_MODULES = frozenset(
    {
        "tests/device/test_heavy_jobs.py",
        "tests/device/test_screen_memory.py",
        "tests/mcp/test_heavy_job_processes.py",
        "tests/mcp/test_http_signals.py",
        "tests/mcp/test_inspector.py",
        "tests/mcp/test_output_memory.py",
        "tests/mcp/test_session_restore.py",
        "tests/mcp/test_spawn_environment.py",
        "tests/mcp/test_stdio.py",
        "tests/mcp/test_stdio_signals.py",
        "tests/test_benchmarks_quick.py",
        "tests/test_no_adb_guard.py",
        "tests/trace/test_pytest_plugin_traces.py",
        "tests/trace/test_viewer_browser.py",
        "tests/trace/test_viewer_firefox.py",
        "tests/wire/mdns/test_discovery.py",
        "tests/wire/pairing/test_cli_pair.py",
        "tests/wire/recording/test_pytest_plugin.py",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the `slow` tests; tests marked `network` reach a package registry: they run
    only when asked for."""
    root = Path(str(config.rootpath))
    for item in items:
        if item.get_closest_marker("interop") or (
            Path(str(item.path)).relative_to(root).as_posix() in SLOW_MODULES
        ):
            item.add_marker(pytest.mark.slow)
    if os.environ.get(NETWORK_OPT_IN) == "1":
        return
    skip = pytest.mark.skip(reason=f"reaches the network; set {NETWORK_OPT_IN}=1 to run it")
    for item in items:
        if item.get_closest_marker("network"):
            item.add_marker(skip)
