"""The simulated mksh's option numbers: `typeset -iN` (an integer's output base) and
`read -t SECONDS`.

Expected outputs, errors and statuses come from mksh R59 (`mksh -c SCRIPT </dev/null`,
Debian's package), with its `mksh: ` prefix written as the device's `/system/bin/sh: ` and
Debian's `E: ` message tag dropped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.simulator.userland_harness import make_userland, run

TYPESET_BASES = [
    ("typeset -i8 x=9; echo $x", "8#11\n", "", 0),
    ("typeset -i16 x=255; typeset -p x", "typeset -i x=16#ff\n", "", 0),
    ("typeset -i2 x=5; echo $x; x=x+1; echo $x", "2#101\n2#110\n", "", 0),
    ("typeset -i36 x=35; echo $x; typeset -i36 y=-71; echo $y", "36#z\n-36#1z\n", "", 0),
    (
        "for n in 65 -65 0 233 65533 65536; do typeset -i1 x=$n; echo $x; done",
        "1#A\n1#A\n2#0\n1#\u00e9\n1#\ufffd\n1#\ufffd\n",
        "",
        0,
    ),
    ("typeset -i10 x=5; typeset -p x; typeset -i0 y=5; echo $y", "typeset -i x=5\n5\n", "", 0),
    ("typeset -i37 x=5; echo $?; typeset -p x", "0\ntypeset -i x=5\n", "", 0),
    ("typeset -i08 x=9; echo $x; typeset -i8 -i16 y=5; echo $y", "8#11\n16#5\n", "", 0),
    ("x=9; typeset -i8 x; echo $x; x=$x+1; echo $x", "8#11\n8#12\n", "", 0),
    ("typeset -i8 x=9; typeset +i x; echo $x; typeset -i x=9; echo $x", "8#11\n9\n", "", 0),
    ("typeset -i8 x=9; typeset -i x=16#1; echo $x", "8#1\n", "", 0),
    ("typeset -i8 x=9; typeset -i10 x; echo $x", "9\n", "", 0),
    ("typeset +i8 x=9; typeset -p x", "typeset x=9\n", "", 0),
    (
        "typeset -ui16 x=255; echo $x; typeset -i8 -x y=9; typeset -p y",
        "16#FF\ntypeset -i -x y=8#11\n",
        "",
        0,
    ),
    ("typeset -i16 x=255; y=$x; echo $((x+1)) $y", "256 16#ff\n", "", 0),
    ("typeset -i8 x=9; readonly x; readonly -p | grep x=", "readonly x=8#11\n", "", 0),
    (
        "typeset -i8u x=5; echo $? [$x]",
        "1 []\n",
        "/system/bin/sh: typeset: bad integer base: 8u: Invalid argument\n",
        0,
    ),
    (
        "typeset -i2147483648 x=9; echo $?; typeset -i2147483647 y=9; echo $y",
        "1\n9\n",
        "/system/bin/sh: typeset: bad integer base: 2147483648: "
        "Value too large for defined data type\n",
        0,
    ),
    ("typeset -8 x=5; echo $?", "1\n", "/system/bin/sh: typeset: -8: unknown option\n", 0),
]


READ_TIMEOUTS = [  # stdin at its end: an accepted timeout reads nothing, status 1
    *(
        (
            f"read -t '{text}' x; echo $?",
            "2\n",
            f"/system/bin/sh: read: syntax error: {reason} '{text}'\n",
            0,
        )
        for text, reason in [
            ("1e3", "Invalid argument"),
            ("+1", "Invalid argument"),
            ("-1", "Invalid argument"),
            ("1_0", "Invalid argument"),
            (" 1", "Invalid argument"),
            ("1 ", "Invalid argument"),
            ("0x1", "Invalid argument"),
            ("1.2.3", "Invalid argument"),
            ("\u0661", "Invalid argument"),  # an Arabic-Indic digit: Python's float reads it
            ("9223372036854775808", "Value too large for defined data type"),
            ("99999999999999999999999", "Value too large for defined data type"),
        ]
    ),
    ("read -t 99999999999 x; echo $?; read -t 4294967296.5 x; echo $?", "1\n1\n", "", 0),
    (
        "read -t .5 x; echo $?; read -t 1. x; echo $?; read -t1.123456789012 x; echo $?",
        "1\n1\n1\n",
        "",
        0,
    ),
    ("read -t 00000000000000000000000001 x; echo $?", "1\n", "", 0),
]


@pytest.mark.parametrize(
    ("script", "out", "err", "status"), TYPESET_BASES, ids=[c[0][:50] for c in TYPESET_BASES]
)
def test_typeset_integer_bases_behave_as_under_mksh(
    tmp_path: Path, script: str, out: str, err: str, status: int
) -> None:
    result = run(make_userland(tmp_path), script)
    assert (result.out, result.err, result.status) == (out, err, status)


@pytest.mark.parametrize(
    ("script", "out", "err", "status"), READ_TIMEOUTS, ids=[c[0][:50] for c in READ_TIMEOUTS]
)
def test_read_timeouts_are_read_as_mksh_reads_them(
    tmp_path: Path, script: str, out: str, err: str, status: int
) -> None:
    result = run(make_userland(tmp_path), script)
    assert (result.out, result.err, result.status) == (out, err, status)
