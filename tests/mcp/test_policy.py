"""The policy decides which tools exist; the policy resource says what is off and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adbwire.errors import UsageError
from adbwire.mcp.registry import all_specs
from adbwire.mcp.safety.policy import Policy, Risk, load_policy_file, with_flags
from tests.mcp.harness import connected, make_app

SPECS = all_specs()


async def listed(policy: Policy) -> set[str]:
    app = make_app(policy=policy)
    async with connected(app) as client:
        return {tool.name for tool in (await client.list_tools()).tools}


@pytest.mark.parametrize(
    ("profile", "risks"),
    [
        ("read-only", {Risk.READ}),
        ("standard", {Risk.READ, Risk.ACTION}),
        ("full", {Risk.READ, Risk.ACTION, Risk.DESTRUCTIVE}),
    ],
)
async def test_profiles_decide_which_tools_are_listed(profile: str, risks: set[Risk]) -> None:
    full = profile == "full"  # some tools are published by the full profile only
    wanted = {s.name for s in SPECS if s.risk in risks and (full or not s.full_only)}
    assert await listed(Policy(profile=profile)) == wanted


async def test_deny_wins_and_allow_adds_single_tools() -> None:
    policy = Policy(
        profile="standard",
        allow_tools=frozenset({"run_shell"}),
        deny_tools=frozenset({"launch_app"}),
    )
    names = await listed(policy)
    assert "run_shell" in names and "launch_app" not in names and "reboot" not in names


async def test_a_tool_that_is_off_cannot_be_called() -> None:
    app = make_app(policy=Policy(profile="read-only"))
    async with connected(app) as client:
        result = await client.call_tool("connect_device", {"host": "127.0.0.1"})
    assert result.is_error
    assert app.devices.serials() == []


async def test_policy_resource_says_what_is_off_and_why() -> None:
    app = make_app(policy=Policy(profile="standard", deny_tools=frozenset({"device_info"})))
    async with connected(app) as client:
        contents = (await client.read_resource("adbwire://policy")).contents
    document = json.loads(contents[0].text)  # type: ignore[union-attr]
    assert document["read_at"].endswith("Z")
    assert document["tools_off"]["device_info"] == "denied by name"
    assert document["tools_off"]["reboot"] == "profile standard leaves out destructive tools"
    assert "device_info" not in document["tools_on"]
    assert document["files"]["host_files"] == "off"
    assert document["error_codes"]["confirmation_required"]


def test_policy_file_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    path = tmp_path / "policy.toml"
    path.write_text(
        'profile = "read-only"\nallow_tools = ["launch_app"]\ndeny_tools = ["device_info"]\n'
        "confirm_timeout_seconds = 30\n"
        '[devices]\nallow = ["emulator-5554"]\nemulators_only = true\n'
        f'[files]\nlocal_root = "{root}"\ndevice_paths = ["/sdcard"]\nmax_transfer_mb = 5\n'
    )
    policy = load_policy_file(path)
    assert policy.profile == "read-only"
    assert policy.allow_tools == {"launch_app"} and policy.deny_tools == {"device_info"}
    assert policy.allowed_devices == {"emulator-5554"} and policy.emulators_only
    assert policy.local_root == root.resolve()
    assert policy.device_paths == ("/sdcard",)
    assert policy.max_transfer_bytes == 5 * 1024 * 1024
    assert policy.confirm_timeout == 30


@pytest.mark.parametrize(
    "text",
    [
        'profil = "full"\n',  # a typo must not silently weaken anything
        'profile = "everything"\n',
        "allow_destructive = 1\n",
        "[devices]\nallow = 5\n",
        '[files]\ndevice_paths = ["relative"]\n',
        "[files]\nmax_transfer_mb = 1.5\n",
        "not toml",
    ],
)
def test_bad_policy_files_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    with pytest.raises(UsageError):
        load_policy_file(path)


def test_flags_add_to_the_file_and_allow_destructive_alone_means_full(tmp_path: Path) -> None:
    assert with_flags(Policy(), allow_destructive=True).profile == "full"
    assert with_flags(Policy(), allow_destructive=True, profile="standard").profile == "standard"
    filed = Policy(emulators_only=True, sources=("policy.toml",))
    merged = with_flags(filed, allow_devices=["emulator-5556"])
    assert merged.emulators_only and merged.allowed_devices == {"emulator-5556"}
    assert merged.sources == ("policy.toml", "command line")
    with pytest.raises(UsageError):
        with_flags(Policy(), local_root=tmp_path / "missing")
