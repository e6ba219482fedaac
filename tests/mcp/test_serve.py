"""`adbwire serve`: its flags, and serving a recorded session again (record, then replay)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from mcp import Client

from adbwire.cli import serve as serve_command
from adbwire.cli.main import build_parser
from adbwire.errors import UsageError
from adbwire.mcp.server.launch import ServeOptions, build_policy, running_app
from adbwire.mcp.server.server import build_server
from adbwire.testing import DEVICE_FEATURES
from tests.mcp.harness import data_of, simulated


def parse(*argv: str) -> argparse.Namespace:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    if "serve" not in (commands.choices or {}):
        serve_command.register(commands)
    return parser.parse_args(["serve", *argv])


def test_flags_become_options(tmp_path: Path) -> None:
    args = parse(
        "--connect", "10.0.0.2:5555", "--device", "emulator-5554", "--simulate",
        "--profile", "read-only", "--allow-device", "emulator-5554", "--emulators-only",
        "--local-root", str(tmp_path), "--audit-log", str(tmp_path / "a.jsonl"),
        "--http", "127.0.0.1:8765", "--no-usb",
    )  # fmt: skip
    options = serve_command.options_from(args)
    assert options.connect == ["10.0.0.2:5555"] and options.devices == ["emulator-5554"]
    assert options.simulate and not options.usb and options.http == "127.0.0.1:8765"
    policy = build_policy(options)
    assert policy.profile == "read-only" and policy.emulators_only
    assert policy.allowed_devices == {"emulator-5554"} and policy.local_root == tmp_path.resolve()
    assert args.handler is serve_command.run


def test_allow_destructive_alone_gives_the_full_profile() -> None:
    policy = build_policy(serve_command.options_from(parse("--allow-destructive")))
    assert (policy.profile, policy.allow_destructive) == ("full", True)


def test_record_needs_exactly_one_device(tmp_path: Path) -> None:
    options = ServeOptions(record=tmp_path / "s.adbcap", no_audit=True)
    with pytest.raises(UsageError, match="exactly one device"), running_app(options, "memory"):
        pass


async def test_a_recorded_session_is_served_again_without_a_device(tmp_path: Path) -> None:
    """Recorded from a device without shell_v2: with it, whether the client's close-stdin
    packet goes out before the command ends is a race, which a replay cannot reproduce
    (reported; see the report of issue 7)."""
    fixture = tmp_path / "session.adbcap"
    features = tuple(f for f in DEVICE_FEATURES if f != "shell_v2")

    async def session(options: ServeOptions) -> list[dict[str, object]]:
        with running_app(options, "memory") as app:
            async with Client(build_server(app)) as client:
                info = data_of(await client.call_tool("device_info", {}))
                launched = data_of(
                    await client.call_tool("launch_app", {"package": "com.example.notes"})
                )
        info.pop("serial")
        info.pop("features")  # a replay offers no delayed_ack: its flow control is not replayed
        return [info, launched]

    with simulated(features=features) as (device,):
        live = await session(
            ServeOptions(connect=[device.serial], no_audit=True, usb=False, record=fixture)
        )
    replayed = await session(ServeOptions(replay=fixture, no_audit=True))
    assert fixture.stat().st_size > 0
    assert replayed[0] == live[0]
    assert replayed[1]["focused_activity"] == live[1]["focused_activity"]


def test_record_and_replay_work_before_or_after_the_command(tmp_path: Path) -> None:
    fixture = str(tmp_path / "f.adbcap")
    for argv in (["serve", "--replay", fixture], ["--replay", fixture, "serve"]):
        parser = build_parser()
        commands = next(a for a in parser._actions if a.dest == "command")
        if "serve" not in (commands.choices or {}):
            serve_command.register(commands)
        options = serve_command.options_from(parser.parse_args(argv))
        assert str(options.replay) == fixture, argv
