"""The shared shell syntax: what the lexer and parser make of a command line (no execution)."""

from __future__ import annotations

import pytest

from adbwire.shell_syntax import (
    Arith,
    CmdSub,
    Group,
    Lit,
    Op,
    Param,
    Pipeline,
    Redirect,
    ShellSyntaxError,
    Simple,
    Word,
    parse,
    tokenize,
)


def lit(text: str, quoted: bool = False) -> Word:
    return Word((Lit(text, quoted),))


def only_simple(source: str) -> Simple:
    script = parse(source)
    assert len(script) == 1 and not script[0].rest
    (command,) = script[0].first.commands
    assert isinstance(command, Simple)
    return command


def test_a_list_keeps_its_and_or_links_and_pipelines() -> None:
    script = parse("cd /sdcard && rm -rf x || echo no; ls | sh & true")
    assert len(script) == 3
    first = script[0]
    assert [op for op, _ in first.rest] == ["&&", "||"]
    assert first.first.commands[0] == Simple(words=[lit("cd"), lit("/sdcard")])
    pipe: Pipeline = script[1].first
    assert [c.words[0] for c in pipe.commands if isinstance(c, Simple)] == [lit("ls"), lit("sh")]
    assert script[2].first.commands[0] == Simple(words=[lit("true")])


def test_quotes_are_remembered_per_part() -> None:
    command = only_simple("""rm -rf '/s d'"/x"\\*""")
    assert command.words[2] == Word(
        (Lit("/s d", True), Lit("/x", True), Lit("*", True)),
    )


def test_expansions_become_their_own_parts() -> None:
    command = only_simple('echo $(ls /) `id` "$HOME" ${X:-/d} $((1+2)) $1')
    assert command.words[1] == Word((CmdSub("ls /", False),))
    assert command.words[2] == Word((CmdSub("id", False),))
    assert command.words[3] == Word((Param("HOME", True), Lit("", True)))
    assert command.words[4] == Word((Param("X", False, default="/d"),))
    assert command.words[5] == Word((Arith((Lit("1+2", True),), False),))
    assert command.words[6] == Word((Param("1", False),))


def test_assignments_redirections_and_io_numbers() -> None:
    command = only_simple("A=1 B=$x cmd 2>/dev/null >>log <in")
    assert command.assigns == [("A", lit("1")), ("B", Word((Param("x", False),)))]
    assert command.words == [lit("cmd")]
    assert command.redirects == [
        Redirect(2, ">", lit("/dev/null")),
        Redirect(1, ">>", lit("log")),
        Redirect(0, "<", lit("in")),
    ]


def test_subshells_and_groups() -> None:
    script = parse("(cd /data; rm -rf x) >out; { echo a; }")
    subshell = script[0].first.commands[0]
    assert isinstance(subshell, Group) and subshell.subshell
    assert len(subshell.body) == 2
    assert subshell.redirects == [Redirect(1, ">", lit("out"))]
    group = script[1].first.commands[0]
    assert isinstance(group, Group) and not group.subshell


def test_tokens_include_operators_and_newlines() -> None:
    assert tokenize("a;b\nc") == [lit("a"), Op(";"), lit("b"), Op("\n"), lit("c")]
    assert tokenize("x 2>&1") == [lit("x"), Op(">&", 2), lit("1")]


def test_comments_and_line_continuations_vanish() -> None:
    assert only_simple("rm \\\n-rf x # /").words == [lit("rm"), lit("-rf"), lit("x")]


@pytest.mark.parametrize(
    ("bad", "incomplete"),
    [
        ("echo 'open", True),
        ('echo "open', True),
        ("echo `open", True),
        ("echo $(open", True),
        ("echo ${open", True),
        ("a &&", True),
        ("echo )", False),
        ("| x", False),
        ("cat <<EOF", False),
        ("echo ${a b}", False),
    ],
)
def test_invalid_lines_raise_and_say_whether_more_input_could_finish_them(
    bad: str, incomplete: bool
) -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse(bad)
    assert caught.value.incomplete is incomplete
