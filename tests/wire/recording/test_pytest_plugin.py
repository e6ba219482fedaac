"""The pytest plugin, as a user's test suite sees it (run in a separate pytest process)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[3] / "protocol_fixtures"
PLUGIN = "adbwire.testing.pytest_plugin"


def run_pytest(folder: Path, source: str, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_user.py").write_text(textwrap.dedent(source))
    installed = any(
        point.value == PLUGIN for point in importlib.metadata.entry_points(group="pytest11")
    )
    plugin = [] if installed else ["-p", PLUGIN]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *plugin, "-q", "-p", "no:cacheprovider", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


CAPTURED = LIBRARY / "imported" / "adb-shell-exec.jsonl"
USES_ALL_OF_IT = f"""
    FIXTURE = {str(CAPTURED)!r}

    def use(client):
        assert client.shell("getprop ro.product.model").stdout == b"sdk_gphone64_x86_64\\n"
        assert client.shell("echo oops >&2; exit 3").exit_code == 3
        assert client.exec_out("cat /sdcard/Download/groceries.txt").startswith(b"milk")

    def test_replay(adbwire_replay):
        use(adbwire_replay(FIXTURE))

    def test_session(adbwire_session):
        use(adbwire_session(FIXTURE))

    def test_simulator(adbwire_simulated_client, adbwire_simulator):
        result = adbwire_simulated_client.shell("getprop ro.product.model")
        assert result.exit_code == 0 and result.stdout.strip()
        assert adbwire_simulated_client.serial == adbwire_simulator.serial
"""


def test_the_fixtures_work_in_a_users_suite(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, USES_ALL_OF_IT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


def test_a_user_test_that_strays_from_its_fixture_fails_clearly(tmp_path: Path) -> None:
    done = run_pytest(
        tmp_path,
        f"""
        def test_other_command(adbwire_session):
            adbwire_session({str(CAPTURED)!r}).shell("reboot")

        def test_stops_early(adbwire_session):
            adbwire_session({str(CAPTURED)!r}).shell("getprop ro.product.model")
        """,
    )
    assert done.returncode == 1
    assert "ReplayMismatchError" in done.stdout
    assert "the client opened 'shell,v2,raw:reboot'" in done.stdout
    assert "did not use all of the recording" in done.stdout
    assert "1 failed, 1 passed, 1 error" in done.stdout  # the strict check fails teardown


def test_record_once_then_replay(tmp_path: Path) -> None:
    source = """
        def test_flow(adbwire_session):
            client = adbwire_session("fixtures/flow.jsonl")
            assert client.shell("getprop ro.product.model").exit_code == 0
            assert client.shell("echo hi").stdout == b"hi\\n"
    """
    recorded = run_pytest(tmp_path, source, "--adbwire-record=simulated", "--adbwire-note=ci")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    fixture = tmp_path / "fixtures" / "flow.jsonl"
    assert '"origin": "simulated device", "note": "ci"' in fixture.read_text()
    replayed = run_pytest(tmp_path, source)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
