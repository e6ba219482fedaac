"""mksh's syntax beyond POSIX in the shared parser: arrays, `+=`, `select`, `time`, and
aliases replaced while parsing (as mksh replaces them while reading a line)."""

from __future__ import annotations

import pytest

from adbwire.shell_syntax import (
    Assign,
    For,
    Lit,
    Param,
    ShellSyntaxError,
    Simple,
    Word,
    parse,
    parse_lines,
    tokenize,
)


def lit(text: str, quoted: bool = False) -> Word:
    return Word((Lit(text, quoted),))


def words(source: str, aliases: dict[str, str] | None = None) -> list[list[str | None]]:
    """Each simple command's words, as literal text."""
    found = []
    for item in parse(source, aliases):
        for command in item.first.commands:
            assert isinstance(command, Simple)
            found.append([word.literal() for word in command.words])
    return found


def test_array_assignments_keep_their_subscript_and_items() -> None:
    (item,) = parse("a[i+1]=x b+=y c=(1 $d) e+=(2)")
    command = item.first.commands[0]
    assert isinstance(command, Simple)
    assert command.assigns == [
        Assign("a", lit("x"), Word((Lit("i+1", True),))),
        Assign("b", lit("y"), append=True),
        Assign("c", Word(()), items=(lit("1"), Word((Param("d", False),)))),
        Assign("e", Word(()), append=True, items=(lit("2"),)),
    ]


def test_array_expansions_name_their_subscript() -> None:
    (word,) = tokenize('"${a[@]}"')[:1]
    assert isinstance(word, Word)
    assert word.parts[0] == Param("a", True, subscript=(Lit("@", False),))
    (count,) = tokenize("${#a[*]}")
    assert isinstance(count, Word)
    assert count.parts[0] == Param("a", False, length=True, subscript=(Lit("*", False),))
    (keys,) = tokenize("${!a[@]}")
    assert isinstance(keys, Word)
    assert keys.parts[0] == Param("a", False, subscript=(Lit("@", False),), keys=True)
    with pytest.raises(ShellSyntaxError):
        tokenize("${!a}")


def test_select_is_a_loop_and_time_marks_a_pipeline() -> None:
    (select,) = parse("select f in a b; do echo $f; done")
    loop = select.first.commands[0]
    assert isinstance(loop, For) and loop.select and loop.var == "f"
    (timed, alone, posix) = parse("time a | b; time; time -p c")
    assert timed.first.timed and len(timed.first.commands) == 2
    assert alone.first.timed and alone.first.commands == []
    assert posix.first.posix_time and not timed.first.posix_time


def test_an_alias_is_replaced_in_command_position_only() -> None:
    aliases = {"ll": "ls -l", "e": "echo ", "w": "world"}
    assert words("ll x; echo ll; X=1 ll; e w ll", aliases) == [
        ["ls", "-l", "x"],
        ["echo", "ll"],
        ["ls", "-l"],
        ["echo", "world", "ll"],  # a value ending in a blank: the next word too
    ]
    assert words("\\ll; 'll'", aliases) == [[None], [None]]  # quoted: no alias


def test_an_alias_is_not_replaced_again_inside_itself() -> None:
    assert words("ls", {"ls": "ls -F"}) == [["ls", "-F"]]
    assert words("rec", {"rec": "rec2 a", "rec2": "rec b"}) == [["rec", "b", "a"]]


def test_parse_lines_reads_each_line_with_the_aliases_of_that_moment() -> None:
    aliases: dict[str, str] = {}
    seen = []
    for line in parse_lines(tokenize("x; alias x=y\nx"), aliases):
        seen.append(line)
        aliases["x"] = "echo hi"  # what running `alias x=…` does
    assert len(seen) == 2
    first, second = seen[0][0].first.commands[0], seen[1][0].first.commands[0]
    assert isinstance(first, Simple) and isinstance(second, Simple)
    assert first.words == [lit("x")]
    assert second.words == [lit("echo"), lit("hi")]


def test_double_parentheses_where_a_command_starts_are_let() -> None:
    (item,) = parse("((x = $y + 1))")
    command = item.first.commands[0]
    assert isinstance(command, Simple)
    assert command.words == [  # `let` quoted: no alias of that name applies
        Word((Lit("let", True),)),
        Word((Lit("x = ", True), Param("y", True), Lit(" + 1", True))),
    ]
    loop = parse("while ((i < 3)); do ((i++)); done")[0].first.commands[0]
    assert not isinstance(loop, Simple)
    nested = parse("((cd /; ls); pwd)")[0].first.commands[0]  # subshells, not arithmetic
    assert not isinstance(nested, Simple)
    with pytest.raises(ShellSyntaxError):
        parse("echo ((x))")
