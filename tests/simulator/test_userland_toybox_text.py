"""Text tools of the simulated device: basename, dirname, cut, tr, sed and awk, as toybox."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


# -- basename, dirname -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("basename /a/b/c.txt", "c.txt"),
        ("basename /a/b/c.txt .txt", "c"),
        ("basename /a/b/", "b"),
        ("basename /", "/"),
        ("dirname /a/b/c", "/a/b"),
        ("dirname c", "."),
        ("dirname /a", "/"),
        ("dirname a/b/", "a"),
    ],
)
def test_basename_and_dirname(userland: Userland, command: str, expected: str) -> None:
    assert run(userland, command).out == expected + "\n"


# -- cut, tr, sed, awk -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("printf 'a:b:c\\nd:e:f\\n' | cut -d: -f2", "b\ne\n"),
        ("printf 'a:b:c\\n' | cut -d: -f1,3", "a:c\n"),
        ("printf 'a:b:c\\n' | cut -d: -f2-", "b:c\n"),
        ("printf 'abcdef\\n' | cut -c2-4", "bcd\n"),
        ("printf 'nodelim\\n' | cut -d: -f2", "nodelim\n"),
        ("printf 'nodelim\\n' | cut -s -d: -f2", ""),
        ("echo hello | tr a-z A-Z", "HELLO\n"),
        ("echo hello | tr '[:lower:]' '[:upper:]'", "HELLO\n"),
        ("echo 'a  b   c' | tr -s ' '", "a b c\n"),
        ("echo abcabc | tr -d b", "acac\n"),
        ("printf 'a\\nb\\n' | tr '\\n' ,", "a,b,"),
    ],
)
def test_cut_and_tr(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out) == (0, expected)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("printf 'one\\ntwo\\n' | sed 's/o/0/g'", "0ne\ntw0\n"),
        ("printf 'one\\ntwo\\n' | sed 's/o/0/'", "0ne\ntw0\n"),
        ("printf 'aaa\\n' | sed 's/a/b/2'", "aba\n"),
        ("printf 'one\\ntwo\\nthree\\n' | sed -n 2p", "two\n"),
        ("printf 'one\\ntwo\\nthree\\n' | sed -n '$p'", "three\n"),
        ("printf 'a\\nb\\nc\\n' | sed /b/d", "a\nc\n"),
        ("printf 'a\\nb\\nc\\nd\\n' | sed 2,3d", "a\nd\n"),
        ("printf 'a\\nb\\nc\\n' | sed '2!d'", "b\n"),
        ("printf 'ab\\n' | sed 's/\\(a\\)\\(b\\)/\\2\\1/'", "ba\n"),
        ("printf 'ab\\n' | sed -E 's/(a)(b)/\\2-\\1/'", "b-a\n"),
        ("printf 'a\\n' | sed 's/a/[&]/'", "[a]\n"),
        ("printf 'x\\n' | sed -e s/x/y/ -e s/y/z/", "z\n"),
        ("printf 'x\\n' | sed 's/x/y/;s/y/z/'", "z\n"),
        ("printf 'a+b\\n' | sed 's/a+b/ok/'", "ok\n"),
        ("printf 'a\\nb\\nc\\n' | sed 2q", "a\nb\n"),
        ("printf 'a/b\\n' | sed 's|/|_|'", "a_b\n"),
        ("printf 'abc\\n' | sed y/abc/xyz/", "xyz\n"),
        ("printf 'k=1\\n' | sed -n 's/k=//p'", "1\n"),
    ],
)
def test_sed_subset(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out, result.err) == (0, expected, "")


def test_sed_in_place_keeps_the_mode_and_can_keep_a_backup(userland: Userland) -> None:
    files = userland.device.files
    files.write_bytes(f"{TMP}/conf", b"key=old\n", 0o600)
    assert run(userland, f"sed -i.bak 's/old/new/' {TMP}/conf").status == 0
    assert files.read_bytes(f"{TMP}/conf") == b"key=new\n"
    assert files.read_bytes(f"{TMP}/conf.bak") == b"key=old\n"
    assert files.stat(f"{TMP}/conf").mode & 0o777 == 0o600


def test_sed_bad_command_fails(userland: Userland) -> None:
    result = run(userland, "echo a | sed 'k'")
    assert result.status == 1
    assert result.err.startswith("sed: ")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("printf 'a b c\\nd e f\\n' | awk '{print $2}'", "b\ne\n"),
        ("printf 'a:b\\n' | awk -F: '{print $2, $1}'", "b a\n"),
        ("printf 'a\\tb c\\n' | awk -F'\\t' '{print $2}'", "b c\n"),
        ("printf 'x\\ny\\nz\\n' | awk 'NR==2'", "y\n"),
        ("printf 'x\\ny\\nz\\n' | awk 'NR>1 {print NR\": \"$0}'", "2: y\n3: z\n"),
        ("printf '1\\n2\\n3\\n' | awk '{s += $1} END {print s}'", "6\n"),
        ("printf 'a b c\\n' | awk '{print NF, $NF, $(NF-1)}'", "3 c b\n"),
        ("printf 'foo 1\\nbar 2\\n' | awk '/bar/ {print $2}'", "2\n"),
        ("printf 'foo 1\\nbar 2\\n' | awk '$1 ~ /^f/'", "foo 1\n"),
        ("printf 'a\\n' | awk '{printf \"%s-%d\\n\", $1, 5}'", "a-5\n"),
        ('awk \'BEGIN {print 1+2*3, "x" "y", 7/2}\'', "7 xy 3.5\n"),
        ("printf '10\\n2\\n' | awk '$1 > 5'", "10\n"),
        ('echo 5 | awk \'{ if ($1 > 3) print "big"; else print "small" }\'', "big\n"),
        ("printf 'a\\nb\\n' | awk -v p=x '{print p $0}'", "xa\nxb\n"),
        ("echo Hello | awk '{print toupper($1), length($1), substr($1, 2, 3)}'", "HELLO 5 ell\n"),
        ("printf 'a\\nb\\nc\\n' | awk 'NR==1 {next} {print}'", "b\nc\n"),
        ("echo 12 3 | awk '{print $1/$2/2}'", "2\n"),  # a slash after a value divides
    ],
)
def test_awk_subset(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out, result.err) == (0, expected, "")


def test_awk_syntax_error_exits_2(userland: Userland) -> None:
    result = run(userland, "echo a | awk '{print $'")
    assert result.status == 2
    assert result.err.startswith("awk: ")
