"""The public API the packages declare: every exported name resolves, every public module of
device/ is declared, and importing a package does not import what it exports."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import adbwire
import adbwire.device
import adbwire.wire


@pytest.mark.parametrize("package", [adbwire, adbwire.wire], ids=lambda p: p.__name__)
def test_every_exported_name_resolves(package: object) -> None:
    names: list[str] = package.__all__  # type: ignore[attr-defined]
    assert names == sorted(set(names), key=names.index), "duplicates in __all__"
    for name in names:
        assert getattr(package, name) is not None, name
        assert name in dir(package)


def test_unknown_names_are_attribute_errors() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = adbwire.wire.Nope


def test_device_declares_each_public_module() -> None:
    found = {
        module.name
        for module in pkgutil.iter_modules(adbwire.device.__path__)
        if not module.name.startswith("_")
    }
    assert set(adbwire.device.__all__) == found
    for name in adbwire.device.__all__:
        importlib.import_module(f"adbwire.device.{name}")


def test_importing_the_packages_loads_none_of_their_exports() -> None:
    probe = (
        "import json, sys, adbwire, adbwire.wire, adbwire.device\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('adbwire.'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert json.loads(loaded) == ["adbwire._lazy_exports", "adbwire.device", "adbwire.wire"]
