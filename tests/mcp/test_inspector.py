"""The MCP Inspector's CLI mode lists and calls our tools against `adbwire serve --simulate`.

A third-party client: it proves the server speaks MCP as others read it, not only as our own
SDK does. It fetches the Inspector from npm, so it runs only with ADBWIRE_NETWORK_TESTS=1 (CI
sets it); skipped where npx is missing or the package cannot be fetched (offline)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.mcp.spawn import serve_argv

pytestmark = [pytest.mark.timeout(400), pytest.mark.network]
PACKAGE = "@modelcontextprotocol/inspector"
OFFLINE_SIGNS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "network", "404")


def real_home() -> Path:
    try:
        import pwd  # noqa: PLC0415 - POSIX only
    except ImportError:  # Windows: HOME is not redirected by the test suite's fixture there
        return Path.home()
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def inspector(tmp_path: Path, *arguments: str) -> dict[str, object]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed (Node.js needed for the MCP Inspector)")
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        # the user's npm cache (tests get an empty HOME), so the package is fetched once
        "npm_config_cache": os.environ.get("npm_config_cache", str(real_home() / ".npm")),  # noqa: SIM112
    }
    argv = [npx, "-y", PACKAGE, "--cli", *serve_argv("--simulate", "--no-audit"), *arguments]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=300, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the MCP Inspector could not be fetched or started within 5 minutes")
    if done.returncode != 0 and any(sign in done.stderr for sign in OFFLINE_SIGNS):
        pytest.skip(f"the MCP Inspector is unavailable (offline?): {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_inspector_lists_tools(tmp_path: Path) -> None:
    listed = inspector(tmp_path, "--method", "tools/list")
    tools = {tool["name"]: tool for tool in listed["tools"]}  # type: ignore[attr-defined]
    assert {"device_info", "launch_app", "read_logcat", "list_devices"} <= set(tools)
    assert tools["device_info"]["annotations"]["readOnlyHint"] is True


def test_inspector_calls_a_tool(tmp_path: Path) -> None:
    called = inspector(
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "get_property",
        "--tool-arg",
        "name=ro.product.model",
    )
    assert called["structuredContent"] == {
        "name": "ro.product.model",
        "value": "sdk_gphone64_x86_64",
    }
