"""The shared shell syntax: what the lexer and parser make of a command line (no execution)."""

from __future__ import annotations

import pytest

from adbwire.shell_syntax import (
    Arith,
    Assign,
    Case,
    CmdSub,
    Conditional,
    FunctionDef,
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
    assert command.words[4] == Word((Param("X", False, ":-", (Lit("/d", False),)),))
    assert command.words[5] == Word((Arith((Lit("1+2", True),), False),))
    assert command.words[6] == Word((Param("1", False),))


def test_assignments_redirections_and_io_numbers() -> None:
    command = only_simple("A=1 B=$x cmd 2>/dev/null >>log <in")
    assert command.assigns == [Assign("A", lit("1")), Assign("B", Word((Param("x", False),)))]
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
        ("cat <<EOF", True),
        ("cat <<EOF\nbody", True),
        ("cat <<", True),
        ("cat << ;", False),
        ("echo a;; echo b", False),
        ("case x in a) ls;; b ls;; esac", False),
        ("f() ", True),
        ("( " * 3000 + "echo" + " )" * 3000, False),  # deeper than Python's stack
        ("echo ${a b}", False),
    ],
)
def test_invalid_lines_raise_and_say_whether_more_input_could_finish_them(
    bad: str, incomplete: bool
) -> None:
    with pytest.raises(ShellSyntaxError) as caught:
        parse(bad)
    assert caught.value.incomplete is incomplete


def only_command(source: str) -> object:
    (item,) = parse(source)
    (command,) = item.first.commands
    return command


def test_function_definitions_in_both_forms_keep_their_body() -> None:
    for source in ("f() { echo a; }", "function f { echo a; }", "function f() { echo a; }"):
        command = only_command(source)
        assert isinstance(command, FunctionDef) and command.name == "f", source
        assert isinstance(command.body, Group) and not command.body.subshell
    body = only_command("f()\n(\n echo sub\n) > /dev/null")
    assert isinstance(body, FunctionDef) and isinstance(body.body, Group)
    assert body.body.subshell and body.body.redirects[0].op == ">"
    # `f ()` is a call with `()`? No: mksh reads it as a definition too; `f (x)` is an error
    assert isinstance(only_command("f () { :; }"), FunctionDef)
    with pytest.raises(ShellSyntaxError):
        parse("f (x)")


def test_case_items_keep_patterns_bodies_and_how_each_ends() -> None:
    command = only_command("case $1 in (a|b) echo ab;; c) echo c;& *) ;| d) esac")
    assert isinstance(command, Case)
    assert command.word == Word((Param("1", False),))
    assert [[w.literal() for w in pats] for pats, _ in command.items] == [
        ["a", "b"],
        ["c"],
        ["*"],
        ["d"],
    ]
    assert command.ends == [";;", ";&", ";|", ";;"]
    assert [len(body) for _, body in command.items] == [1, 1, 0, 0]
    assert only_simple("echo case in esac").words[1] == lit("case")


def test_here_documents_read_the_lines_after_the_command_line() -> None:
    script = parse("cat <<A; cat <<-'B' 3<<C\nx $y\nA\n\tliteral $y\n\tB\nthree\nC\necho after")
    first, second, last = (item.first.commands[0] for item in script)
    assert isinstance(first, Simple) and isinstance(second, Simple)
    (doc,) = first.redirects
    assert (doc.fd, doc.op) == (0, "<<")
    assert doc.target == Word((Lit("x ", True), Param("y", True), Lit("\n", True)))
    literal, three = second.redirects
    assert literal.target == Word((Lit("literal $y\n", True),))
    assert (three.fd, three.target) == (3, Word((Lit("three\n", True),)))
    assert literal.heredoc is not None and literal.heredoc.text == "literal $y\n"
    assert isinstance(last, Simple) and last.words[0] == lit("echo")
    # a delimiter of digits before `<` or `>` is still the delimiter, not a file descriptor
    (doc,) = only_simple("cat <<2>out\nbody\n2").redirects[:1]
    assert doc.heredoc is not None and doc.heredoc.delimiter == "2"


def test_parameter_operators_keep_their_operand_word() -> None:
    words = only_simple('echo ${x%.*} ${x##*/} ${x:=$(id)} "${x:-"a b"}" ${x+y z}').words
    assert words[1] == Word((Param("x", False, "%", (Lit(".*", False),)),))
    assert words[2] == Word((Param("x", False, "##", (Lit("*/", False),)),))
    assert words[3] == Word((Param("x", False, ":=", (CmdSub("id", False),)),))
    assert words[4].parts[0] == Param("x", True, ":-", (Lit("a b", True),))
    assert words[5] == Word((Param("x", False, "+", (Lit("y z", False),)),))
    assert only_simple("echo ${a:-${b:-c}}").words[1] == Word(
        (Param("a", False, ":-", (Param("b", False, ":-", (Lit("c", False),)),)),)
    )


def test_pattern_substitution_and_substring_keep_both_operands() -> None:
    words = only_simple('echo ${x//a/$b} ${x/#"p"} ${x:1:n+1} ${x: -2} "${x%% *}"').words
    assert words[1] == Word(
        (Param("x", False, "//", (Lit("a", False),), alt=(Param("b", False),)),)
    )
    assert words[2] == Word((Param("x", False, "/#", (Lit("p", True),)),))
    assert words[3] == Word((Param("x", False, "::", (Lit("1", True),), alt=(Lit("n+1", True),)),))
    assert words[4] == Word((Param("x", False, ":", (Lit(" -2", True),)),))
    # a pattern is a pattern inside double quotes too: its `*` stays unquoted
    assert words[5].parts[0] == Param("x", True, "%%", (Lit(" *", False),))


def test_double_brackets_keep_operators_apart_from_words() -> None:
    command = only_command('[[ ! -f "$f" && ( $x == a* || $x < b ) ]] > /dev/null')
    assert isinstance(command, Conditional)
    shown = [i if isinstance(i, str) else i.literal() or "…" for i in command.items]
    assert shown == ["!", "-f", "…", "&&", "(", "…", "==", "a*", "||", "…", "<", "b", ")"]
    assert command.redirects[0].op == ">"
    for bad in ("[[ ]]", "[[ a ; ]]", "[[ a"):
        with pytest.raises(ShellSyntaxError):
            parse(bad)
    (item,) = parse("ls &>/dev/null")
    (redirect,) = item.first.commands[0].redirects
    assert (redirect.fd, redirect.op) == (1, "&>")
