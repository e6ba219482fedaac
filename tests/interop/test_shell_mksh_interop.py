"""Google's adb against the simulated shell's mksh extras: aliases (from the next line on),
arrays, typeset attributes, readonly's status 2, umask, select reading adb's stdin, time's
report on stderr and $-. Expected texts are mksh R59's (with Android's `U` and umask 000)."""

from __future__ import annotations

import subprocess

import pytest

from adbwire.testing import SimulatedDevice
from tests.interop.adb_oracle import ADB, AdbOracle

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


ALIASES = """\
alias ll='ls -d' e='echo '
ll /data/local/tmp; e e x
alias e; type ll
unalias ll
ll 2>/dev/null || echo "gone $?"
"""
ARRAYS = """\
set -A files one "two words" three
echo ${#files[@]} ${files[1]}; for f in "${files[@]}"; do echo "<$f>"; done
sizes=(10 20); sizes+=(30); sizes[5]=60; echo ${!sizes[@]} ${sizes[*]}
unset sizes[1]; echo ${#sizes[@]}
false | true; echo ${PIPESTATUS[@]}; (( n = sizes[2] * 2 )); echo $n
"""
TYPESET = """\
typeset -i total=0; for n in 1 2 3; do total=total+n; done; echo $total
typeset -u shout=quiet; typeset -Z4 id=7; typeset -L3 cut=abcdef; echo $shout $id "[$cut]"
typeset -p shout id
umask; umask 022; umask; umask -S
echo $-
"""


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # `e e x`: an alias ending in a blank makes the next word an alias too
        (ALIASES, "/data/local/tmp\necho x\ne='echo '\nll is an alias for 'ls -d'\ngone 127\n"),
        (ARRAYS, "3 two words\n<one>\n<two words>\n<three>\n0 1 2 5 10 20 30 60\n3\n1 0\n60\n"),
        (
            TYPESET,
            "6\nQUIET 0007 [abc]\ntypeset -u shout=QUIET\ntypeset -R4 -Z id=0007\n"
            "000\n022\nu=rwx,g=rx,o=rx\nhUc\n",
        ),
    ],
    ids=["aliases", "arrays", "typeset-umask-flags"],
)
def test_mksh_extras_print_what_mksh_prints(
    adb: AdbOracle, device: SimulatedDevice, script: str, expected: str
) -> None:
    done = adb.run("-s", device.serial, "shell", script)
    assert (done.stdout.decode(), done.stderr.decode(), done.returncode) == (expected, "", 0)


def test_a_readonly_assignment_ends_the_script_with_status_2(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    done = adb.run("-s", device.serial, "shell", "readonly v=1; echo set; v=2; echo never")
    assert (done.stdout, done.stderr, done.returncode) == (
        b"set\n",
        b"/system/bin/sh: read-only: v\n",
        2,
    )


def test_select_reads_adbs_stdin_and_time_reports_on_stderr(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    script = 'select pick in red green; do echo "picked $pick ($REPLY)"; done; echo "end $?"'
    done = adb.run("-s", device.serial, "shell", script, input=b"2\n7\n")
    assert done.stdout.decode() == "picked green (2)\npicked  (7)\nend 1\n"
    assert done.stderr.decode() == "1) red\n2) green\n#? #? #? "
    timed = adb.run("-s", device.serial, "shell", "time -p sleep 0.2; echo $?")
    assert timed.stdout == b"0\n"
    lines = timed.stderr.decode().splitlines()
    assert [line.split()[0] for line in lines] == ["real", "user", "sys"]
    assert float(lines[0].split()[1]) >= 0.2


def test_read_t_gives_up_while_adbs_stdin_stays_open_and_quiet(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    script = 'read -t 1 line; echo "$? [$line]"'
    process = subprocess.Popen(
        [str(ADB), "-s", device.serial, "shell", script],
        env=adb.env,
        stdin=subprocess.PIPE,  # open, and nothing written: only the time limit ends it
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.wait(timeout=60) == 0
        assert process.stdout is not None
        assert process.stdout.read() == b"142 []\n"
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
