"""The guard's building blocks: what a word is before the shell runs it, where a path operand
may point, and which paths are protected."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.mcp.safety.shell_guard import MAX_NESTING, MAX_PLACES
from adbwire.mcp.safety.shell_paths import (
    DEVICE_NODES,
    HOME,
    PROTECTED,
    Target,
    device_node,
    protected,
    targets,
)
from adbwire.mcp.safety.shell_words import Component, Text, literal, read_word, show, substitutions
from adbwire.shell_syntax import Word, parse, tokenize

DOCS = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def word(source: str) -> Word:
    (token,) = tokenize(source)
    assert isinstance(token, Word)
    return token


def text(source: str) -> Text:
    found = read_word(word(source))
    assert found is not None, source
    return found


def paths(source: str, cwds: frozenset[str] | None = frozenset({"/"})) -> list[str] | None:
    found = targets(text(source), cwds)
    return None if found is None else [target.path for target in found]


@pytest.mark.parametrize(
    ("source", "value", "globs"),
    [
        ("/sdcard", "/sdcard", False),
        ("'/sd*'", "/sd*", False),
        ('"/sd"card', "/sdcard", False),
        ("/sd\\*", "/sd*", False),
        ("/sd*", "/sd*", True),
        ("/sdc?rd", "/sdc?rd", True),
        ("/[d]ata", "/[d]ata", True),
        ("{}", "{}", False),
        ("a,b", "a,b", False),
        ("'{a,b}'", "{a,b}", False),
        ("~", "~", False),
        ("~/x", "~/x", False),
        ("'~user'", "~user", False),
        ("x~y", "x~y", False),
    ],
)
def test_words_the_guard_can_read(source: str, value: str, globs: bool) -> None:
    found = text(source)
    assert found.text == value
    assert found.globs is globs
    assert literal(word(source)) == (None if globs else value)


@pytest.mark.parametrize(
    "source", ["$X", "${X}", "a$X", "$(ls)", "`ls`", "$((1))", "/{a,b}", "x{a,b}y", "~shell"]
)
def test_words_only_the_run_can_tell(source: str) -> None:
    assert read_word(word(source)) is None
    assert literal(word(source)) is None


def test_a_tilde_is_home_only_unquoted_at_the_start() -> None:
    assert text("~/x").tilde and text("~").tilde
    assert not text("'~'/x").tilde and not text("a~").tilde


def test_components_keep_quoting_per_name() -> None:
    assert text("/a/'*'/b*/").components() == [
        Component(""),
        Component("a"),
        Component("*", None),
        Component("b*", "b*"),
        Component(""),
    ]
    assert text("/x/'b*'c*").components()[-1] == Component("b*c*", "b[*]c*")
    assert text("/x/[a?]").components()[-1] == Component("[a?]", "[a?]")


def test_show_writes_expansions_back() -> None:
    assert show(word("a$X")) == "a${X}"
    assert show(word("$(ls /)")) == "$(ls /)"
    assert show(word("$((1+1))")) == "$((…))"


def test_substitutions_are_found_however_nested() -> None:
    source = 'echo $(a) "`b`" $((1 + $(c))) ${X:-$(d)} ${Y:-plain} ${Z:-`e`}'
    (item,) = parse(source)
    (command,) = item.first.commands
    found = [s for w in command.words for s in substitutions(w)]  # type: ignore[union-attr]
    assert found == ["a", "b", "c", "d", "e"]


def test_every_operand_word_of_a_parameter_expansion_is_searched() -> None:
    source = 'echo ${X#$(a)} ${X%%`b`} ${X:+"$(c)"} ${X:=${Y:-$(d)}} "${X:?$(e)}"'
    (item,) = parse(source)
    (command,) = item.first.commands
    found = [s for w in command.words for s in substitutions(w)]  # type: ignore[union-attr]
    assert found == ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(
    ("source", "cwds", "expected"),
    [
        ("/sdcard", None, ["/sdcard"]),
        ("//sdcard//", None, ["/sdcard"]),
        ("/sdcard/./.", None, ["/sdcard"]),
        ("/sdcard/*", None, ["/sdcard"]),
        ("/sdcard/*/*/", None, ["/sdcard"]),
        ("/sdcard/*.txt", None, ["/sdcard/*.txt"]),
        ("/sdcard/'*'", None, ["/sdcard/*"]),
        ("/a/../b", None, ["/b"]),
        ("/../..", None, ["/"]),
        ("x", frozenset({"/data", "/"}), ["/x", "/data/x"]),
        ("../x", frozenset({"/data/local"}), ["/data/x"]),
        (".", frozenset({"/sdcard"}), ["/sdcard"]),
        ("x", None, None),
        ("~", None, [HOME]),
        ("~/a/b", frozenset({"/sdcard"}), ["/a/b"]),
    ],
)
def test_where_an_operand_may_point(
    source: str, cwds: frozenset[str] | None, expected: list[str] | None
) -> None:
    assert paths(source, cwds) == expected


def test_targets_remember_dotdot_and_home() -> None:
    (plain,) = targets(text("/a/b"), None) or []
    assert (plain.dotdot, plain.home) == (False, False)
    (up,) = targets(text("/a/../b"), None) or []
    assert (up.dotdot, up.home) == (True, False)
    (home,) = targets(text("~/b"), None) or []
    assert (home.dotdot, home.home) == (False, True)
    assert targets(text("x"), frozenset()) == []


def target(source: str) -> Target:
    (found,) = targets(text(source), None) or []
    return found


@pytest.mark.parametrize(
    "source",
    [
        "/",
        "/x",
        "/data",
        "/data/local",
        "/data/media/0",
        "/data/user/10",
        "/storage/emulated/0",
        "/storage/self/primary",
        "/storage/self",
        "/mnt/user/0/primary",
        "/mnt/user/0",
        "/mnt/runtime/default/emulated/0",
        "/system/app",
        "/dev/block",
    ],
)
def test_protected_paths(source: str) -> None:
    assert protected(target(source))


@pytest.mark.parametrize(
    "source",
    [
        "/sdcard/Download",
        "/data/local/tmp",
        "/data/data/com.example",
        "/data/media/0/Download",
        "/storage/emulated/0/DCIM",
        "/storage/self/other",
        "/mnt/user/0/other",
        "/system/app/Foo",
        "/sd*/x",
    ],
)
def test_not_protected(source: str) -> None:
    assert not protected(target(source))


@pytest.mark.parametrize("source", ["/sd*", "/*/media/0", "/data/[m]edia", "/storage/self/p*"])
def test_globs_that_may_match_a_protected_path(source: str) -> None:
    assert target(source).globs and protected(target(source))


def test_a_glob_that_cannot_match_the_protected_name() -> None:
    assert not protected(target("/storage/self/x*"))


@pytest.mark.parametrize(
    ("source", "node"),
    [
        ("/dev/block/sda", True),
        ("/dev/block/by-name/userdata", True),
        ("/dev/mtd0", True),
        ("/dev/mtdblock1", True),
        ("/dev/mmcblk0p2", True),
        ("/dev/sda", True),
        ("/dev/nvme0n1", True),
        ("/dev/vda", True),
        ("/dev/dm-3", True),
        ("/dev/ubi0", True),
        ("/dev/mapper/x", True),
        ("/dev/mem", True),
        ("/dev/kmem", True),
        ("/dev/null", False),
        ("/dev/zero", False),
        ("/dev/s", False),
        ("/dev/memx", False),
        ("/sdcard/dev/block/sda", False),
        ("/dev/tty", False),
    ],
)
def test_device_nodes(source: str, node: bool) -> None:
    assert device_node(target(source)) is node


def test_security_md_lists_the_protected_set_and_the_nodes() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    for entry in PROTECTED[1:]:
        parent = entry.rsplit("/", 1)[0]
        assert f"`{entry}`" in docs or f"`{parent}`" in docs, entry
    for pattern in DEVICE_NODES:
        assert f"`{pattern}`" in docs, pattern
    assert f"deeper than {MAX_NESTING} levels" in docs
    assert f"past {MAX_PLACES} possible directories" in docs
