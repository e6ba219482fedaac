"""Toybox commands of the simulated device: formats and exit codes as toybox prints them."""

from __future__ import annotations

import hashlib
import re
import time
from pathlib import Path

import pytest

from adbwire.testing.userland import Userland
from tests.simulator.userland_harness import make_userland, run

TMP = "/data/local/tmp"


@pytest.fixture
def userland(tmp_path: Path) -> Userland:
    return make_userland(tmp_path / "device")


# -- checksums ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "algorithm"),
    [("md5sum", "md5"), ("sha1sum", "sha1"), ("sha256sum", "sha256"), ("sha512sum", "sha512")],
)
def test_checksums_print_hash_two_spaces_and_name(
    userland: Userland, command: str, algorithm: str
) -> None:
    data = bytes(range(256)) * 300
    userland.device.files.write_bytes(f"{TMP}/blob", data)
    result = run(userland, f"{command} {TMP}/blob")
    assert result.status == 0
    assert result.out == f"{hashlib.new(algorithm, data).hexdigest()}  {TMP}/blob\n"


def test_md5sum_of_stdin_is_named_dash_and_brief_mode_drops_the_name(userland: Userland) -> None:
    digest = hashlib.md5(b"hi\n").hexdigest()
    assert run(userland, "echo hi | md5sum").out == f"{digest}  -\n"
    assert run(userland, "echo hi | md5sum -b").out == f"{digest}\n"


def test_md5sum_reports_a_missing_file_and_goes_on(userland: Userland) -> None:
    userland.device.files.write_bytes(f"{TMP}/a", b"a")
    result = run(userland, f"md5sum /nope {TMP}/a")
    assert result.status == 1
    assert result.err == "md5sum: /nope: No such file or directory\n"
    assert result.out == f"{hashlib.md5(b'a').hexdigest()}  {TMP}/a\n"


def test_md5sum_check_mode_says_ok_and_failed(userland: Userland) -> None:
    userland.device.files.write_bytes(f"{TMP}/a", b"a")
    good = hashlib.md5(b"a").hexdigest()
    ok = run(userland, f"echo '{good}  {TMP}/a' | md5sum -c")
    assert (ok.status, ok.out) == (0, f"{TMP}/a: OK\n")
    bad = run(userland, f"echo '{'0' * 32}  {TMP}/a' | md5sum -c")
    assert (bad.status, bad.out) == (1, f"{TMP}/a: FAILED\n")


# -- dd ----------------------------------------------------------------------------------------
_SUMMARY = re.compile(
    r"(\d+)\+(\d+) records in\n(\d+)\+(\d+) records out\n"
    r"(\d+) bytes \((\S+ \S)\) copied, \d+\.\d{6} s, \S+ \S/s\n"
)


def test_dd_from_dev_zero_writes_the_file_and_prints_toybox_summary(userland: Userland) -> None:
    result = run(userland, f"dd if=/dev/zero of={TMP}/z bs=1k count=3")
    assert result.status == 0
    match = _SUMMARY.fullmatch(result.err)
    assert match is not None, result.err
    assert match.groups()[:6] == ("3", "0", "3", "0", "3072", "3.0 K")
    assert userland.device.files.read_bytes(f"{TMP}/z") == bytes(3072)


def test_dd_counts_a_short_last_block_as_a_partial_record(userland: Userland) -> None:
    userland.device.files.write_bytes(f"{TMP}/src", b"x" * 1300)
    result = run(userland, f"dd if={TMP}/src of={TMP}/dst")
    match = _SUMMARY.fullmatch(result.err)
    assert match is not None, result.err
    assert match.groups()[:6] == ("2", "1", "2", "1", "1300", "1.2 K")
    assert userland.device.files.read_bytes(f"{TMP}/dst") == b"x" * 1300


def test_dd_skip_seek_count_and_status_none(userland: Userland) -> None:
    files = userland.device.files
    files.write_bytes(f"{TMP}/src", b"0123456789")
    files.write_bytes(f"{TMP}/dst", b"abcdefghij")
    result = run(
        userland,
        f"dd if={TMP}/src of={TMP}/dst bs=2 skip=1 seek=2 count=2 conv=notrunc status=none",
    )
    assert (result.status, result.err) == (0, "")
    assert files.read_bytes(f"{TMP}/dst") == b"abcd2345ij"
    to_stdout = run(userland, f"dd if={TMP}/src bs=3 skip=1 count=1 status=noxfer")
    assert to_stdout.out == "345"
    assert to_stdout.err == "1+0 records in\n1+0 records out\n"


def test_dd_missing_input_fails_without_a_summary(userland: Userland) -> None:
    result = run(userland, "dd if=/nope of=/data/local/tmp/x")
    assert (result.status, result.err) == (1, "dd: /nope: No such file or directory\n")


def test_dd_output_is_what_md5sum_of_the_file_says(userland: Userland) -> None:
    result = run(
        userland, f"dd if=/dev/urandom of={TMP}/r bs=4096 count=4 2>/dev/null; md5sum {TMP}/r"
    )
    data = userland.device.files.read_bytes(f"{TMP}/r")
    assert len(data) == 16384
    assert result.out == f"{hashlib.md5(data).hexdigest()}  {TMP}/r\n"


# -- chmod, ln, du, df, basename, dirname ------------------------------------------------------
@pytest.mark.parametrize(
    ("start", "spec", "expected"),
    [
        (0o644, "600", "600"),
        (0o644, "u+x", "744"),
        (0o644, "go-r", "600"),
        (0o600, "a+r", "644"),
        (0o777, "o=", "770"),
        (0o640, "g=u", "660"),
        (0o644, "u+x,g+w", "764"),
        (0o644, "+x", "755"),
    ],
)
def test_chmod_octal_and_symbolic(userland: Userland, start: int, spec: str, expected: str) -> None:
    userland.device.files.write_bytes(f"{TMP}/f", b"", start)
    result = run(userland, f"chmod {spec} {TMP}/f && stat -c %a {TMP}/f")
    assert (result.status, result.out) == (0, expected + "\n")


def test_chmod_errors(userland: Userland) -> None:
    userland.device.files.write_bytes(f"{TMP}/f", b"")
    bad = run(userland, f"chmod zz {TMP}/f")
    assert (bad.status, bad.err) == (1, "chmod: bad mode 'zz'\n")
    missing = run(userland, "chmod 644 /nope")
    assert (missing.status, missing.err) == (1, "chmod: /nope: No such file or directory\n")


def test_ln_s_makes_a_link_and_f_replaces_one(userland: Userland) -> None:
    userland.device.files.write_bytes(f"{TMP}/f", b"x")
    assert run(userland, f"ln -s {TMP}/f {TMP}/l && cat {TMP}/l").out == "x"
    again = run(userland, f"ln -s other {TMP}/l")
    assert again.status == 1
    assert "File exists" in again.err
    assert run(userland, f"ln -sf other {TMP}/l && readlink {TMP}/l").out == "other\n"
    listing = run(userland, f"ls -l {TMP}/l").out
    assert listing.startswith("lrwxrwxrwx") and listing.endswith(f"{TMP}/l -> other\n")


def test_du_counts_4k_blocks_in_kilobytes(userland: Userland) -> None:
    files = userland.device.files
    files.mkdir(f"{TMP}/d/e", parents=True)
    files.write_bytes(f"{TMP}/d/a", b"x" * 5000)
    files.write_bytes(f"{TMP}/d/e/b", b"x")
    assert run(userland, f"du {TMP}/d").out == f"8\t{TMP}/d/e\n20\t{TMP}/d\n"
    assert run(userland, f"du -s {TMP}/d").out == f"20\t{TMP}/d\n"


def test_df_lists_data_with_usage_from_the_file_tree(userland: Userland) -> None:
    result = run(userland, "df /data")
    header, row = result.out.splitlines()
    assert header.split() == [
        "Filesystem",
        "1K-blocks",
        "Used",
        "Available",
        "Use%",
        "Mounted",
        "on",
    ]
    fields = row.split()
    assert fields[0] == "/dev/block/dm-48" and fields[-1] == "/data"
    before = int(fields[2])
    userland.device.files.write_bytes(f"{TMP}/big", b"x" * (1 << 20))
    after = int(run(userland, "df /data").out.splitlines()[1].split()[2])
    assert after - before == 1024


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
    ],
)
def test_awk_subset(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out, result.err) == (0, expected, "")


def test_awk_syntax_error_exits_2(userland: Userland) -> None:
    result = run(userland, "echo a | awk '{print $'")
    assert result.status == 2
    assert result.err.startswith("awk: ")


# -- find and xargs ----------------------------------------------------------------------------
@pytest.fixture
def tree(userland: Userland) -> Userland:
    files = userland.device.files
    files.mkdir(f"{TMP}/d/e", parents=True)
    files.write_bytes(f"{TMP}/d/a.txt", b"a")
    files.write_bytes(f"{TMP}/d/e/b.txt", b"")
    files.write_bytes(f"{TMP}/d/c.log", b"c")
    return userland


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("", ["d", "d/a.txt", "d/c.log", "d/e", "d/e/b.txt"]),
        ("-name '*.txt'", ["d/a.txt", "d/e/b.txt"]),
        ("-type d", ["d", "d/e"]),
        ("-maxdepth 1 -type f", ["d/a.txt", "d/c.log"]),
        ("-mindepth 2", ["d/e/b.txt"]),
        ("! -name '*.txt' -type f", ["d/c.log"]),
        ("-name a.txt -o -name c.log", ["d/a.txt", "d/c.log"]),
        ("-type f -empty", ["d/e/b.txt"]),
        ("-iname 'A.TXT'", ["d/a.txt"]),
        ("-path '*/e/*'", ["d/e/b.txt"]),
    ],
)
def test_find_expressions(tree: Userland, expression: str, expected: list[str]) -> None:
    result = run(tree, f"cd {TMP} && find d {expression}")
    assert (result.status, result.out.splitlines()) == (0, expected)


def test_find_exec_one_at_a_time_and_batched(tree: Userland) -> None:
    single = run(tree, f"cd {TMP} && find d -name '*.txt' -exec echo X {{}} \\;")
    assert single.out == "X d/a.txt\nX d/e/b.txt\n"
    batched = run(tree, f"cd {TMP} && find d -name '*.txt' -exec echo Y {{}} +")
    assert batched.out == "Y d/a.txt d/e/b.txt\n"


def test_find_delete_removes_contents_before_directories(tree: Userland) -> None:
    result = run(tree, f"find {TMP}/d/e -delete; ls {TMP}/d")
    assert (result.status, result.out) == (0, "a.txt\nc.log\n")


def test_find_missing_path_reports_and_exits_1(tree: Userland) -> None:
    result = run(tree, f"find /nope {TMP}/d/e")
    assert result.status == 1
    assert result.err == "find: /nope: No such file or directory\n"
    assert result.out == f"{TMP}/d/e\n{TMP}/d/e/b.txt\n"


def test_find_bad_primary_fails(tree: Userland) -> None:
    result = run(tree, f"find {TMP} -bogus")
    assert result.status == 1
    assert result.err.startswith("find: ")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo a b c | xargs echo X", "X a b c\n"),
        ("echo a b c | xargs -n 1 echo", "a\nb\nc\n"),
        ("printf 'a b\\0c\\0' | xargs -0 echo", "a b c\n"),
        ("printf '1\\n2\\n' | xargs -I{} echo [{}]", "[1]\n[2]\n"),
        ("echo a b | xargs", "a b\n"),
    ],
)
def test_xargs(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out) == (0, expected)


def test_xargs_passes_failures_on_as_123(userland: Userland) -> None:
    assert run(userland, "echo x | xargs false").status == 123
    assert run(userland, "echo x | xargs no-such-command").status == 127


def test_find_piped_into_xargs_rm(tree: Userland) -> None:
    result = run(tree, f"find {TMP}/d -name '*.txt' | xargs rm; find {TMP}/d -type f")
    assert result.out == f"{TMP}/d/c.log\n"


# -- tty, uptime, toybox -----------------------------------------------------------------------
def test_tty_without_a_pty(userland: Userland) -> None:
    result = run(userland, "tty; echo $?; [ -t 0 ]; echo $?; test -t 1; echo $?")
    assert result.out == "not a tty\n1\n1\n1\n"


def test_tty_with_a_pty(userland: Userland) -> None:
    from adbwire.testing.userland import BufferIO  # noqa: PLC0415

    io = BufferIO()
    status = userland.run("tty; [ -t 0 ]; echo $?", io, pty=True)
    assert status == 0
    assert bytes(io.stdout) == b"/dev/pts/0\n0\n"


def test_uptime_formats(userland: Userland) -> None:
    line = run(userland, "uptime").out
    assert re.fullmatch(
        r" \d\d:\d\d:\d\d up (\d+ days?, )?(\s?\d+:\d\d|\d+ min),  0 users,  "
        r"load average: \d\.\d\d, \d\.\d\d, \d\.\d\d\n",
        line,
    ), line
    assert run(userland, "uptime -p").out.startswith("up ")


def test_toybox_runs_the_new_applets(userland: Userland) -> None:
    listing = run(userland, "toybox").out.split()
    for applet in ("md5sum", "dd", "sed", "awk", "find", "xargs", "cut", "tr", "chmod", "ln"):
        assert applet in listing
    assert run(userland, "echo abc | toybox md5sum").out.startswith(
        hashlib.md5(b"abc\n").hexdigest()
    )


# -- small utilities ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("seq 3", "1\n2\n3\n"),
        ("seq 2 4", "2\n3\n4\n"),
        ("seq 1 3 7", "1\n4\n7\n"),
        ("seq 3 -1 1", "3\n2\n1\n"),
        ("seq -s, 3", "1,2,3\n"),
        ("which ls md5sum", "/system/bin/ls\n/system/bin/md5sum\n"),
        ("command -v sed cd", "/system/bin/sed\ncd\n"),
        ("printf 'a\\na\\nb\\na\\n' | uniq", "a\nb\na\n"),
        ("printf 'a\\na\\nb\\n' | uniq -c", "      2 a\n      1 b\n"),
        ("printf 'a\\na\\nb\\n' | uniq -d", "a\n"),
        ("echo abc | base64", "YWJjCg==\n"),
        ("echo YWJjCg== | base64 -d", "abc\n"),
        ("yes | head -n 2", "y\ny\n"),
        ("nproc", "4\n"),
        ("getenforce", "Enforcing\n"),
    ],
)
def test_small_utilities(userland: Userland, command: str, expected: str) -> None:
    result = run(userland, command)
    assert (result.status, result.out) == (0, expected)


def test_which_and_command_v_fail_for_unknown_names(userland: Userland) -> None:
    assert run(userland, "which nope").status == 1
    assert run(userland, "command -v nope").status == 1


def test_tee_writes_the_file_and_stdout(userland: Userland) -> None:
    result = run(userland, f"echo hi | tee {TMP}/t && echo again | tee -a {TMP}/t >/dev/null")
    assert result.out == "hi\n"
    assert userland.device.files.read_bytes(f"{TMP}/t") == b"hi\nagain\n"


def test_mktemp_makes_a_private_file_under_tmpdir(userland: Userland) -> None:
    name = run(userland, "mktemp").out.strip()
    assert re.fullmatch(rf"{TMP}/tmp\.[A-Za-z0-9]{{10}}", name), name
    assert run(userland, f"stat -c '%a %U' {name}").out == "600 shell\n"
    directory = run(userland, f"mktemp -d {TMP}/dirXXXX").out.strip()
    assert run(userland, f"[ -d {directory} ] && echo dir").out == "dir\n"


def test_cmp_and_truncate(userland: Userland) -> None:
    files = userland.device.files
    files.write_bytes(f"{TMP}/a", b"abc\nxyz")
    files.write_bytes(f"{TMP}/b", b"abc\nxyq")
    differ = run(userland, f"cmp {TMP}/a {TMP}/b")
    assert (differ.status, differ.out) == (1, f"{TMP}/a {TMP}/b differ: char 7, line 2\n")
    assert run(userland, f"cmp {TMP}/a {TMP}/a").status == 0
    assert run(userland, f"truncate -s 3 {TMP}/a && cmp -s {TMP}/a {TMP}/b").status == 1
    assert files.read_bytes(f"{TMP}/a") == b"abc"
    assert run(userland, f"truncate -s 5 {TMP}/a").status == 0
    assert files.read_bytes(f"{TMP}/a") == b"abc\0\0"


def test_timeout_cuts_a_command_short_with_124(userland: Userland) -> None:
    started = time.monotonic()
    assert run(userland, "timeout 0.2 sleep 30; echo $?").out == "124\n"
    assert time.monotonic() - started < 20
    assert run(userland, "timeout 10 sh -c 'exit 3'; echo $?").out == "3\n"
