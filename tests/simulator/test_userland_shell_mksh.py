"""The simulated mksh's aliases, arrays, typeset attributes, readonly, umask, select, time,
$- and read -t, and the files `exec >FILE` opens in an interactive session.

Expected outputs, errors and statuses come from mksh R59 (`mksh -c SCRIPT`, Debian's
package, the release Android 14 ships as /system/bin/sh), with its `mksh: ` prefix written
as the device's `/system/bin/sh: ` and Debian's `E: `/`W: ` message tags dropped. Two
things differ on a device, and are the device's here: Android's mksh assumes UTF-8 (`U` in
`$-`), and adbd starts the shell with umask 000.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest

from adbwire.testing.userland import BufferIO
from tests.simulator.userland_harness import make_userland, run

ALIASES = [
    ("alias x='echo hi'; x", "", "/system/bin/sh: x: inaccessible or not found\n", 127),
    ("alias x='echo hi'\nx", "hi\n", "", 0),
    (
        "alias ll='ls -l' e='echo ' w=world; alias ll e\ne w; e x w\n"
        "alias rec='rec2 a' rec2='rec b'\nrec\n"
        'unalias -a; alias; echo n=$?; alias 1bad=x; echo $?; alias "a b=c"; echo $?',
        "ll='ls -l'\ne='echo '\nworld\nx w\nn=0\n0\n1\n",
        "/system/bin/sh: rec: inaccessible or not found\n"
        "/system/bin/sh: alias: a b: invalid alias name\n",
        0,
    ),
    (
        "alias x='echo one'\nf() { x; }\nalias x='echo two'\nf; x\n\\x; \"x\"",
        "one\ntwo\n",
        "/system/bin/sh: x: inaccessible or not found\n" * 2,
        127,
    ),
    (
        "alias e=echo\nif true; then e in-if; fi; e a | e b; ( e sub ); e $(e subst); "
        "x=1 e assign; for i in 1; do e loop; done",
        "in-if\nb\nsub\nsubst\nassign\nloop\n",
        "",
        0,
    ),
    (
        "alias z='\\echo hi' q='a\\b'\nalias z q; type z\nz\nalias y; echo $?; unalias y; echo $?",
        "z='\\echo hi'\nq='a\\b'\nz is an alias for '\\echo hi'\nhi\ny alias not found\n1\n1\n",
        "",
        0,
    ),
    (
        "type local type nohup; command -v local; command -V nohup; whence cd local",
        "local is an alias for '\\\\builtin typeset'\ntype is an alias for '\\\\builtin whence"
        " -v'\nnohup is an alias for 'nohup '\nalias local='\\\\builtin typeset'\nnohup is an "
        "alias for 'nohup '\ncd\n'\\\\builtin typeset'\n",
        "",
        0,
    ),
    ("integer n=4*4; echo $n", "16\n", "", 0),
    ("alias -z; echo $?", "1\n", "/system/bin/sh: alias: -z: unknown option\n", 0),
    (  # tracked aliases: commands found by name (not built-ins, not a subshell's)
        "ls >/dev/null; echo x >/dev/null; alias -t; (id >/dev/null); hash; alias -t cat; "
        "hash | head -1",
        "ls=/system/bin/ls\nls=/system/bin/ls\ncat=/system/bin/cat\n",
        "",
        0,
    ),
]

ARRAYS = [
    (
        'set -A a x y "z w"; echo ${a[0]} ${a[2]} ${#a[@]} ${#a[*]} "${a[@]}"; for i in '
        '"${a[@]}"; do echo "<$i>"; done; echo ${a}; echo ${!a[@]}; a[5]=five; echo '
        '${#a[@]} ${!a[*]}; echo "${a[*]}"; echo ${#a[2]}',
        "x z w 3 3 x y z w\n<x>\n<y>\n<z w>\nx\n0 1 2\n4 0 1 2 5\nx y z w five\n3\n",
        "",
        0,
    ),
    (
        "x[1]=a; x[3]=c; echo ${x[@]}; echo ${x[1+2]}; i=1; echo ${x[i]} ${x[$i]}; set +A x"
        " q; echo ${x[@]}; set -A x q; echo ${x[@]}; unset x[1]; echo ${x[@]}; echo ${#x[@]}",
        "a c\nc\na a\nq a c\nq\nq\n1\n",
        "",
        0,
    ),
    (
        'x=(1 2 3); echo ${x[1]}; x+=(4 "5 6"); echo ${#x[@]} "${x[4]}"; y=(\na\nb); '
        "echo ${y[@]}; z=(); echo ${#z[@]}",
        "2\n5 5 6\na b\n0\n",
        "",
        0,
    ),
    (
        "set -A b 1 2 3 4; echo ${b[9]}x; b[1]+=x; echo ${b[1]}; echo ${b[2]:-d} ${b[7]:-d} "
        "${#b[1]}; unset b; echo ${#b[@]}",
        "x\n2x\n3 d 2\n0\n",
        "",
        0,
    ),
    (
        "a=(p q r); unset a[1]; echo ${!a[@]} ${#a[@]}; f() { typeset -i a=7; echo $a; }; "
        "f; echo ${a[@]}",
        "0 2 2\n7\np r\n",
        "",
        0,
    ),
    ("i=2; b[i*2]=x; echo ${!b[@]}", "4\n", "", 0),
    (  # only the -, + and ? forms take a whole array
        'set -A a z y zz; echo "${a[@]:-d}" "${a[@]+set}" ${a[1]#z} ${b[@]:-none}; '
        'echo "${a[@]/z/q}"; echo no',
        "z y zz set y none\n",
        "/system/bin/sh: ${a[@]/z/q}: bad substitution\n",
        1,
    ),
    (
        'a=(5 6); echo $((a[1]+1)); i=0; (( a[i] += 2 )); echo ${a[0]}; let "a[1]=9"; echo ${a[@]}',
        "7\n7\n7 9\n",
        "",
        0,
    ),
    (
        "((x=1+2)); echo $x $?; (( 0 )); echo $?; i=0; while (( i < 3 )); do (( i++ )); "
        "done; echo $i; ((cd /; echo in); pwd); ((1/0)); echo after $?",
        "3 0\n1\n3\nin\n/\nafter 2\n",
        "/system/bin/sh: 1/0: zero divisor\n",
        0,
    ),
    ("set -A; echo $?", "", "/system/bin/sh: set: -A: requires an argument\n", 1),
    (
        "false | true; echo ${PIPESTATUS[@]}; true; echo ${PIPESTATUS[@]} ${#PIPESTATUS[@]}; "
        "(exit 3) | (exit 4) | true; echo ${PIPESTATUS[*]}; ! false; echo ${PIPESTATUS[0]}; "
        "x=$(false); echo ${PIPESTATUS[@]}; PIPESTATUS=5; echo $?",
        "1 0\n0 1\n3 4 0\n0\n1\n",
        "/system/bin/sh: read-only: PIPESTATUS\n",
        2,
    ),
    ("set -A a; echo ${#a[@]}; a=s; echo ${a[0]}", "0\ns\n", "", 0),
    (  # indexes are unsigned 32-bit
        "a[-1]=1; echo $? ${a[@]} ${!a[@]}; echo ${a[-1]} ${a[4294967295]}; unset a[-1]; "
        "echo ${#a[@]}",
        "0 1 4294967295\n1 1\n0\n",
        "",
        0,
    ),
]

TYPESET = [
    (  # alone: declarations; -p: with values; -i: NAME=value; +i: names
        "x=2; typeset -i n=3; typeset -u U=a; typeset | tail -2; typeset -p | tail -2; "
        "typeset -i | tail -1; typeset +i | tail -1; typeset +u",
        "typeset -i n\ntypeset x\ntypeset -i n=3\ntypeset x=2\nn=3\nn\nU\n",
        "",
        0,
    ),
    (
        "typeset -L99999999999 x=1; echo $? ${#x}",
        "1 0\n",
        "/system/bin/sh: typeset: bad number: 99999999999: Value too large for defined data type\n",
        0,
    ),
    (
        "typeset -i n=5+3; echo $n; n=n*2; echo $n; typeset -u u=abc; echo $u; u=xYz; "
        'echo $u; typeset -l l=ABC; echo $l; typeset -L5 p=ab; echo "[$p]"; typeset -R5 '
        'r=ab; echo "[$r]"; typeset -Z5 z=42; echo "[$z]"; typeset -L2 s=abcdef; echo '
        '"[$s]"; typeset -R2 s2=abcdef; echo "[$s2]"; typeset -Z3 z2=12345; echo "[$z2]"',
        "8\n16\nABC\nXYZ\nabc\n[ab   ]\n[   ab]\n[00042]\n[ab]\n[ef]\n[345]\n",
        "",
        0,
    ),
    (
        "typeset -i x; x=3+4; echo $x; x=abc; echo $x; typeset -i y=foo; echo $?",
        "7\n0\n0\n",
        "",
        0,
    ),
    (
        "typeset -L3 a=abcdef; typeset -R3 b=1; typeset -Z3 c=ab; typeset -Z d=12; echo "
        '"[$a][$b][$c][$d]"; typeset -L3 e="  xy"; echo "[$e]"; typeset -Z4 f=" 7"; echo '
        '"[$f]"; typeset -R4 g="x  "; echo "[$g]"',
        "[abc][  1][0ab][12]\n[xy ]\n[00 7]\n[   x]\n",
        "",
        0,
    ),
    (
        "typeset -u a; a=hello; echo $a; typeset +u a; a=World; echo $a; typeset -ul "
        "b=Mix; echo $b; typeset -lu c=Mix; echo $c",
        "HELLO\nWorld\nmix\nmix\n",
        "",
        0,
    ),
    (
        "typeset -ix e=1; typeset -r -u R=a; typeset -L4 j=x; typeset -Z3 k=1; x=2; "
        "typeset -p e R j k x; typeset -p nope; echo $?",
        "typeset -i -x e=1\ntypeset -r -u R=A\ntypeset -L4 j='x   '\ntypeset -R3 -Z k=001\n"
        "typeset x=2\n0\n",
        "",
        0,
    ),
    (
        "x=1; x+=2; echo $x; typeset -i n=5; n+=3; echo $n; set -A a p q; a[1]+=r; echo ${a[@]}",
        "12\n53\np qr\n",
        "",
        0,
    ),
]

EXPORTED = [  # the session's environment is exported, as a device's shell inherits it
    (
        "x=1; export x; export | tail -2; export -p | tail -1; y=2; typeset -x | tail -1",
        "USER\nx\nexport x=1\nx=1\n",
        "",
        0,
    ),
]

READONLY = [
    ("readonly r=1; r=2; echo after $?", "", "/system/bin/sh: read-only: r\n", 2),
    (
        "readonly r=1; echo x; unset r; echo after $?",
        "x\nafter 1\n",
        "/system/bin/sh: read-only: r\n",
        0,
    ),
    (
        "readonly r=1; readonly r=3; echo after $?",
        "",
        "/system/bin/sh: readonly: read-only: r\n",
        2,
    ),
    (
        "readonly r=1; export r=3; echo after $?",
        "",
        "/system/bin/sh: export: read-only: r\n",
        2,
    ),
    (
        "readonly r=1; f() { local r=2; echo in $r; }; f; echo after $? $r",
        "in 2\nafter 0 1\n",
        "",
        0,
    ),
    (
        "readonly r=1; (r=5); echo sub $?; r=7 true; echo $?",
        "sub 2\n",
        "/system/bin/sh: read-only: r\n" * 2,
        2,
    ),
    ("typeset -r q=1; q=2; echo no", "", "/system/bin/sh: read-only: q\n", 2),
    (
        "readonly r=1; read r <<< x; echo $? $r",
        "2 1\n",
        "/system/bin/sh: read: read-only: r\n",
        0,
    ),
    ("readonly r=1; for r in 1; do :; done; echo $?", "", "/system/bin/sh: read-only: r\n", 2),
    (
        "readonly r=1 s; readonly; readonly -p; typeset -r",
        "r\ns\nreadonly r=1\nreadonly s\nr=1\ns\n",
        "",
        0,
    ),
]

UMASK_AND_FLAGS = [
    (
        "umask; umask 027; umask; umask -S; umask u=rwx,g=rx,o=; umask; umask 999; echo $?",
        "000\n027\nu=rwx,g=rx,o=\n027\n1\n",  # a device's shell starts with 000
        "/system/bin/sh: umask: bad number\n",
        0,
    ),
    (
        "umask 0; umask; umask -S; umask 7777; umask; umask a=rwx; umask; umask u-w; umask; "
        "umask g+w,o-r; umask;umask -S; umask x=y; echo $?",
        "000\nu=rwx,g=rwx,o=rwx\n0777\n000\n0200\n0204\nu=rx,g=rwx,o=wx\n1\n",
        "/system/bin/sh: umask: bad mask\n",
        0,
    ),
    (
        "echo $-; set -e; echo $-; set -u -x; echo $-",
        "hUc\nehUc\neuhUxc\n",  # Android's mksh assumes UTF-8: the U
        "+ echo euhUxc\n",
        0,
    ),
    ("time -p true", "", "real 0.00\nuser 0.00\nsys 0.00\n", 0),
    ("umask -x; echo $?", "1\n", "/system/bin/sh: umask: -x: unknown option\n", 0),
    ("readonly -x q=1; echo $?", "", "/system/bin/sh: readonly: -x: unknown option\n", 1),
    ("time; echo $?", "0\n", "    0m00.00s user     0m00.00s system\n", 0),
    (
        "time false; echo $?",
        "1\n",
        "    0m00.00s real     0m00.00s user     0m00.00s system\n",
        0,
    ),
    (
        "read -t abc z; echo $?",
        "2\n",
        "/system/bin/sh: read: syntax error: Invalid argument 'abc'\n",
        0,
    ),
]

SELECT = [
    ("select x in; do echo; done; echo $?", b"", "1\n", "#? ", 0),  # no menu, a prompt
    (
        "select x in a b c d e f g h i j k l; do break; done",
        b"1\n",
        "",
        "".join(f"{n:>2}) {chr(96 + n):<36}{n + 6:>2}) {chr(102 + n)}\n" for n in range(1, 7))
        + "#? ",  # " 1) a" padded to 40 columns, then " 7) g"
        0,
    ),
    (
        "COLUMNS=30; select x in alpha beta gamma delta epsilon zeta eta theta iota kappa; "
        "do echo $x; break; done",
        b"3\n",
        "gamma\n",
        " 1) alpha       6) zeta\n 2) beta        7) eta\n 3) gamma       8) theta\n"
        " 4) delta       9) iota\n 5) epsilon    10) kappa\n#? ",
        0,
    ),
    (
        'select x in a b c; do echo "got [$x] [$REPLY]"; done; echo end $?',
        b"2\n9\n\nfoo",
        "got [b] [2]\ngot [] [9]\nend 1\n",
        "1) a\n2) b\n3) c\n#? #? #? 1) a\n2) b\n3) c\n#? ",
        0,
    ),
    (
        'select x in a b; do echo "got [$x]"; break; done; echo $?',
        b"1\n",
        "got [a]\n0\n",
        "1) a\n2) b\n#? ",
        0,
    ),
    (
        'PS3="pick: "; set -- p q; select x; do echo "got [$x]"; done',
        b"2\n",
        "got [q]\n",
        "1) p\n2) q\npick: pick: ",
        1,
    ),
]

# mksh evaluates a variable's value as arithmetic wherever it needs a number and expands an
# array subscript met there, quoted or not (review_s7 R2): the command substitution runs.
ARITHMETIC_SUBSCRIPTS = [
    ("x='a[$(echo PWNED1 >&2)]'; echo $((x))", "0\n", "PWNED1\n", 0),
    ("typeset -i y='a[$(echo PWNED2 >&2)]'", "", "PWNED2\n", 0),
    ("x='a[$(echo PWNED3 >&2)]'; [[ x -eq 1 ]]", "", "PWNED3\n", 1),
    ("x='a[`echo BT >&2`]'; test x -eq 1; echo $?", "1\n", "BT\n", 0),
    ("y='$(echo TWICE >&2)'; echo $((a[$y]))", "0\n", "TWICE\n", 0),
    ("x='a[$(echo 3)+1]'; a[4]=7; z=2; w='a[${z:-1}+2]'; echo $((x)) $((w))", "7 7\n", "", 0),
    ("x='a[$(echo RUN >&2)]'; echo $((0 && x))", "0\n", "", 0),
    ("x='a[$(echo 1 2)]'; echo $((x))", "", "/system/bin/sh: 1 2: unexpected '2'\n", 1),
    ("x='a[\"1\"]'; echo $((x))", "", '/system/bin/sh: "1": unexpected \'"\'\n', 1),
    ("x='a[$(echo S >&2)]'; set -- a b c; shift x; shift 1+0; echo $#", "2\n", "S\n", 0),
    ("x='a[$(echo L >&2)]'; let y=x; b[x]=1; echo $y ${!b[@]}", "0 0\n", "L\nL\n", 0),
    (
        "set -- a b; shift 1+; echo $?",
        "",
        "/system/bin/sh: 1+: unexpected 'end of expression'\n",
        1,
    ),
]

ANSI_C_STRINGS = [  # `$'…'`: C escapes, mksh's rules (`\x` takes every hex digit after it)
    (
        "printf '%s|' $'\\x41' $'\\101' $'a\\'b' $'\\q' $'x\\0y' $'\\u004142' $'\\x' "
        "\"$'no'\" $'it''s' ${y:-$'\\x42'}; echo",
        "A|A|a'b|q|x|A42|x|$'no'|its|B|\n",
        "",
        0,
    ),
    ("echo $(echo $'a\\'b'; echo c); $'\\x65'cho $'tab\\there'", "a'b c\ntab\there\n", "", 0),
]

CASES = [
    *ALIASES,
    *ARRAYS,
    *TYPESET,
    *EXPORTED,
    *READONLY,
    *UMASK_AND_FLAGS,
    *ARITHMETIC_SUBSCRIPTS,
    *ANSI_C_STRINGS,
]


@pytest.mark.parametrize(("script", "out", "err", "status"), CASES, ids=[c[0][:50] for c in CASES])
def test_scripts_behave_as_under_mksh(
    tmp_path: Path, script: str, out: str, err: str, status: int
) -> None:
    result = run(make_userland(tmp_path), script)
    assert (result.out, result.err, result.status) == (out, err, status)


@pytest.mark.parametrize(
    ("script", "stdin", "out", "err", "status"), SELECT, ids=[c[0][:40] for c in SELECT]
)
def test_select_reads_its_answers_from_stdin(
    tmp_path: Path, script: str, stdin: bytes, out: str, err: str, status: int
) -> None:
    result = run(make_userland(tmp_path), script, stdin)
    assert (result.out, result.err, result.status) == (out, err, status)


def test_time_measures_the_real_time_of_a_pipeline(tmp_path: Path) -> None:
    result = run(make_userland(tmp_path), "time sleep 0.3 | cat; echo $?")
    assert result.out == "0\n"
    real = result.err.split(" real ")[0].strip()  # "0m00.30s"
    minutes, seconds = real.rstrip("s").split("m")
    assert int(minutes) == 0 and 0.3 <= float(seconds) < 30


def test_read_t_gives_up_on_a_quiet_pipe_and_keeps_what_came(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    result = run(
        userland,
        '(printf ab; sleep 2; echo late) | { read -t 0.3 x; echo "$? [$x]"; }',
    )
    assert result.out == "142 [ab]\n"  # SIGALRM's status; waiting would read "ablate"
    prompt = run(userland, 'echo now | { read -t 5 y; echo "$? $y"; }')
    assert prompt.out == "0 now\n"


class QuietHost(BufferIO):
    """Input from the host that stays quiet until the shell printed `release_on`."""

    def __init__(self, late: bytes, release_on: bytes) -> None:
        super().__init__()
        self._late = [late]
        self._release_on = release_on
        self._released = threading.Event()

    def read_stdin(self, max_bytes: int = 65536) -> bytes:
        if not self._released.wait(30):
            return b""
        return self._late.pop(0) if self._late else b""

    def write_stdout(self, data: bytes) -> None:
        super().write_stdout(data)
        if self._release_on in self.stdout:
            self._released.set()


@pytest.mark.parametrize("pty", [False, True], ids=["raw", "pty"])
def test_read_t_gives_up_on_quiet_host_input_and_loses_no_byte(tmp_path: Path, pty: bool) -> None:
    io = QuietHost(b"late\n", release_on=b"142")
    script = 'read -t 0.3 x; echo "$? [$x]"; read y; echo "[$y]"'
    assert make_userland(tmp_path).run(script, io, pty=pty) == 0
    assert bytes(io.stdout) == b"142 []\n[late]\n"


def test_a_redirection_creates_files_under_the_umask(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    run(userland, "cd /data/local/tmp; echo a > open; umask 027; echo b > masked; "
                  "echo c >> open")  # fmt: skip
    listing = run(userland, "ls -l /data/local/tmp/open /data/local/tmp/masked").out
    modes = {line.split()[-1].rsplit("/", 1)[-1]: line.split()[0] for line in listing.splitlines()}
    assert modes == {"open": "-rw-rw-rw-", "masked": "-rw-r-----"}


def test_files_exec_opened_close_when_an_interactive_session_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    userland = make_userland(tmp_path)
    files = userland.device.files
    opened: list[Any] = []
    real_open = files.open_write

    def recording_open(path: str, mode: int) -> Any:
        handle = real_open(path, mode)
        opened.append(handle)
        return handle

    monkeypatch.setattr(files, "open_write", recording_open)
    io = BufferIO(b"exec >/data/local/tmp/log.txt 2>&1\necho into log\nls /nope\n")
    assert userland.run("", io) == 1
    assert len(opened) == 1 and opened[0].closed  # closed at the end, not left to GC
    text = (tmp_path / "data/local/tmp/log.txt").read_text()
    assert text == "into log\nls: /nope: No such file or directory\n"
    assert os.path.getsize(tmp_path / "data/local/tmp/log.txt") == len(text)


def test_an_alias_typed_in_an_interactive_session_applies_to_the_next_lines(
    tmp_path: Path,
) -> None:
    io = BufferIO(b"alias hi='echo hello'\nhi there\nunalias hi\nhi\n")
    assert make_userland(tmp_path).run("", io) == 127
    assert bytes(io.stdout) == b"hello there\n"
    assert bytes(io.stderr) == b"/system/bin/sh: hi: inaccessible or not found\n"


def test_a_repeated_line_sees_an_alias_a_sourced_file_defines_the_second_time(
    tmp_path: Path,
) -> None:
    """Parsed lines are kept for a command line that is run again; a line after one that
    changed an alias is parsed again, with it."""
    userland = make_userland(tmp_path)
    script = "if [ -f /data/local/tmp/lib ]; then . /data/local/tmp/lib; fi\nhi there"
    first = run(userland, script)
    assert (first.out, first.status) == ("", 127)
    run(userland, "echo \"alias hi='echo hello'\" > /data/local/tmp/lib")
    second = run(userland, script)
    assert (second.out, second.err, second.status) == ("hello there\n", "", 0)
