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
    "wire": ("adbwire.device", "adbwire.mcp", "adbwire.cli"),
    "device": ("adbwire.mcp", "adbwire.cli"),
}


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
