"""The sync package loads its modules on first use, and `sync.stat`, `sync.push` and
`sync.pull` stay the functions even when their modules of the same names are imported first
(importing a submodule binds it on its package). Fresh interpreters: this process has long
imported every sync module."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

PACKAGE = "adbwire.wire.services.sync"


def _run(program: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_importing_the_package_or_its_options_loads_no_sync_module() -> None:
    loaded = _run(
        "import sys\n"
        f"from {PACKAGE} import Compression, DEFAULT_MAX_DEPTH\n"
        f"print(sorted(m for m in sys.modules if m.startswith('{PACKAGE}.')))\n"
    )
    assert loaded == [f"{PACKAGE}.options"]


@pytest.mark.parametrize(
    "first",
    [
        f"import {PACKAGE}.pull_plan, {PACKAGE}.pull, {PACKAGE}.push",
        f"from {PACKAGE} import pull, push, stat",
        f"from {PACKAGE} import codec",
        "from adbwire.wire.services import sync; sync.pull; sync.push; sync.stat",
    ],
)
def test_stat_push_and_pull_are_the_functions_whatever_is_imported_first(first: str) -> None:
    kinds = _run(
        f"{first}\n"
        f"import importlib, {PACKAGE}.stat\n"
        f"sync = importlib.import_module('{PACKAGE}')\n"
        "print([type(getattr(sync, n)).__name__ for n in ('stat', 'push', 'pull', 'codec')])\n"
    )
    assert kinds == ["function", "function", "function", "module"]


def test_every_exported_name_resolves() -> None:
    from adbwire.wire.services import sync  # noqa: PLC0415

    for name in sync.__all__:
        assert getattr(sync, name) is not None, name
    assert set(sync.__all__) <= set(dir(sync))
