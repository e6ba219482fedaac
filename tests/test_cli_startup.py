"""Start-up cost of the command line, counted in modules (robust on a loaded machine, where
seconds are not): `--version` imports neither argparse nor typing, `--help` no command,
`-s HOST:PORT shell` none of USB, mDNS, TLS/pairing, recording, MCP, the simulator, the sync
modules, cryptography or the compression libraries; and the dispatch table's lines agree
with what each command module registers. The limits are what the code reached (issue #20),
with a few modules of slack: a new import on these paths turns a test red."""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from adbwire.cli import main as cli_main
from adbwire.wire.keys import AdbKey

REPO = Path(__file__).resolve().parents[1]
HEAVY = (
    "usb1",
    "libusb_package",
    "zeroconf",
    "OpenSSL",
    "mcp",
    "PIL",
    "anyio",
    "brotli",
    "lz4",
    "backports.zstd",
    "adbwire.wire.usb.discovery",
    "adbwire.wire.mdns",
    "adbwire.wire.pairing.client",
    "adbwire.wire.recording",
    "adbwire.testing",
    "adbwire.mcp",
    "adbwire.wire.services.install",
    "adbwire.wire.services.forward",
    "adbwire.wire.services.reverse",
    "concurrent.futures",
    "cryptography",
    "secrets",
    "hashlib",
    "tempfile",
    "pathlib",
    "shutil",
    "adbwire.wire.services.sync.codec",
    "adbwire.wire.services.sync.session",
    "adbwire.wire.services.sync.push",
    "adbwire.wire.services.sync.pull",
    "adbwire.wire.services.control",
    "dataclasses",  # with inspect, ast and dis: wire/values.py instead
    "inspect",
    "logging",  # loaded to log a warning (wire/lazy_logging.py, cli/log_setup.py)
    "adbwire.cli.interactive",  # a terminal session
    "adbwire.cli.legacy_shell",  # devices without shell_v2, -x
    "signal",  # its enums: main() restores Ctrl-C through the C module
)
SHELL_MODULES = 140
"""All modules after `-s HOST:PORT shell true` (136 when written, 155 with dataclasses and
logging, 244 before issue #20)."""
SHELL_OURS = 51
"""adbwire's own among them (48 when written, the error path's included; 57 before issue
#20): a module split in two costs little, a standard-library import more."""


def modules_after(home: Path, *argv: str) -> list[str]:
    """The modules a fresh interpreter holds after `adbwire ARGV` (its exit ignored); the
    program imports nothing of its own (no json) so that every module counted is adbwire's
    doing."""
    program = (
        "import sys\n"
        "from adbwire.cli.main import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(sys.modules), file=sys.__stderr__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "ADBWIRE_MDNS": "0"},
        check=False,
    )
    names: list[str] = ast.literal_eval(done.stderr.strip().splitlines()[-1])
    return names


def loaded(names: list[str], prefix: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for name in names)


def test_version_imports_no_parser(tmp_path: Path) -> None:
    names = modules_after(tmp_path, "--version")
    ours = [name for name in names if name.startswith("adbwire")]
    assert ours == ["adbwire", "adbwire._lazy_exports", "adbwire.cli", "adbwire.cli.main"]
    assert not [name for name in ("argparse", "typing", "enum", "threading") if name in names]
    assert len(names) <= 42, len(names)  # 38 when written (`python -c pass`: 33), 88 before


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_version_and_help_import_no_command(argv: list[str], tmp_path: Path) -> None:
    names = modules_after(tmp_path, *argv)
    ours = [name for name in names if name.startswith("adbwire")]
    assert len(ours) <= 6, ours  # adbwire, _lazy_exports, cli, cli.main, cli.suggest, errors
    assert not [
        name
        for name in names
        if name.startswith("adbwire.cli.")
        and name
        not in {
            "adbwire.cli.main",
            "adbwire.cli.suggest",
        }
    ]
    assert not loaded(names, "cryptography")
    assert len(names) <= 90, len(names)  # --help: 85 when written


def test_a_tcp_shell_loads_nothing_it_does_not_use(tmp_path: Path, adb_key: AdbKey) -> None:
    """With the user's key in place, as on every run but the first (which generates it)."""
    (tmp_path / ".android").mkdir()
    shutil.copy(adb_key.path, tmp_path / ".android" / "adbkey")
    names = modules_after(tmp_path, "-s", "127.0.0.1:1", "--connect-timeout", "1", "shell", "true")
    assert "adbwire.wire.services.shell" in names  # the command did run
    assert "adbwire.wire.rsa_signer" in names  # and loaded its key (before connecting)
    assert [prefix for prefix in HEAVY if loaded(names, prefix)] == []
    ours = [name for name in names if name.startswith("adbwire")]
    assert len(ours) <= SHELL_OURS, ours
    assert len(names) <= SHELL_MODULES, len(names)


def test_every_mdns_service_name_has_the_mark_the_cli_looks_for() -> None:
    """cli/targets.py loads the mDNS names only for a serial with this mark in it."""
    from adbwire.cli import targets  # noqa: PLC0415
    from adbwire.wire.mdns import names  # noqa: PLC0415

    assert all(kind.endswith(targets.MDNS_SUFFIX_MARK) for kind in names.SERVICE_TYPES)


def test_every_table_line_is_what_its_module_registers() -> None:
    table = {e.word: e.help for e in cli_main.COMMANDS if isinstance(e, cli_main.Command)}
    modules = {e.module for e in cli_main.COMMANDS if isinstance(e, cli_main.Command)}
    from_modules: dict[str, str | None] = {}
    for module in sorted(modules):
        parser = argparse.ArgumentParser()
        commands = parser.add_subparsers()
        importlib.import_module(f"adbwire.cli.{module}").register(commands)
        helps = {action.dest: action.help for action in commands._choices_actions}
        for word in commands.choices:
            if word in helps or not any(word.startswith(p) for p in cli_main.WORD_PREFIXES):
                from_modules[word] = helps.get(word)
            assert cli_main.command_module([word]) == module, word
    assert table == from_modules


def test_the_command_word_is_found_past_global_options() -> None:
    find = cli_main.command_module
    assert find(["-s", "shell", "--timeout", "3", "push", "a", "b"]) == "push"
    assert find(["--debug", "wait-for-usb-recovery"]) == "wait_for"
    assert find(["--version"]) is None
    assert find(["shel"]) is None


def command_words(argv: list[str]) -> set[str]:
    parser = cli_main.build_parser(argv)
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(commands.choices)


def test_only_the_command_run_is_registered_unless_help_lists_them_all() -> None:
    assert command_words(["-s", "x", "shell", "true"]) == {"shell"}
    assert command_words(["get-state"]) == {"get-state", "get-serialno", "get-devpath"}
    assert {"shell", "push", "trace"} <= command_words(["-h", "shell"])
    assert {"shell", "push", "trace"} <= command_words(["shel"])  # did-you-mean needs them
    assert command_words(["shell", "-h"]) == {"shell"}
    assert command_words(["--version"]) == set()


SERVE_HEAVY = (
    "usb1",
    "libusb_package",
    "zeroconf",
    "OpenSSL",
    "PIL",
    "tomllib",
    "adbwire.wire.usb.discovery",
    "adbwire.wire.mdns.browser",
    "adbwire.wire.pairing",
    "adbwire.wire.recording",
    "adbwire.testing",
    "adbwire.mcp.server.http",
    "adbwire.mcp.server.usb_source",
    "adbwire.cli.targets",
    "adbwire.mcp.tools",
    "adbwire.mcp.runtime",
    "adbwire.mcp.trace.recorder",
    "adbwire.mcp.trace.writer",
    "adbwire.device.info",
    "adbwire.device.parsers",
    "adbwire.device.screen",
    "adbwire.device.ui",
)
"""What a stdio `serve --no-usb` must not load before it answers tools/list (issue #20): the
tool families (tools/list comes from the generated catalogue), the device layer, Pillow,
the TOML parser (only a policy file needs it), how a command picks its device (cli/targets).
uvicorn, starlette and httpx are not here: the MCP SDK itself imports them."""
SERVE_OURS = 75
"""adbwire's modules when serve answers tools/list (67 when written, 193 before the catalogue)."""
SERVE_EXTRA = 90
"""Modules serve holds beyond the smallest server on the same SDK (81 when written, 247 before)."""
MINIMAL_SERVER = (
    "import runpy\nrunpy.run_path('benchmarks/minimal_mcp_server.py', run_name='__main__')\n"
)


def _rpc(number: int | None, method: str, params: dict[str, object]) -> bytes:
    message: dict[str, object] = {"jsonrpc": "2.0", "method": method, "params": params}
    if number is not None:
        message["id"] = number
    return json.dumps(message).encode() + b"\n"


def _answer(server: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line:
        _, errors = server.communicate(timeout=120)
        pytest.fail(f"serve ended without answering: {errors.decode()[-2000:]}")
    answer: dict[str, Any] = json.loads(line)
    return answer


def _serving_modules(home: Path, statement: str) -> tuple[dict[str, Any], list[str]]:
    """Run a stdio MCP server (`statement`), ask for tools/list; its answer and the modules
    the server held when it exited at the end of input."""
    program = (
        "import json, sys\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in statement.splitlines())
        + "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)\n"
    )
    initialize: dict[str, object] = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "startup-test", "version": "1"},
    }
    with subprocess.Popen(
        [sys.executable, "-c", program],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), "ADBWIRE_MDNS": "0"},
    ) as server:
        assert server.stdin is not None
        watchdog = threading.Timer(120, server.kill)  # bounds every read below
        watchdog.start()
        try:
            server.stdin.write(_rpc(1, "initialize", initialize))
            server.stdin.flush()
            assert _answer(server)["id"] == 1
            server.stdin.write(_rpc(None, "notifications/initialized", {}))
            server.stdin.write(_rpc(2, "tools/list", {}))
            server.stdin.flush()
            answer = _answer(server)
            # communicate closes stdin: the server exits at end of input and lists its modules
            _, errors = server.communicate(timeout=120)
        finally:
            watchdog.cancel()
            server.kill()
    assert answer["id"] == 2 and answer["result"]["tools"]  # it did serve the catalogue
    names: list[str] = json.loads(errors.decode().strip().splitlines()[-1])
    return answer, names


def test_stdio_serve_answers_tools_list_without_tools_device_layer_usb_or_pillow(
    tmp_path: Path,
) -> None:
    serve = "from adbwire.cli.main import main\nmain(['serve', '--no-usb', '--no-audit'])"
    answer, names = _serving_modules(tmp_path, serve)
    assert len(answer["result"]["tools"]) >= 40  # the standard profile's catalogue
    assert [prefix for prefix in SERVE_HEAVY if loaded(names, prefix)] == []
    ours = [name for name in names if name.startswith("adbwire")]
    assert len(ours) <= SERVE_OURS, ours
    _, baseline = _serving_modules(tmp_path, MINIMAL_SERVER)
    extra = sorted(set(names) - set(baseline))
    assert len(extra) <= SERVE_EXTRA, [name for name in extra if not name.startswith("adbwire")]
