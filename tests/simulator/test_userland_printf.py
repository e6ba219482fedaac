"""toybox printf on the simulated device: conversions, flags, width and precision (also
from `*`), escapes, format reuse, `%b` and `\\c`, and what C's strtoll makes of numbers.

The expected texts are what printf(1) prints for them (GNU coreutils 9.1 and toybox agree
on every line here; toybox's error wording is `printf: invalid arg 'X'`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.simulator.userland_harness import make_userland, run

CASES = [
    (
        r"printf '%5.2f|%e|%g|%.3s|%-4d|%04x|%o|%X|%c|%%|%i\n' 3.14159 1234.5 0.0001 abcdef "
        "7 255 8 255 xyz 42",
        " 3.14|1.234500e+03|0.0001|abc|7   |00ff|10|FF|x|%|42\n",
    ),
    (r"printf '%*d|%-*s|%.*f\n' 5 42 6 ab 1 2.25", "   42|ab    |2.2\n"),
    (r"printf '\x41\101\t\\\n'", "AA\t\\\n"),
    (r"printf '%s %s\n' a b c", "a b\nc \n"),
    (r"printf '%b|' 'a\tb' '\0101'; printf '%b\n' 'cut\c here'; printf 'x\n'", "a\tb|A|cutx\n"),
    (r"printf 'stop\c never'; echo", "stop\n"),
    (
        r"""printf '%d %d %d %x %o\n' 0x1F "'A" 010 -1 -1""",
        "31 65 8 ffffffffffffffff 1777777777777777777777\n",
    ),
    (r"printf '%+d|% d|%#x|%#o|%5.1s|\n' 5 5 255 8 xyz", "+5| 5|0xff|010|    x|\n"),
    (r"printf '%s\n'", "\n"),
    (r"printf '%d|%s|%c|\n'", "0||\0|\n"),  # %c of nothing: C's putchar of the NUL
]


@pytest.mark.parametrize(("line", "out"), CASES, ids=[c[0][:40] for c in CASES])
def test_printf_formats_as_printf_1_does(tmp_path: Path, line: str, out: str) -> None:
    result = run(make_userland(tmp_path), line)
    assert (result.out, result.err, result.status) == (out, "", 0)


def test_a_number_that_is_not_wholly_a_number_is_an_error(tmp_path: Path) -> None:
    result = run(make_userland(tmp_path), "printf '%d|%d|%.1f\\n' abc 12x 1.5z")
    assert result.out == "0|12|1.5\n"
    assert result.err == (
        "printf: invalid arg 'abc'\nprintf: invalid arg '12x'\nprintf: invalid arg '1.5z'\n"
    )
    assert result.status == 1
    bad = run(make_userland(tmp_path), "printf '%y' 1")
    assert (bad.err, bad.status) == ("printf: bad %y\n", 1)
