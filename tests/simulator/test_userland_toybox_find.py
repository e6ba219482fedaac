"""find and xargs on the simulated device: expressions, -exec, -delete, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


# -- find and xargs ----------------------------------------------------------------------------
@pytest.fixture
def tree(userland: Userland) -> Userland:
    files = userland.device.files
    files.mkdir(f"{TMP}/d/e", parents=True)
    files.write_bytes(f"{TMP}/d/a.txt", b"a")
    files.write_bytes(f"{TMP}/d/e/b.txt", b"")
    files.write_bytes(f"{TMP}/d/c.log", b"c")
    return userland


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("", ["d", "d/a.txt", "d/c.log", "d/e", "d/e/b.txt"]),
        ("-name '*.txt'", ["d/a.txt", "d/e/b.txt"]),
        ("-type d", ["d", "d/e"]),
        ("-maxdepth 1 -type f", ["d/a.txt", "d/c.log"]),
        ("-mindepth 2", ["d/e/b.txt"]),
        ("! -name '*.txt' -type f", ["d/c.log"]),
        ("-name a.txt -o -name c.log", ["d/a.txt", "d/c.log"]),
        ("-type f -empty", ["d/e/b.txt"]),
        ("-iname 'A.TXT'", ["d/a.txt"]),
        ("-path '*/e/*'", ["d/e/b.txt"]),
    ],
)
def test_find_expressions(tree: Userland, expression: str, expected: list[str]) -> None:
    result = run(tree, f"cd {TMP} && find d {expression}")
    assert (result.status, result.out.splitlines()) == (0, expected)


def test_find_exec_one_at_a_time_and_batched(tree: Userland) -> None:
    single = run(tree, f"cd {TMP} && find d -name '*.txt' -exec echo X {{}} \\;")
    assert single.out == "X d/a.txt\nX d/e/b.txt\n"
    batched = run(tree, f"cd {TMP} && find d -name '*.txt' -exec echo Y {{}} +")
    assert batched.out == "Y d/a.txt d/e/b.txt\n"


def test_find_delete_removes_contents_before_directories(tree: Userland) -> None:
    result = run(tree, f"find {TMP}/d/e -delete; ls {TMP}/d")
    assert (result.status, result.out) == (0, "a.txt\nc.log\n")


def test_find_missing_path_reports_and_exits_1(tree: Userland) -> None:
    result = run(tree, f"find /nope {TMP}/d/e")
    assert result.status == 1
    assert result.err == "find: /nope: No such file or directory\n"
    assert result.out == f"{TMP}/d/e\n{TMP}/d/e/b.txt\n"


def test_find_bad_primary_fails(tree: Userland) -> None:
    result = run(tree, f"find {TMP} -bogus")
    assert result.status == 1
    assert result.err.startswith("find: ")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo a b c | xargs echo X", "X a b c\n"),
        ("echo a b c | xargs -n 1 echo", "a\nb\nc\n"),
        ("printf 'a b\\0c\\0' | xargs -0 echo", "a b c\n"),
        ("printf '1\\n2\\n' | xargs -I{} echo [{}]", "[1]\n[2]\n"),
        ("echo a b | xargs", "a b\n"),
    ],
)
def test_xargs(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out) == (0, expected)


def test_xargs_passes_failures_on_as_123(userland: Userland) -> None:
    assert run(userland, "echo x | xargs false").status == 123
    assert run(userland, "echo x | xargs no-such-command").status == 127


def test_find_piped_into_xargs_rm(tree: Userland) -> None:
    result = run(tree, f"find {TMP}/d -name '*.txt' | xargs rm; find {TMP}/d -type f")
    assert result.out == f"{TMP}/d/c.log\n"
