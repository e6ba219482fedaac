"""The simulated /system/bin/sh: quoting, expansion, control flow and redirections.

Tokenising is checked against the host's own POSIX shell as an oracle: the same command
line must give the same argv in both. Injection tests prove that a quoted argument never
runs a second command while the unquoted form would (the side effect is a file created).
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from adbwire.shell_syntax.lexer import ShellSyntaxError
from adbwire.shell_syntax.parser import parse
from adbwire.testing.userland import BufferIO, Userland
from tests.simulator.userland_harness import make_userland, run

ARGV_CASES = [
    "a b   c",
    "'single quoted  $HOME' \"double $HOME\"",
    r"back\ slash\;semi \"q\" \\x",
    "\"nested 'single' in double\" 'and \"double\" in single'",
    r'"escapes \$ \` \" \\ \a kept"',
    "pre'fix'\"mid\"suf",
    "'' \"\" empty-args",
    "$NOPE_UNSET x$NOPE_UNSET y",
    "${HOME} ${NOPE_UNSET:-fallback} ${#HOME}",
    '"$(printf "%s" "in sub")" $(printf "%s" "split me")',
    "`printf '%s' back tick`",
    "a#not-comment # a comment",
    '"multi\nline"',
    "tab\\\tsep 'glob * ? [x]'",
    '$((1+2*3)) $(( (7-2) % 3 )) $((-7/2)) $((-7%2)) $((0x10)) x$((3>2))y "$((4 <= 2))"',
]
_HOST_SH = shutil.which("sh")


def _argv_via_userland(userland: Userland, line: str) -> str:
    return run(userland, f"printf '[%s]\\n' {line}").out


@pytest.mark.skipif(_HOST_SH is None, reason="no host POSIX shell to use as an oracle")
@pytest.mark.parametrize("line", ARGV_CASES)
def test_words_split_exactly_as_a_posix_shell_splits_them(tmp_path: Path, line: str) -> None:
    userland = make_userland(tmp_path)
    assert _HOST_SH is not None
    expected = subprocess.run(
        [_HOST_SH, "-c", f"HOME=/; printf '[%s]\\n' {line}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=10,
        cwd=tmp_path,
    ).stdout
    assert _argv_via_userland(userland, line) == expected


NASTY = [
    "; touch /sdcard/pwned",
    "&& touch /sdcard/pwned",
    "| touch /sdcard/pwned",
    "$(touch /sdcard/pwned)",
    "`touch /sdcard/pwned`",
    "' ; touch /sdcard/pwned ; '",
    '" ; touch /sdcard/pwned ; "',
    "\n touch /sdcard/pwned",
    "> /sdcard/pwned",
    "$(touch /sdcard/pwned)'$(touch /sdcard/pwned)'\\",
]


@pytest.mark.parametrize("payload", NASTY)
def test_a_quoted_argument_never_runs_a_second_command(tmp_path: Path, payload: str) -> None:
    userland = make_userland(tmp_path)
    result = run(userland, f"echo {shlex.quote(payload)}")
    assert result.status == 0
    assert result.out == payload + "\n"
    assert run(userland, "ls /sdcard/pwned").status == 1


@pytest.mark.parametrize("payload", [p for p in NASTY if not set(p) & set("'\\\"")])
def test_the_same_payload_unquoted_does_run_the_second_command(
    tmp_path: Path, payload: str
) -> None:
    userland = make_userland(tmp_path)
    run(userland, f"echo {payload}")
    assert run(userland, "ls /sdcard/pwned").status == 0


def test_command_substitution_is_evaluated_and_split(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    assert run(userland, "printf '<%s>' $(echo a b) \"$(echo a b)\"").out == "<a><b><a b>"
    assert run(userland, "echo $(echo $(echo nested))").out == "nested\n"
    assert run(userland, 'x=$(id -u); echo "uid=$x"').out == "uid=2000\n"


@pytest.mark.parametrize(
    ("line", "out", "status"),
    [
        ("true && echo yes || echo no", "yes\n", 0),
        ("false && echo yes || echo no", "no\n", 0),
        ("false; echo $?", "1\n", 0),
        ("! false", "", 0),
        ("exit 3", "", 3),
        ("exit 300", "", 44),
        ("echo a; exit 2; echo b", "a\n", 2),
        ("(exit 4); echo $?", "4\n", 0),
        ("{ echo a; echo b; } | wc -l", "2\n", 0),
        ("for i in 1 2 3; do echo $i; done", "1\n2\n3\n", 0),
        ("if false; then echo a; elif true; then echo b; else echo c; fi", "b\n", 0),
        ("n=0; while [ $n -lt 3 ]; do echo $n; n=$(echo 3); done", "0\n", 0),
        ("sh -c 'echo $0-$1' zero one", "zero-one\n", 0),  # mksh: NAME is $0
        ("sh -c 'exit 7'", "", 7),
        ("X=1 sh -c 'echo $X'; echo \"[$X]\"", "1\n[]\n", 0),
        ("cd /sdcard && pwd", "/sdcard\n", 0),
        ("echo -n no-newline", "no-newline", 0),
        ("echo 'a\\tb\\nc'", "a\tb\nc\n", 0),
        ("printf '%s=%d\\n' a 1 b 2", "a=1\nb=2\n", 0),
        ("[ abc = abc ] && test -n x && echo ok", "ok\n", 0),
    ],
)
def test_control_flow(tmp_path: Path, line: str, out: str, status: int) -> None:
    result = run(make_userland(tmp_path), line)
    assert (result.out, result.status) == (out, status), result.err


def test_unknown_command_answers_like_android(tmp_path: Path) -> None:
    result = run(make_userland(tmp_path), "frobnicate --now")
    assert result.status == 127
    assert result.err == "/system/bin/sh: frobnicate: inaccessible or not found\n"
    assert run(make_userland(tmp_path), "/system/bin/getprop ro.build.version.sdk").out == "34\n"


def test_redirections(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    assert run(userland, "echo one > /sdcard/f; echo two >> /sdcard/f").status == 0
    assert run(userland, "cat < /sdcard/f").out == "one\ntwo\n"
    merged = run(userland, "ls /nope 2>&1")
    assert merged.out == "ls: /nope: No such file or directory\n"
    assert merged.err == ""
    quiet = run(userland, "ls /nope 2>/dev/null; echo $?")
    assert (quiet.out, quiet.err) == ("1\n", "")
    assert run(userland, "echo to-err >&2").err == "to-err\n"
    assert run(userland, "cat /dev/null | wc -c").out == "0\n"


def test_redirection_into_a_read_only_place_fails_like_mksh(tmp_path: Path) -> None:
    result = run(make_userland(tmp_path), "echo x > /system/x; echo after")
    assert result.err == "/system/bin/sh: can't create /system/x: Read-only file system\n"
    assert result.out == "after\n"


def test_glob_matches_device_files(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    run(userland, "echo > /sdcard/Download/a.txt; echo > /sdcard/Download/b.log")
    assert run(userland, "echo /sdcard/Download/*.txt").out == (
        "/sdcard/Download/a.txt /sdcard/Download/groceries.txt\n"
    )
    assert run(userland, "echo '/sdcard/Download/*.txt'").out == "/sdcard/Download/*.txt\n"
    assert run(userland, "echo /sdcard/nothing*").out == "/sdcard/nothing*\n"


@pytest.mark.parametrize("bad", ["echo 'open", "echo )", "if true; then echo", "| x", "a &&"])
def test_syntax_errors(bad: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(bad)


def test_stdin_reaches_commands(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    assert run(userland, "cat", stdin=b"from stdin").out == "from stdin"
    assert run(userland, "cat > /sdcard/in.bin", stdin=b"\x00\x01\xff").status == 0
    assert run(userland, "cat /sdcard/in.bin").raw == b"\x00\x01\xff"
    assert run(userland, "read a b; echo $b", stdin=b"x y z\n").out == "y z\n"


def test_an_empty_command_line_is_an_interactive_shell(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    result = run(userland, "", stdin=b"echo one\nif true; then\necho two\nfi\nexit 5\necho no\n")
    assert (result.out, result.status) == ("one\ntwo\n", 5)


def test_interactive_pty_prompts_and_echoes(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    io = BufferIO(b"id -u\r")
    status = userland.run("", io, pty=True)
    assert status == 0
    assert bytes(io.stdout) == b"emu64xa:/ $ id -u\n2000\nemu64xa:/ $ "


def test_sleep_returns_promptly_when_the_client_goes_away(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    io = BufferIO()
    done = threading.Event()
    statuses: list[int] = []

    def target() -> None:
        statuses.append(userland.run("sleep 30; echo late", io))
        done.set()

    thread = threading.Thread(target=target)
    started = time.monotonic()
    thread.start()
    io.cancel()
    assert done.wait(5)
    thread.join(5)
    assert time.monotonic() - started < 5
    assert statuses == [0]
    assert bytes(io.stdout) == b""


def test_sleep_sleeps(tmp_path: Path) -> None:
    started = time.monotonic()
    assert run(make_userland(tmp_path), "sleep 0.2").status == 0
    assert time.monotonic() - started >= 0.19


def test_three_hundred_echos_are_cheap(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    started = time.process_time()  # CPU, not wall time: a loaded machine stretches the latter
    for index in range(300):
        assert run(userland, f"echo {index}").out == f"{index}\n"
    assert time.process_time() - started < 1.0


def test_a_repeated_command_line_runs_afresh_each_time(tmp_path: Path) -> None:
    """Parsed command lines are reused; nothing a run does may stick to the parsed script."""
    userland = make_userland(tmp_path)
    line = 'for f in /data/local/tmp/*; do echo "$f"; done; X=$((X + 1)); echo "x=$X"'
    assert run(userland, line).out == "/data/local/tmp/*\nx=1\n"
    run(userland, "touch /data/local/tmp/a /data/local/tmp/b")
    second = run(userland, line)
    assert second.out == "/data/local/tmp/a\n/data/local/tmp/b\nx=1\n"
    broken = "echo 'unterminated"
    assert run(userland, broken).status != 0
    assert run(userland, broken).status != 0, "a syntax error is reported every time"


def test_ppid_names_the_parent_process(tmp_path: Path) -> None:
    """mksh sets $PPID at start-up: a child shell's is the parent shell's $$."""
    userland = make_userland(tmp_path)
    child, parent = run(userland, "sh -c 'echo $PPID'; echo $$").out.split()
    assert child == parent
    assert run(userland, "echo $PPID").out.strip().isdigit()


@pytest.mark.parametrize(
    ("command", "out", "err", "status"),
    [
        ("set -e; false; echo no", "", "", 1),
        ("set -e; false || true; echo yes", "yes\n", "", 0),
        ("set -e; false && true; echo yes", "yes\n", "", 0),
        ("set -e; if false; then :; fi; echo yes", "yes\n", "", 0),
        ("set -e; while false; do :; done; echo yes", "yes\n", "", 0),
        ("set -e; ! true; echo yes", "yes\n", "", 0),
        ("set -e; (false); echo no", "", "", 1),
        ("set -e; set +e; false; echo yes", "yes\n", "", 0),
        ('set -x; echo "a b" c', "a b c\n", "+ echo 'a b' c\n", 0),
        ("set -- a b; echo $2 $#", "b 2\n", "", 0),
        ("set x y z; echo $3", "z\n", "", 0),
        ("set -o pipefail; false | true; echo $?", "1\n", "", 0),
        ("set -eo pipefail; false | true; echo no", "", "", 1),
        ("set -u; echo $nope; echo no", "", "/system/bin/sh: nope: parameter not set\n", 1),
        (
            "set -u; echo ${nope:-d} $#; (echo $nope); echo $?",
            "d 0\n1\n",
            "/system/bin/sh: nope: parameter not set\n",
            0,
        ),
        ("set -u; set +u; echo $nope ok", "ok\n", "", 0),
        ("set -o pipefail -e; false; echo no", "", "", 1),
        ("set -o pipefail; (exit 2) | (exit 3) | true; echo $?", "3\n", "", 0),
        ("set -eo pipefail; set +o pipefail; false | true; echo $?", "0\n", "", 0),
        ("false | true; echo $?", "0\n", "", 0),
        ("set -q", "", "/system/bin/sh: set: -q: unknown option\n", 2),
    ],
)
def test_set_options_and_parameters(
    tmp_path: Path, command: str, out: str, err: str, status: int
) -> None:
    """mksh's `set`: errexit (not in conditions, && / || lists but their last command, or
    after `!`), nounset, xtrace with PS4 `+ `, pipefail, and the positional parameters."""
    result = run(make_userland(tmp_path), command)
    assert (result.out, result.err, result.status) == (out, err, status)
