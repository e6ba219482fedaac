"""run_shell's guard over mksh's aliases, arrays, `select` and `time`: a destructive command
hidden behind one of them is refused or asked, as the plain command would be."""

from __future__ import annotations

import pytest

from adbwire.mcp.safety.shell_guard import Verdict, assess

REFUSED = [
    ("alias x='rm -rf /sdcard'; x", "recursive deletion of /sdcard"),
    ("alias x='rm -rf /sdcard'", "recursive deletion of /sdcard"),  # `trap x EXIT` may run it
    ("alias x='rm -rf'\nx /sdcard", "recursive deletion of /sdcard"),
    ("alias x='rm -rf'; x /sdcard", "recursive deletion of /sdcard"),  # next line's, too
    ("alias cd='rm -rf'; cd /sdcard", "recursive deletion of /sdcard"),
    ("alias y='echo a && rm -rf'; y /data", "recursive deletion of /data"),
    ("alias x='(rm -rf /data)'; x", "recursive deletion of /data"),
    ("alias s='sudo ' r='rm -rf'; s r /sdcard", "recursive deletion of /sdcard"),
    ("alias x='cd /sdcard'\nx; rm -rf *", "recursive deletion of / or /sdcard (as '*')"),
    ("a[$(rm -rf /sdcard)]=1", "recursive deletion of /sdcard"),
    ("echo ${a[$(rm -rf /data)]}", "recursive deletion of /data"),
    ("a=($(rm -rf /data))", "recursive deletion of /data"),
    ("typeset -i n=$(rm -rf /data)", "recursive deletion of /data"),
    ("select f in a b; do rm -rf /sdcard; done", "recursive deletion of /sdcard"),
    ("select f in $(rm -rf /data); do :; done", "recursive deletion of /data"),
    ("time rm -rf /data | cat", "recursive deletion of /data"),
    ("time -p rm -rf /system", "recursive deletion of /system"),
    ("(( $(rm -rf /data) ))", "recursive deletion of /data"),
    ("while (( i < $(rm -rf /sdcard) )); do :; done", "recursive deletion of /sdcard"),
]

ASKED = [
    ('set -A a rm -rf /sdcard; "${a[@]}"', "the command name ${a[@]} is only known"),
    ('a=(rm -rf /sdcard); "${a[@]}"', "the command name ${a[@]} is only known"),
    ("a[0]=rm; ${a[0]} -rf /sdcard", "the command name ${a[0]} is only known"),
    ("alias ll='ls -l'; ll", "alias defines a command the guard cannot follow"),
    ("alias x='x -l'; x", "alias defines a command the guard cannot follow"),
    ('alias x="$(echo rm)"; x -rf /', "alias defines a command only known when the line"),
    ("alias x='if true; then'; x rm -rf /data; fi", "the guard cannot read the command line"),
    ("alias x='(ls'; x", "the guard cannot read the alias x"),
]

ORDINARY = [
    "set -A a one two; echo ${a[1]} ${#a[@]}",
    "a=(1 2 3); a+=(4); echo ${a[@]}",
    "typeset -i n=1; typeset -r r=2; readonly q=3; umask 022; echo $-",
    "select f in a b; do echo $f; break; done",
    "time ls /sdcard",
    "time",
    "unalias ll",
    "i=0; while (( i < 3 )); do (( i++ )); done; echo $((a[1] + i))",
]


@pytest.mark.parametrize(("command", "reason"), REFUSED, ids=[c for c, _ in REFUSED])
def test_destructive_commands_behind_aliases_and_arrays_are_refused(
    command: str, reason: str
) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.REFUSE, assessment
    assert any(reason in given for given in assessment.reasons), assessment.reasons


@pytest.mark.parametrize(("command", "reason"), ASKED, ids=[c for c, _ in ASKED])
def test_what_an_alias_or_array_only_knows_at_run_time_is_asked(command: str, reason: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.ASK_EVERY_TIME, assessment
    assert any(reason in given for given in assessment.reasons), assessment.reasons


@pytest.mark.parametrize("command", ORDINARY)
def test_arrays_typeset_select_and_time_alone_are_ordinary(command: str) -> None:
    assessment = assess(command)
    assert (assessment.verdict, assessment.reasons) == (Verdict.ORDINARY, ())


def test_a_quoted_name_is_no_alias_but_the_definition_is_still_asked() -> None:
    assessment = assess("alias x='rm -rf /sdcard/Download'; \\x /sdcard")
    assert assessment.verdict is Verdict.ASK_EVERY_TIME
    assert not any(
        "/sdcard " in reason or reason.endswith("/sdcard") for reason in assessment.reasons
    )


# mksh evaluates a variable's value as an arithmetic expression wherever it needs a number
# and expands an array subscript met there: quoted `$(…)` in such a value runs (checked on
# mksh R59 with `echo PWNED >&2` in place of the rm).
_HIDDEN = "x='a[$(rm -rf /sdcard)]'; "
ARITHMETIC_REFUSED = [
    "typeset -i y='a[$(rm -rf /sdcard)]'",
    "typeset -i y; y='a[$(rm -rf /sdcard)]'",
    "typeset -i y='a[`rm -rf /sdcard`]'",
    "x='a[`rm -rf /sdcard`]'; echo $((x))",
    *(
        _HIDDEN + use
        for use in (
            "echo $((x))",
            "((x))",
            "let y=x",
            "[[ x -eq 1 ]]",
            "echo ${b[x]}",
            "b[x]=1",
            "shift x",
            "test x -eq 1",
        )
    ),
    "export y='a[$(rm -rf /sdcard)]'; local z=a'[$(rm -rf /sdcard)]'",
    "let 'y=a[$(rm -rf /sdcard)]'",
    "x=${y:-'a[$(rm -rf /sdcard)]'}; ((x))",
    "for i in 'a[$(rm -rf /sdcard)]'; do ((i)); done",
    "read x <<<'a[$(rm -rf /sdcard)]'; ((x))",
    "x='a[$(echo '\"'\"'b[$(rm -rf /sdcard)]'\"'\"')]'; ((x))",  # nested twice
]

ARITHMETIC_ASKED = [
    ("x='a[$(rm -rf'; ((x))", "the guard cannot read the subscript in 'a[$(rm -rf'"),
    ("x='a[${y'; ((x))", "the guard cannot read the subscript"),
    # Without a subscript of its own the text runs only through another value's subscript.
    ("x='$(rm -rf /sdcard)'; y='a[b[$x]]'; ((y))", "recursive deletion of /sdcard, if mksh"),
    ("read x <<'EOF'\na[$(rm -rf /sdcard)]\nEOF\n((x))", "recursive deletion of /sdcard, if"),
]

ARITHMETIC_ORDINARY = [
    "x='a[$(date)]'; ((x))",
    "x='a[${y:-0}]'; ((x))",
    "echo '[$(date)]' \"[$x] $(date)\"",
    "echo 'costs $(5'",
    "cat > /data/local/tmp/s.sh <<'EOF'\nif [ \"$(id -u)\" = 0 ]; then echo don't; fi\nEOF",
]


@pytest.mark.parametrize("command", ARITHMETIC_REFUSED)
def test_a_destructive_substitution_arithmetic_expands_is_refused(command: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.REFUSE, assessment
    assert assessment.reasons == ("recursive deletion of /sdcard",)


@pytest.mark.parametrize(
    ("command", "reason"), ARITHMETIC_ASKED, ids=[c for c, _ in ARITHMETIC_ASKED]
)
def test_quoted_text_arithmetic_may_expand_is_asked_when_unsure(command: str, reason: str) -> None:
    assessment = assess(command)
    assert assessment.verdict is Verdict.ASK_EVERY_TIME, assessment
    assert any(reason in given for given in assessment.reasons), assessment.reasons


@pytest.mark.parametrize("command", ARITHMETIC_ORDINARY)
def test_quoted_substitutions_of_harmless_commands_stay_ordinary(command: str) -> None:
    assessment = assess(command)
    assert (assessment.verdict, assessment.reasons) == (Verdict.ORDINARY, ())


# `$'…'` is mksh's C-escaped string: the guard reads it as the shell does.
ANSI_C_REFUSED = [
    ("$'rm' -rf /sdcard", "recursive deletion of /sdcard"),
    ("rm -rf $'\\x2fsdcard'", "recursive deletion of /sdcard"),
    ("$'\\x72m' -rf $'/\\144ata'", "recursive deletion of /data"),
    ("x=$'a[\\x24(rm -rf /sdcard)]'; ((x))", "recursive deletion of /sdcard"),
    ("echo $(echo $'a\\'b'; rm -rf /sdcard)", "recursive deletion of /sdcard"),
]


@pytest.mark.parametrize(("command", "reason"), ANSI_C_REFUSED, ids=[c for c, _ in ANSI_C_REFUSED])
def test_ansi_c_strings_are_read_as_mksh_reads_them(command: str, reason: str) -> None:
    assessment = assess(command)
    assert (assessment.verdict, assessment.reasons) == (Verdict.REFUSE, (reason,))


def test_dollar_quote_inside_double_quotes_is_plain_text() -> None:
    assessment = assess("echo \"$'rm'\" $'hello\\n'; rm -rf \"$'/sdcard'\"")
    assert (assessment.verdict, assessment.reasons) == (Verdict.ORDINARY, ())
