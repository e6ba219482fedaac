"""Google's adb against the simulated shell: the scripts device tests send through `adb
shell` (functions, here-documents, case, local, ulimit, getopts, the ${name OP word}
forms, read -r with IFS, return/break/continue, test/[ with -a/-o, [[ ]], exec
redirections, case inside $(…)) give mksh's output and exit status, over the shell
protocol (v2, exit status) and the legacy raw one. Expected texts are mksh R59c's."""

from __future__ import annotations

from pathlib import Path

import pytest

from adbwire.testing import SimulatedDevice
from tests.interop.adb_oracle import ADB, AdbOracle

pytestmark = [
    pytest.mark.interop,
    pytest.mark.skipif(not ADB.exists(), reason="Google's adb is not installed at /usr/bin/adb"),
]


FUNCTIONS = """\
count() {
  local n=$1 total=0
  while [ $n -gt 0 ]; do total=$((total + n)); n=$((n - 1)); done
  echo "$FUNCNAME$total"
  return $((total % 7))
}
function twice { count "$@"; count "$@"; }
n=outer; twice 4; echo "status $? n=$n total=${total-unset}"
"""
HERE_DOCUMENTS = """\
name=device
cat <<EOF
hello $name $(echo sub) $((6 * 7)) \\$name
EOF
cat <<-'EOF' > /data/local/tmp/literal.txt
	keep $name `as is`
	EOF
cat /data/local/tmp/literal.txt
while read -r key value; do echo "[$key]=[$value]"; done <<EOF
a 1
b two words\\n
EOF
"""
CASE_AND_GETOPTS = """\
for file in a.txt b.apk c; do
  case $file in
    *.txt|*.log) echo "$file: text";;
    *.apk) echo "$file: package";;
    *) echo "$file: other";;
  esac
done
set -- -v -o out.bin -- rest
while getopts vo: opt; do
  case $opt in v) echo verbose;; o) echo "output $OPTARG";; esac
done
shift $((OPTIND - 1)); echo "left: $*"
path=/sdcard/Download/photo.final.jpg
echo ${path##*/} ${path%/*} ${path%%.*} ${path#*.} ${unset:-default} ${#path}
"""
TESTS_AND_SPLITTING = """\
x=5; [ $x -ge 1 -a \\( $x -le 9 -o $x = 0 \\) ] && echo in-range
[ ! -d /data/local/tmp/nope ] && [ -d /data/local/tmp ] && echo dirs
[[ $x == [0-9] && -n $x ]] && echo pattern
while IFS== read -r key value; do echo "$key -> $value"; done <<EOF
ro.product.model=Pixel 8
ro.build.version.sdk=34
EOF
csv="a,b,,d"; IFS=,; set -- $csv; IFS=" "; echo "$# fields: $*"
v=hello.world; echo ${v/o/0} ${v//o/0} ${v:1:3} ${v: -5}
echo $(case $v in *.world) echo matched;; esac)
exec 2>/dev/null; ls /data/local/tmp/nope; echo "after $?"
"""
LOOPS = """\
for i in 1 2 3 4; do
  for j in a b c; do
    [ $j = b ] && continue
    [ $i = 3 ] && break 2
    echo $i$j
  done
done
echo done
"""


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (FUNCTIONS, "10\n10\nstatus 3 n=outer total=unset\n"),
        (
            HERE_DOCUMENTS,
            # echo reads the \\n that read -r kept as a newline, as mksh's echo does
            "hello device sub 42 $name\nkeep $name `as is`\n[a]=[1]\n[b]=[two words\n]\n",
        ),
        (
            CASE_AND_GETOPTS,
            "a.txt: text\nb.apk: package\nc: other\nverbose\noutput out.bin\nleft: rest\n"
            "photo.final.jpg /sdcard/Download /sdcard/Download/photo final.jpg default 32\n",
        ),
        (LOOPS, "1a\n1c\n2a\n2c\ndone\n"),
        (
            TESTS_AND_SPLITTING,
            "in-range\ndirs\npattern\nro.product.model -> Pixel 8\n"
            "ro.build.version.sdk -> 34\n4 fields: a b  d\nhell0.world hell0.w0rld ell world\n"
            "matched\nafter 1\n",  # toybox ls exits 1 for a missing file (GNU's: 2)
        ),
    ],
    ids=[
        "functions",
        "here-documents",
        "case-getopts-expansions",
        "break-continue",
        "test-ifs-substitution-exec",
    ],
)
def test_device_scripts_print_what_mksh_prints(
    adb: AdbOracle, device: SimulatedDevice, script: str, expected: str
) -> None:
    done = adb.run("-s", device.serial, "shell", script)
    assert (done.stdout.decode(), done.stderr.decode(), done.returncode) == (expected, "", 0)
    legacy = adb.run("-s", device.serial, "shell", "-x", script)  # raw shell: protocol
    assert legacy.stdout.decode() == expected


def test_exit_statuses_of_return_shift_and_expansion_errors_reach_adb(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    def status(script: str) -> tuple[int, str]:
        done = adb.run("-s", device.serial, "shell", script)
        return done.returncode, done.stderr.decode()

    assert status("f() { return 5; }; f") == (5, "")
    assert status("return 9; echo no") == (9, "")
    assert status("shift; echo no") == (1, "/system/bin/sh: shift: nothing to shift\n")
    assert status("echo ${missing:?no value}; echo no") == (
        1,
        "/system/bin/sh: missing: no value\n",
    )
    assert status("cat <<EOF\nnever closed") == (
        1,
        "/system/bin/sh: syntax error: here document 'EOF' unclosed\n",
    )


def test_ulimit_shows_an_adb_shells_limits_and_keeps_a_lowered_one(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    out = adb.ok("-s", device.serial, "shell", "ulimit -n; ulimit -c; ulimit -s").decode()
    assert out == "32768\n0\n8192\n"
    lowered = adb.ok("-s", device.serial, "shell", "ulimit -n 256 && ulimit -n; ulimit -Hn")
    assert lowered.decode() == "256\n256\n"
    listing = adb.ok("-s", device.serial, "shell", "ulimit -a").decode().splitlines()
    assert listing[0] == "-t: time(cpu-seconds)     unlimited"
    assert "-n: nofiles(descriptors)  32768" in listing
    assert len(listing) == 15
    # a new session starts again from the defaults
    assert adb.ok("-s", device.serial, "shell", "ulimit -n").decode() == "32768\n"


def test_a_script_pushed_and_sourced_defines_functions_for_the_caller(
    adb: AdbOracle, device: SimulatedDevice, tmp_path: Path
) -> None:
    library = tmp_path / "lib.sh"
    library.write_text('greet() { echo "hi $1 from $(basename $PWD)"; }\nLIB=loaded\n')
    adb.ok("-s", device.serial, "push", str(library), "/data/local/tmp/lib.sh")
    script = "cd /data/local/tmp && . ./lib.sh && greet adb && echo $LIB && type greet"
    out = adb.ok("-s", device.serial, "shell", script).decode()
    assert out == "hi adb from tmp\nloaded\ngreet is a function\n"


def test_a_script_fed_on_stdin_runs_its_multi_line_constructs(
    adb: AdbOracle, device: SimulatedDevice
) -> None:
    """`adb shell < script.sh`: the shell reads line by line and waits for the end of a
    function, a here-document or a case before it runs it."""
    script = (
        b'f() {\n  echo "in f $1"\n}\nf one\ncat <<EOF\nheredoc $((1+1))\nEOF\n'
        b"case x in\n  x) echo case-x;;\nesac\nulimit -n\necho end\n"
    )
    done = adb.run("-s", device.serial, "shell", input=script)
    assert done.stdout.decode() == "in f one\nheredoc 2\ncase-x\n32768\nend\n"
    assert done.returncode == 0
