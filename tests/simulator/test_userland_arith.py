"""`$((…))` in the simulated /system/bin/sh: mksh's 32-bit integer arithmetic and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path)


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("1+2*3", "7"),
        ("(1+2)*3", "9"),
        ("((1+2))*3", "9"),
        ("17/5", "3"),
        ("-17/5", "-3"),  # C division truncates toward zero
        ("-17%5", "-2"),
        ("17%-5", "2"),
        ("2147483647+1", "-2147483648"),  # mksh arithmetic is 32-bit
        ("-2147483648/-1", "-2147483648"),
        ("1<<31", "-2147483648"),
        ("-16>>2", "-4"),
        ("3>2", "1"),
        ("3<=2", "0"),
        ("4==4 && 0", "0"),
        ("0 || 5", "1"),
        ("!0 + ~0", "0"),
        ("6&3 | 8^1", "11"),
        ("1 ? 2 : 3", "2"),
        ("0 ? 2 : 0 ? 4 : 5", "5"),
        ("0x1f + 8#17 + 2#101", "51"),
        ("010", "10"),  # not octal in mksh
        ("  ", "0"),
        ("1, 2, 3", "3"),
    ],
)
def test_values(userland: Userland, expression: str, value: str) -> None:
    result = run(userland, f"echo $(({expression}))")
    assert (result.status, result.out, result.err) == (0, value + "\n", "")


def test_variables_and_assignments(userland: Userland) -> None:
    out = run(userland, "x=5; echo $((x*2)) $(($x+1)) $((x+=3)) $x $((y)) $((x++)) $((++x)) $x").out
    assert out == "10 6 8 8 0 8 10 10\n"
    assert run(userland, "a=2+3; echo $((a*2))").out == "10\n"  # a value is an expression
    assert run(userland, "echo $((a=b=4)) $a $b").out == "4 4 4\n"


def test_expansions_inside_run_first(userland: Userland) -> None:
    assert run(userland, "n=3; echo $(( $(echo 4) * ${n} ))").out == "12\n"
    assert run(userland, 'echo "$((1+1))" $((1 + $((2*3))))').out == "2 7\n"


def test_loops_count_with_it(userland: Userland) -> None:
    out = run(userland, "i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done; echo end $i").out
    assert out == "0\n1\n2\nend 3\n"


def test_a_subshell_in_command_substitution_is_not_arithmetic(userland: Userland) -> None:
    assert run(userland, "echo $( (echo sub) ) $((echo a); echo b)").out == "sub a b\n"


def test_untaken_branches_have_no_effects(userland: Userland) -> None:
    assert run(userland, "echo $((0 && 1/0)) $((1 || (x=9))) $((1 ? 2 : 1/0)) x${x}").out == (
        "0 1 2 x\n"
    )


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1/0", "1/0: zero divisor"),
        ("5%0", "5%0: zero divisor"),
        ("1+", "1+: unexpected 'end of expression'"),
        ("2a+1", "2a+1: bad number '2a'"),
        ("2a", "2a: bad number"),
        ("1 ? 2", "1 ? 2: missing :"),
        ("1 @ 2", "1 @ 2: unexpected '@'"),
        ("3 = 4", "3 = 4: unexpected '='"),
    ],
)
def test_errors_read_as_mksh_and_end_the_shell(
    userland: Userland, expression: str, message: str
) -> None:
    result = run(userland, f"echo before; echo $(({expression})); echo after")
    assert result.out == "before\n"
    assert result.err == f"/system/bin/sh: {message}\n"
    assert result.status == 1


def test_a_value_with_an_open_parenthesis(userland: Userland) -> None:
    result = run(userland, "x='(1'; echo $((x))")
    assert (result.status, result.err) == (1, "/system/bin/sh: (1: missing )\n")


def test_a_self_referencing_variable_is_reported(userland: Userland) -> None:
    result = run(userland, "x=x+1; echo $((x))")
    assert "expression recurses on parameter 'x'" in result.err
    assert result.status == 1


def test_an_unclosed_expansion_is_incomplete_syntax(userland: Userland) -> None:
    result = run(userland, "echo $((1+2")
    assert result.status == 1
    assert result.err.startswith("/system/bin/sh: syntax error:")


def test_an_interactive_shell_reports_the_error_and_goes_on(userland: Userland) -> None:
    io = BufferIO(b"echo $((1/0))\necho still here\n")
    assert userland.run("", io) == 0
    assert (bytes(io.stdout), bytes(io.stderr)) == (
        b"still here\n",
        b"/system/bin/sh: 1/0: zero divisor\n",
    )
