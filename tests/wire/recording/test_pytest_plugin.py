"""The pytest plugin, as a user's test suite sees it (run in a separate pytest process)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Each test runs pytest once or twice in a child process: the MCP flow's two took 47 s at
# load 9 here, and over 120 s with two CPU hogs more (the suite's default limit per test).
CHILD_TIMEOUT = 240
pytestmark = pytest.mark.timeout(2 * CHILD_TIMEOUT + 60)

LIBRARY = Path(__file__).resolve().parents[3] / "protocol_fixtures"
PLUGIN = "adbwire.pytest_plugin"


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
        timeout=CHILD_TIMEOUT,
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


MCP_FLOW = """
    import pytest

    @pytest.mark.anyio
    async def test_flow(adbwire_mcp):
        async with adbwire_mcp("fixtures/mcp-flow.jsonl") as session:
            model = await session.call_tool("get_property", {"name": "ro.product.model"})
            assert model.structured_content["value"] == "sdk_gphone64_x86_64"

    @pytest.mark.anyio
    async def test_live_simulator(adbwire_mcp):
        async with adbwire_mcp(profile="read-only") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert "get_property" in names and "set_property" not in names
"""


def test_an_mcp_flow_records_once_then_replays(tmp_path: Path) -> None:
    recorded = run_pytest(tmp_path, MCP_FLOW, "--adbwire-record=simulated")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert "2 passed" in recorded.stdout
    header = (tmp_path / "fixtures" / "mcp-flow.jsonl").read_text().split("\n", 1)[0]
    assert '"origin": "simulated device"' in header
    assert '"note": "recorded by test_user.py::test_flow[asyncio]"' in header
    replayed = run_pytest(tmp_path, MCP_FLOW)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "2 passed" in replayed.stdout


SHIPPED = LIBRARY / "mcp" / "properties.jsonl"


def test_a_shipped_fixture_in_a_users_suite_and_what_straying_does(tmp_path: Path) -> None:
    source = f"""
        FIXTURE = {str(SHIPPED)!r}
        MODEL = {{"name": "ro.product.model"}}

        async def test_whole_fixture(adbwire_mcp):
            async with adbwire_mcp(FIXTURE) as session:
                assert not (await session.call_tool("get_property", MODEL)).is_error
                await session.call_tool("list_properties", {{"prefix": "ro.build.version."}})
                await session.call_tool("set_property", {{"name": "debug.layout", "value": "true"}})

        async def test_other_request(adbwire_mcp):
            async with adbwire_mcp(FIXTURE) as session:
                result = await session.call_tool("get_property", {{"name": "ro.product.brand"}})
                assert not result.is_error, result.structured_content["error"]["message"]

        async def test_stops_early(adbwire_mcp):
            async with adbwire_mcp(FIXTURE) as session:
                await session.call_tool("get_property", MODEL)
    """
    done = run_pytest(tmp_path, source, "-o", "asyncio_mode=auto")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout
    assert "the client opened 'shell,v2,raw:getprop ro.product.brand'" in done.stdout
    assert (
        "ReplayMismatchError" in done.stdout and "did not use all of the recording" in done.stdout
    )
