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


# -- chmod, ln, du, df -------------------------------------------------------------------------
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
