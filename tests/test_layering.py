"""The house rules of docs/architecture.md, checked on the source tree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "adbwire"

# (imported top-level module, the only package of adbwire allowed to import it)
CONFINED = {"adb_shell": "wire", "usb1": "wire", "libusb_package": "wire", "mcp": "mcp"}
# Lower layers must never import higher ones.
FORBIDDEN_UPWARD = {
    "wire": ("adbwire.device", "adbwire.mcp", "adbwire.cli", "adbwire.testing"),
    "device": ("adbwire.mcp", "adbwire.cli", "adbwire.testing"),
    "mcp": ("adbwire.cli",),
}
# The simulated device is a peer, not a client: it shares the framing and the crypto that both
# ends of a link need, and nothing of the host's runtime, services, device layer or MCP.
TESTING_MAY_IMPORT = (
    "adbwire.errors",
    "adbwire.shell_syntax",  # the device's shell parses command lines as the guard does
    "adbwire.wire.packets",  # framing: the same bytes from either end
    "adbwire.wire.banner",  # CNXN banners
    "adbwire.wire.keys",  # verifying the RSA signatures of AUTH
    "adbwire.wire.android_pubkey",
    "adbwire.wire.timeouts",
    "adbwire.wire.tls",  # wireless debugging: certificates and the TLS channel of either side
    "adbwire.wire.pairing",  # wireless debugging: the pairing protocol of either side
    "adbwire.wire.mdns",  # wireless debugging: mDNS service types and QR payloads
    "adbwire.wire.services.sync.compression",  # sync compression: the same streams either way
)
# Product code that may start a simulated device: the commands that exist to run one.
MAY_IMPORT_TESTING = {"cli/simulate.py", "cli/demo.py", "mcp/server/launch.py", "pytest_plugin.py"}
# Sans-IO modules: bytes in, events out. No sockets, threads, clocks or event loops.
SANS_IO = (
    "wire/packets.py",
    "wire/banner.py",
    "wire/protocol.py",
    "wire/protocol_events.py",
    "wire/services/shell_protocol.py",
    "wire/services/sync/codec.py",
    "wire/services/sync/parser.py",
    "wire/services/sync/compression.py",
    "shell_syntax/lexer.py",
    "shell_syntax/parser.py",
)
IO_MODULES = ("socket", "threading", "time", "selectors", "asyncio", "anyio", "ssl", "subprocess")


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def package_of(path: Path) -> str:
    relative = path.relative_to(SOURCE).parts
    return relative[0] if len(relative) > 1 else ""


SOURCES = sorted(SOURCE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_third_party_libraries_stay_in_their_layer(path: Path) -> None:
    for name in imports_of(path):
        top = name.split(".")[0]
        owner = CONFINED.get(top)
        if owner is not None:
            assert package_of(path) == owner, f"{path.name} imports {name}; only {owner}/ may"


LEAF_PACKAGES = ("shell_syntax",)


@pytest.mark.parametrize(
    "path",
    [path for path in SOURCES if package_of(path) in LEAF_PACKAGES],
    ids=lambda p: str(p.relative_to(SOURCE)),
)
def test_leaf_packages_import_nothing_else_of_adbwire(path: Path) -> None:
    """shell_syntax is shared by the simulator and the MCP guard, so it depends on neither."""
    own = f"adbwire.{package_of(path)}"
    for name in imports_of(path):
        if name == "adbwire" or name.startswith("adbwire."):
            assert name == own or name.startswith(own + "."), f"{path} imports {name}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_imports_flow_down_the_layers(path: Path) -> None:
    forbidden = FORBIDDEN_UPWARD.get(package_of(path), ())
    for name in imports_of(path):
        assert not name.startswith(forbidden), f"{path} imports {name} from a higher layer"


def test_no_source_file_runs_adb() -> None:
    """The product never spawns Google's adb: no process-spawning code names it."""
    spawn = re.compile(
        r"\b(subprocess|os\.system|os\.popen|os\.exec\w*|os\.spawn\w*|posix_spawn|create_subprocess_\w+)\b"
    )
    offenders = [
        str(path.relative_to(SOURCE))
        for path in SOURCES
        if spawn.search(path.read_text()) and package_of(path) not in {"testing"}
    ]
    assert offenders == [], f"process spawning in product code: {offenders}"


@pytest.mark.parametrize(
    "path",
    [path for path in SOURCES if package_of(path) == "testing"],
    ids=lambda p: str(p.relative_to(SOURCE)),
)
def test_the_simulated_device_shares_only_what_both_ends_need(path: Path) -> None:
    for name in imported_names(path):
        if package_of_module(name) not in ("", "testing"):
            assert name.startswith(TESTING_MAY_IMPORT), f"{path} imports {name}"


@pytest.mark.parametrize(
    "path",
    [path for path in SOURCES if package_of(path) != "testing"],
    ids=lambda p: str(p.relative_to(SOURCE)),
)
def test_only_the_commands_that_run_a_simulator_import_it(path: Path) -> None:
    imports_testing = any(package_of_module(name) == "testing" for name in imports_of(path))
    relative = path.relative_to(SOURCE).as_posix()
    assert not imports_testing or relative in MAY_IMPORT_TESTING, f"{relative} imports testing"


@pytest.mark.parametrize("relative", SANS_IO)
def test_sans_io_modules_do_no_io(relative: str) -> None:
    for name in imports_of(SOURCE / relative):
        assert name.split(".")[0] not in IO_MODULES, f"{relative} imports {name}"


def package_of_module(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "adbwire" else ""


def imported_names(path: Path) -> list[str]:
    """Modules and names imported, with `from a.b import c` as `a.b.c` (c may be a module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    "path",
    [path for path in SOURCES if package_of(path) not in ("wire", "testing")],
    ids=lambda p: str(p.relative_to(SOURCE)),
)
def test_only_wire_reaches_past_the_client(path: Path) -> None:
    """`AdbClient` is the one way into the services: above wire/, nothing takes a client's
    `.connection` (a variable named `client`, `*_client` or `client.*` is taken for one)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "connection":
            owner = ast.unparse(node.value)
            last = owner.rsplit(".", 1)[-1]
            assert not (last == "client" or last.endswith("_client")), (
                f"{path.relative_to(SOURCE)}:{node.lineno} reaches {owner}.connection"
            )
