"""The simulated mksh runs the scripts device tests use: functions, here-documents, case,
local, return/break/continue, getopts, let, `.`, read -r, ulimit, test/[ and the
${name OP word} expansions.

Expected outputs, errors and statuses come from mksh R59c (`mksh -c SCRIPT`, Debian's
package of the release Android 14 ships as /system/bin/sh), with mksh's `mksh: ` prefix
written as the device's `/system/bin/sh: `.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.simulator.userland_harness import make_userland, run

# (script, stdout, stderr, exit status), as mksh R59c gives them
MKSH_CASES = [
    (
        (
            'f() { echo "f:$1:$#"; return 3; }; f a b; echo $?; function g { '
            'typeset l=2; echo g$l; }; g; echo "[$l]"'
        ),
        "f:a:2\n3\ng2\n[]\n",
        "",
        0,
    ),
    (
        'x=1; f() { local x; echo "[$x]"; x=2; }; f; echo $x',
        "[]\n1\n",
        "",
        0,
    ),
    (
        'x=1; cat <<E; cat <<-"F"\nv=$x \\$x "q" \\" `echo bt`\nE\n\ttab $x\n\tF\necho done',
        'v=1 $x "q" \\" bt\ntab $x\ndone\n',
        "",
        0,
    ),
    (
        (
            "for i in 1 2 3; do for j in a b; do [ $j = b ] && continue 2; [ $i = "
            "3 ] && break 2; echo $i$j; done; done; echo end"
        ),
        "1a\n2a\nend\n",
        "",
        0,
    ),
    (
        (
            "x=abc.tar.gz; echo ${x%.*} ${x%%.*} ${x#*.} ${x##*.} ${#x} ${x:+set} "
            "${y:+set} ${y-def} ${y:=new} $y"
        ),
        "abc.tar abc tar.gz gz 10 set def new new\n",
        "",
        0,
    ),
    (
        (
            "while getopts ab:c o -a -b val -c -d x; do echo "
            '"$o:${OPTARG-unset}:$OPTIND"; done; echo "end $OPTIND"'
        ),
        "a:unset:2\nb:val:4\nc:unset:5\n?:unset:6\nend 6\n",
        "/system/bin/sh: -d: unknown option\n",
        0,
    ),
    (
        (
            'getopts :a: o -a; echo "$?:$o:${OPTARG-u}"; OPTIND=1; getopts a: o '
            '-a; echo "$?:$o:${OPTARG-u}"'
        ),
        "0:::a\n0:?:u\n",
        "/system/bin/sh: -a: requires an argument\n",
        0,
    ),
    (
        (
            'set -- -xvf file -- rest; while getopts xvf: opt; do echo "$opt '
            '${OPTARG-}"; done; shift $((OPTIND-1)); echo "$@"'
        ),
        "x \nv \nf file\nrest\n",
        "",
        0,
    ),
    (
        (
            "case x in\n  x|y)\n    echo hit\n    ;;\n  *) echo no ;;\nesac; case "
            "\"a.txt\" in *.txt) echo txt;; esac; case ab in 'a*') echo q;; a?) "
            "echo glob;; esac"
        ),
        "hit\ntxt\nglob\n",
        "",
        0,
    ),
    (
        'f() { echo "$@"; shift; echo $#; }; set -- a b c; f 1 2; echo "$@"',
        "1 2\n1\na b c\n",
        "",
        0,
    ),
    (
        "ulimit -n 1024; ulimit -n; ulimit -Hn 2000; echo $?; ulimit -n 99999999; echo $?",
        "1024\n1\n1\n",
        (
            "/system/bin/sh: ulimit: 2000 exceeds allowable nofiles(descriptors) "
            "limit\n/system/bin/sh: ulimit: 99999999 exceeds allowable "
            "nofiles(descriptors) limit\n"
        ),
        0,
    ),
    (
        "shift 3; echo $?",
        "",
        "/system/bin/sh: shift: nothing to shift\n",
        1,
    ),
    (
        "break; echo $?",
        "0\n",
        "/system/bin/sh: break: can't break\n",
        0,
    ),
    (
        "echo ${x:?}; echo after",
        "",
        "/system/bin/sh: x: parameter null or not set\n",
        1,
    ),
    (
        "let x=2+3 y=0; echo $? $x",
        "1 5\n",
        "",
        0,
    ),
    (
        (
            'read -r a b <<EOF\nx\\y  z  w\nEOF\necho "[$a][$b]"; read a '
            '<<EOF\nx\\y\\\ncont\nEOF\necho "[$a]"'
        ),
        "[x\\y][z  w]\n[xycont]\n",
        "",
        0,
    ),
    (
        "f() { return; }; false; f; echo $?",
        "1\n",
        "",
        0,
    ),
    (
        'echo "${u-"a  b"}" ${u:-"c  d"} ${u:-e  f}',
        "a  b c  d e f\n",
        "",
        0,
    ),
    (
        "i=0; while :; do i=$((i+1)); [ $i -gt 3 ] && break; done; echo $i",
        "4\n",
        "",
        0,
    ),
    (
        "f() { echo in f; exit 4; echo no; }; f; echo not reached",
        "in f\n",
        "",
        4,
    ),
    (
        "x=5; f() { x=6; }; f; echo $x",
        "6\n",
        "",
        0,
    ),
    (
        'g() { echo "$1" >&2; }; g err 2>&1',
        "err\n",
        "",
        0,
    ),
    (
        "h() { cat; }; echo piped | h",
        "piped\n",
        "",
        0,
    ),
    (
        "x=a; case $x in a) echo one;& b) echo two;; esac",
        "one\ntwo\n",
        "",
        0,
    ),
    (
        "printf '%s\\n' a b | while read l; do echo \"<$l>\"; done",
        "<a>\n<b>\n",
        "",
        0,
    ),
    (
        "cat <<EOF | wc -l\n1\n2\nEOF",
        "2\n",
        "",
        0,
    ),
    (
        "f() {\n  local n=$1\n  [ $n -le 0 ] && return 0\n  echo $n\n  f $((n-1))\n}\nf 3",
        "3\n2\n1\n",
        "",
        0,
    ),
    (
        'echo ${#}; set -- a b; echo ${#} ${1:-x} ${3:-y} "${@}"',
        "0\n2 a y a b\n",
        "",
        0,
    ),
    (
        'v=/a/b/c.txt; echo ${v##*/} ${v%/*} ${v#/} "${v%.txt}.log"',
        "c.txt /a/b a/b/c.txt /a/b/c.log\n",
        "",
        0,
    ),
    (
        "cat <<'EOF'\n$HOME `x` \\n\nEOF",
        "$HOME `x` \\n\n",
        "",
        0,
    ),
    (
        "echo $(cat <<EOF\ninside\nEOF\n)",
        "inside\n",
        "",
        0,
    ),
    (
        "return 5; echo no",
        "",
        "",
        5,
    ),
    (
        "f() { return 300; }; f; echo $?",
        "44\n",
        "",
        0,
    ),
    (
        "x=; echo ${x:-empty} ${x-unset} ${x:=filled} $x",
        "empty filled filled\n",
        "",
        0,
    ),
    (
        ". /nonexistent; echo after",
        "",
        "/system/bin/sh: .: /nonexistent: No such file or directory\n",
        1,
    ),
    (
        "f() { echo out; echo err >&2; } > /dev/null; f; echo status $?",
        "status 0\n",
        "err\n",
        0,
    ),
    (
        'f() { local a=1 b; b=2; echo "$a$b"; }; a=x; b=y; f; echo "$a$b"',
        "12\nxy\n",
        "",
        0,
    ),
    (
        "outer() { inner() { echo inner $1; }; inner x; }; outer; inner y",
        "inner x\ninner y\n",
        "",
        0,
    ),
    (
        'f() { echo "[$*]" "[$#]"; }; f "a b" c \'\'',
        "[a b c ] [3]\n",
        "",
        0,
    ),
    (
        "for x in a b; do case $x in a) continue;; esac; echo $x; done",
        "b\n",
        "",
        0,
    ),
    (
        'while read -r k v; do echo "$k=$v"; done <<EOF\none 1\ntwo 2 2\nEOF',
        "one=1\ntwo=2 2\n",
        "",
        0,
    ),
    (
        "x=7; cat <<EOF\n$((x * 2)) ${x:+set} $(echo sub) \\\\back\nEOF",
        "14 set sub \\back\n",
        "",
        0,
    ),
    (
        "cat 0<<EOF\nfd zero\nEOF",
        "fd zero\n",
        "",
        0,
    ),
    (
        "set -e; f() { false; echo no; }; f; echo not reached",
        "",
        "",
        1,
    ),
    (
        "n=0; until [ $n -ge 2 ]; do n=$((n+1)); done; echo $n",
        "2\n",
        "",
        0,
    ),
    (
        (
            'case "" in "") echo empty;; *) echo other;; esac; case 5 in [0-9]) '
            "echo digit;; esac; case x in [!a-c]) echo neg;; esac"
        ),
        "empty\ndigit\nneg\n",
        "",
        0,
    ),
    (
        "f() { return 1; }; if f; then echo yes; else echo no; fi; f || echo failed",
        "no\nfailed\n",
        "",
        0,
    ),
    (
        'x=a-b-c; echo ${x#*-} ${x##*-} ${x%-*} ${x%%-*} ${x#z} "${x%"-c"}"',
        "b-c c a-b a a-b-c a-b\n",
        "",
        0,
    ),
    (
        "unset v; echo ${v:+alt}${v:-def}; v=val; echo ${v:+alt} ${#v}",
        "def\nalt 3\n",
        "",
        0,
    ),
    (
        "echo ${v?custom message}; echo not reached",
        "",
        "/system/bin/sh: v: custom message\n",
        1,
    ),
    (
        'set -- a b c d; shift 2; echo "$@ $#"',
        "c d 2\n",
        "",
        0,
    ),
    (
        (
            "i=0; while [ $i -lt 5 ]; do i=$((i+1)); [ $i -eq 2 ] && continue; [ "
            "$i -eq 4 ] && break; echo $i; done"
        ),
        "1\n3\n",
        "",
        0,
    ),
    (
        'function f { echo "args: $#"; }; f 1 2 3',
        "args: 3\n",
        "",
        0,
    ),
    (
        "f() { echo one; }; f() { echo two; }; f",
        "two\n",
        "",
        0,
    ),
    (
        "let 'x = 3 * 4'; echo $x; let 0; echo $?",
        "12\n1\n",
        "",
        0,
    ),
]

# test and [ (mksh built-ins): -a/-o/!/( ), arithmetic operands, mksh's errors
TEST_CASES = [
    (
        '[ "" -eq 0 ]; echo $?',
        "0\n",
        "",
        0,
    ),
    (
        ('[ -n ]; echo $?; [ ! -n ]; echo $?; [ a -a "" ]; echo $?; [ ! a = b -a -n x ]; echo $?'),
        "0\n1\n1\n0\n",
        "",
        0,
    ),
    (
        "[ \\( a = a \\) ]; echo $?; [ a = ]; echo $?",
        "0\n2\n",
        "/system/bin/sh: [: =: missing second argument\n",
        0,
    ),
    (
        "[ -f ]; echo $?; [ a -b c ]; echo $?; [ -x / -a -d / ]; echo $?",
        "0\n2\n0\n",
        "/system/bin/sh: [: -b: unexpected operator/operand\n",
        0,
    ),
    (
        "test 1 -gt; echo $?; test \\( a; echo $?",
        "2\n2\n",
        ("/system/bin/sh: test: -gt: missing second argument\n/system/bin/sh: test: missing )\n"),
        0,
    ),
    (
        "[ a \\> b ]; echo $?; [ b \\> a ]; echo $?; [ a \\< b ]; echo $?",
        "1\n0\n0\n",
        "",
        0,
    ),
    (
        "[ -e / -o -e /nope ]; echo $?; test -t 0; echo $?",
        "0\n1\n",
        "",
        0,
    ),
    (
        (
            "[ 5 -lt 10 ]; echo $?; [ 10 -lt 5 ]; echo $?; [ 2 -eq 1+1 ]; echo "
            "$?; [ 1a -eq 1 ]; echo $?"
        ),
        "0\n1\n0\n2\n",
        "/system/bin/sh: 1a: bad number: Invalid argument\n",
        0,
    ),
    (
        'test -d; echo $?; [ -z "" -o x ]; echo $?; test "(" ; echo $?; [ a == a ]; echo $?',
        "0\n0\n0\n0\n",
        "",
        0,
    ),
    (
        (
            "[ -d / ] && [ ! -f / ] && echo dir; [ -s /nope ] || echo nosize; "
            "test; echo $?; [ ]; echo $?"
        ),
        "dir\nnosize\n1\n1\n",
        "",
        0,
    ),
    (
        'x=5; [ $x -ge 5 -a $x -le 10 ] && echo in; [ "$x" != 5 -o "$x" = 5 ] && echo or',
        "in\nor\n",
        "",
        0,
    ),
    (
        "[ \\( -n a -o -z a \\) -a ! -z b ]; echo $?; [ ! \\( a = b \\) ]; echo $?",
        "0\n0\n",
        "",
        0,
    ),
    (
        "[ a; echo $?; test a b c; echo $?",
        "2\n2\n",
        ("/system/bin/sh: [: missing ]\n/system/bin/sh: test: b: unexpected operator/operand\n"),
        0,
    ),
    (
        '[ -n "" -a -d / ]; echo $?; [ 1 -eq 1 -o 1 -eq ]; echo $?',
        "1\n2\n",
        "/system/bin/sh: [: -eq: missing second argument\n",
        0,
    ),
    (
        "[ / -ef / ]; echo $?; [ -r /nope ]; echo $?; [ -w / ]; echo $?",
        "0\n1\n0\n",
        "",
        0,
    ),
]

# IFS in read and in field splitting; $(…) holding a case whose patterns end in `)`
IFS_CASES = [
    (
        'IFS=: read a b c <<EOF\nx:y::z w\nEOF\necho "[$a][$b][$c]"',
        "[x][y][:z w]\n",
        "",
        0,
    ),
    (
        'IFS="=" read k v <<EOF\n key = value = more \nEOF\necho "[$k][$v]"',
        "[ key ][ value = more ]\n",
        "",
        0,
    ),
    (
        'x="a,b,,c"; IFS=,; set -- $x; echo $#; for i in "$@"; do echo "<$i>"; done',
        "4\n<a>\n<b>\n<>\n<c>\n",
        "",
        0,
    ),
    (
        'x=" a  b "; IFS=" "; set -- $x; echo $#',
        "2\n",
        "",
        0,
    ),
    (
        'IFS=; x="a b"; set -- $x; echo $#',
        "1\n",
        "",
        0,
    ),
    (
        'x="a:b"; IFS=:; echo $x; echo "$x"; y=$x; echo "$y"',
        "a b\na:b\na:b\n",
        "",
        0,
    ),
    (
        'set -- a b c; IFS=-; echo "$*"; IFS=; echo "$*"',
        "a-b-c\nabc\n",
        "",
        0,
    ),
    (
        (
            'while IFS== read -r key value; do echo "$key -> $value"; done '
            "<<EOF\nro.product.model=Pixel 8\nro.build.version.sdk=34\nEOF"
        ),
        "ro.product.model -> Pixel 8\nro.build.version.sdk -> 34\n",
        "",
        0,
    ),
    (
        (
            'line="  lead and trail  "; read -r a <<EOF\n$line\nEOF\necho "[$a]"; '
            'IFS= read -r b <<EOF\n$line\nEOF\necho "[$b]"'
        ),
        "[lead and trail]\n[  lead and trail  ]\n",
        "",
        0,
    ),
    (
        'x=",a"; IFS=,; set -- p$x; echo $# "$1" "$2"',
        "2 p a\n",
        "",
        0,
    ),
    (
        "echo $(case a in a) echo yes;; esac)",
        "yes\n",
        "",
        0,
    ),
    (
        'x=$(case "$1" in (*) echo paren;; esac); echo "$x"',
        "paren\n",
        "",
        0,
    ),
    (
        'echo "$(case b in a) echo A;; b) echo B;; esac) after"',
        "B after\n",
        "",
        0,
    ),
    (
        'echo $(echo "(" ; echo ")")',
        "( )\n",
        "",
        0,
    ),
    (
        "f() { echo $(case $1 in -v) echo verbose;; *) echo quiet;; esac); }; f -v; f x",
        "verbose\nquiet\n",
        "",
        0,
    ),
]

# mksh's ${name/pattern/replacement} and ${name:offset:length}; patterns glob inside "…"
SUBSTITUTION_CASES = [
    (
        "x=hello; echo ${x/l/L} ${x//l/L} ${x:1:3} ${x:2} ${x: -2} ${x/#h/H} ${x/%o/O}",
        "heLlo heLLo ell llo lo Hello hellO\n",
        "",
        0,
    ),
    (
        (
            'x=hello; echo ${x:10}; echo ${x:-3}; echo "${x/l}" "${x//l}"; p=l; '
            'echo ${x//$p/X} ${x//"l"/Y} ${x//[eo]/_}'
        ),
        "\nhello\nhelo heo\nheXXo heYYo h_ll_\n",
        "",
        0,
    ),
    (
        ('y="a/b/c"; echo ${y//\\//:}; x=hello; echo ${x/#z/Q} ${x/*/all} ${x/l*/L} "${x:0:1}"'),
        "a:b:c\nhello all heL h\n",
        "",
        0,
    ),
    (
        ('s="key = value"; echo "[${s%% *}]" "[${s#* = }]" "[${s// /}]"; n=3; echo ${s:n:n+1}'),
        "[key] [value] [key=value]\n= v\n",
        "",
        0,
    ),
    (
        'x=a.b; echo "${x%".b"}" "${x%\'.*\'}" "${x%\\.*}" "${x#"a"}"',
        "a a.b a .b\n",
        "",
        0,
    ),
]

# [[ … ]] (patterns on the right of ==, &&/||, no splitting), unquoted expansions as
# patterns, &>, $RANDOM and $SECONDS
BASH_LIKE_CASES = [
    (
        (
            "[[ abc == a* ]] && echo glob; [[ -n $u || 1 -eq 1 ]] && echo or; "
            'x="a b"; [[ $x = "a b" ]] && echo nosplit'
        ),
        "glob\nor\nnosplit\n",
        "",
        0,
    ),
    (
        (
            '[[ abc == "a*" ]] || echo quoted; [[ b > a ]] && echo gt; [[ ! -d '
            "/nope && ( 1 -lt 2 ) ]] && echo paren"
        ),
        "quoted\ngt\nparen\n",
        "",
        0,
    ),
    (
        (
            "v=/sdcard/x.txt; if [[ $v == */*.txt && -z $none ]]; then echo "
            "match; fi; [[ $v != *.jpg ]]; echo $?"
        ),
        "match\n0\n",
        "",
        0,
    ),
    (
        (
            "p='*.txt'; [[ a.txt == $p ]] && echo var-pattern; [[ a.txt == \"$p\" "
            "]] || echo quoted-var"
        ),
        "var-pattern\nquoted-var\n",
        "",
        0,
    ),
    (
        '[[ -z "" ]]; echo $?; [[ x ]]; echo $?; [[ "" ]]; echo $?',
        "0\n0\n1\n",
        "",
        0,
    ),
    (
        (
            'p="*.txt"; case a.txt in $p) echo case-pattern;; esac; case a.txt in '
            '"$p") echo no;; *) echo quoted;; esac; x=a.txt; echo ${x%$p}x '
            '"${x%"$p"}"'
        ),
        "case-pattern\nquoted\nax a.txt\n",
        "",
        0,
    ),
    (
        "echo x &> /dev/null; echo $((RANDOM >= 0 && RANDOM < 32768)) $SECONDS",
        "1 0\n",
        "",
        0,
    ),
]
# here-strings, sh's options and $0, cd -, print
MORE_CASES = [
    # set -e is off for what a non-final command of an && / || list or a `!` runs
    (
        "set -e; f() { false; echo after; }; f || echo handled; echo end",
        "after\nend\n",
        "",
        0,
    ),
    (
        "set -e; f() { false; echo after; }; if f; then echo yes; fi; ! f; echo end2",
        "after\nyes\nafter\nend2\n",
        "",
        0,
    ),
    (
        "set -e; f() { false; echo after; }; f; echo not reached",
        "",
        "",
        1,
    ),
    (
        "set -e; g() { return 3; }; g && echo yes; echo end",
        "end\n",
        "",
        0,
    ),
    (
        "set -e; { false; echo in-group; } || echo rescued; echo end",
        "in-group\nend\n",
        "",
        0,
    ),
    (
        (
            'print "a\\tb\\x41\\0101\\c no"; print; print -n x; print -r "a\\nb"; '
            "print -- -n; print -u2 err 2>&1; print -R -n y; echo; print "
            '"\\q\\\\"'
        ),
        "a\tbAA no\nxa\\nb\n-n\nerr\ny\n\\q\\\n",
        "",
        0,
    ),
    (
        (
            'x=world; cat <<< "hello $x"; read a b <<< "1 2"; echo $b; cat '
            '<<<unquoted; sh <<< "echo from sh"; cat 0<<<fd'
        ),
        "hello world\n2\nunquoted\nfrom sh\nfd\n",
        "",
        0,
    ),
    (
        "sh -c 'echo $0-$1' zero one; sh -ec 'false; echo no'; echo $?; sh -e -c 'echo yes'",
        "zero-one\n1\nyes\n",
        "",
        0,
    ),
    (
        "echo 'echo in $1' | sh -s arg",
        "in arg\n",
        "",
        0,
    ),
    (
        "cd /; cd /; cd -; echo $OLDPWD",
        "/\n/\n",
        "",
        0,
    ),
]

# everyday idioms: loops, arithmetic, "$@" and $*, $(…) with exit, ${#@}, traps
IDIOM_CASES = [
    # read -d, -n, -N, -t (accepted), --
    (
        (
            "printf 'abc:def\\nghi\\n' | { read -d : x; echo \"[$x]\"; read -n 2 "
            'y; echo "[$y]"; read -N 3 z; echo "[$z]"; read -t 1 w; echo "[$w] '
            '$?"; }'
        ),
        "[abc]\n[de]\n[f\ng]\n[hi] 0\n",
        "",
        0,
    ),
    (
        "printf 'a b c\\n' | { read -r -- x y; echo \"[$x][$y]\"; }",
        "[a][b c]\n",
        "",
        0,
    ),
    (
        "printf 'one' | { read -n 10 x; echo \"[$x] $?\"; }",
        "[one] 0\n",
        "",
        0,
    ),
    (
        "printf 'k=v\\n' | { IFS== read -r -d '' k v; echo \"[$k][$v]\"; }",
        "[k][v\n]\n",
        "",
        0,
    ),
    (
        'for f in a b c; do echo -n "$f,"; done; echo',
        "a,b,c,\n",
        "",
        0,
    ),
    (
        "count=0; for i in $(seq 1 5); do count=$((count + i)); done; echo $count",
        "15\n",
        "",
        0,
    ),
    (
        'x="  padded  "; echo "[${x}]" [$x]',
        "[  padded  ] [ padded ]\n",
        "",
        0,
    ),
    (
        "a=1 b=2; echo $((a+b)) $((a*b)) $(( (a+b) * 2 )); : $((a += 5)); echo $a",
        "3 2 6\n6\n",
        "",
        0,
    ),
    (
        ('set -- "a b" c; for x in "$@"; do echo "<$x>"; done; for x in $*; do echo "[$x]"; done'),
        "<a b>\n<c>\n[a]\n[b]\n[c]\n",
        "",
        0,
    ),
    (
        'result=$(echo hi; exit 3); echo "$result $?"',
        "hi 3\n",
        "",
        0,
    ),
    (
        'if [ -z "${UNSET_VAR:-}" ]; then echo unset; fi',
        "unset\n",
        "",
        0,
    ),
    (
        'echo "$(echo "nested \\"quotes\\"")"',
        'nested "quotes"\n',
        "",
        0,
    ),
    (
        ('v=$(printf \'%s\\n\' one two three | while read -r l; do echo "x$l"; done); echo "$v"'),
        "xone\nxtwo\nxthree\n",
        "",
        0,
    ),
    (
        'f() { echo "$#:$*"; }; f; f ""; f "" ""',
        "0:\n1:\n2: \n",
        "",
        0,
    ),
    (
        "x=5; y=${x:-7}; z=${w:=9}; echo $y $z $w",
        "5 9 9\n",
        "",
        0,
    ),
    (
        "trap 'echo trapped' EXIT; echo body",
        "body\ntrapped\n",
        "",
        0,
    ),
    (
        "echo a\\\nb",
        "ab\n",
        "",
        0,
    ),
    (
        "echo 'single '\"double\"' mixed'",
        "single double mixed\n",
        "",
        0,
    ),
    (
        "i=0; while [ $i -lt 3 ]; do i=`expr $i + 1`; done; echo $i",
        "3\n",
        "",
        0,
    ),
    (
        'test -n "$HOME" && echo home-set',
        "home-set\n",
        "",
        0,
    ),
    (
        'arr="x y z"; set -- $arr; echo $# $2',
        "3 y\n",
        "",
        0,
    ),
    (
        "echo ${#@} ${#*}; set -- a b; echo ${#@}",
        "0 0\n2\n",
        "",
        0,
    ),
    (
        "echo $(( 10 / 3 )) $(( 10 % 3 )) $(( -10 / 3 )) $(( 2 ** 3 ))",
        "",
        "/system/bin/sh:  2 ** 3 : unexpected '*'\n",
        1,
    ),
    (
        "{ echo a; echo b; } > /dev/null; echo $?",
        "0\n",
        "",
        0,
    ),
    (
        'n=$(echo "abc" | wc -c); echo $n',
        "4\n",
        "",
        0,
    ),
    (
        's="hello world"; echo ${s% *} ${s#* } ${#s}',
        "hello world 11\n",
        "",
        0,
    ),
    (
        (
            "false; x=1; echo $?; false; x=$?; echo $x; x=$(false); echo $?; "
            "$(exit 4); echo $?; x=$(exit 5) y=1; echo $?"
        ),
        "0\n1\n1\n4\n5\n",
        "",
        0,
    ),
]

ALL_CASES = [
    *MKSH_CASES,
    *TEST_CASES,
    *IFS_CASES,
    *SUBSTITUTION_CASES,
    *BASH_LIKE_CASES,
    *MORE_CASES,
    *IDIOM_CASES,
]


@pytest.mark.parametrize(
    ("script", "out", "err", "status"),
    ALL_CASES,
    ids=[c[0][:50] for c in ALL_CASES],
)
def test_scripts_behave_as_under_mksh(
    tmp_path: Path, script: str, out: str, err: str, status: int
) -> None:
    result = run(make_userland(tmp_path), script)
    assert (result.out, result.err, result.status) == (out, err, status)


ULIMIT_ALL = """\
-t: time(cpu-seconds)     unlimited
-f: file(blocks)          unlimited
-c: coredump(blocks)      0
-d: data(KiB)             unlimited
-s: stack(KiB)            8192
-l: lockedmem(KiB)        64
-n: nofiles(descriptors)  32768
-p: processes             25946
-i: sigpending            25946
-q: msgqueue(bytes)       819200
-e: maxnice               40
-R: rttime(ms)            unlimited
-r: maxrtprio             0
-v: address-space(KiB)    unlimited
-x: filelocks             unlimited
"""


def test_ulimit_prints_and_lowers_the_limits_of_an_adb_shell(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    assert run(userland, "ulimit -a").out == ULIMIT_ALL
    assert run(userland, "ulimit; ulimit -n; ulimit -c; ulimit -Hs").out == (
        "unlimited\n32768\n0\nunlimited\n"
    )
    lowered = run(userland, "ulimit -n 1024; ulimit -n; ulimit -Hn; (ulimit -n 4); ulimit -n")
    assert lowered.out == "1024\n1024\n1024\n"
    raised = run(userland, "ulimit -n 40000; echo $?")
    assert raised.out == "1\n"
    assert raised.err == (
        "/system/bin/sh: ulimit: 40000 exceeds allowable nofiles(descriptors) limit\n"
    )
    soft_only = run(userland, "ulimit -Sc 10; ulimit -c; ulimit -Hc")
    assert soft_only.out == "10\nunlimited\n"
    bad = run(userland, "ulimit -z; echo $?; ulimit -n lots; echo $?")
    assert bad.out == "1\n1\n"
    assert bad.err == (
        "/system/bin/sh: ulimit: -z: unknown option\n"
        "/system/bin/sh: ulimit: usage: ulimit [-acdefHilnpqRrSstvx] [value]\n"
        "/system/bin/sh: ulimit: invalid nofiles(descriptors) limit: lots\n"
    )


def test_a_function_runs_in_the_shell_and_sees_its_caller(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    result = run(userland, "f() { cd /sdcard; X=set; }; f; pwd; echo $X; type f; command -v f")
    assert result.out == "/sdcard\nset\nf is a function\nf\n"
    assert run(userland, "f() { echo fn; }; command f").status == 127  # command skips it
    assert run(userland, "exit() { echo fn; }; exit 3").status == 3  # special built-ins first


def test_runaway_recursion_ends_the_shell_with_an_error(tmp_path: Path) -> None:
    result = run(make_userland(tmp_path), "f() { f; }; f; echo not reached")
    assert result.status == 1
    assert result.out == ""
    assert result.err == "/system/bin/sh: f: too many nested function calls\n"


def test_functions_here_documents_and_dot_scripts_work_together(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    script = (
        "cat > /data/local/tmp/lib.sh <<'EOF'\n"
        'greet() { echo "hello $1"; return 7; }\n'
        "EOF\n"
        ". /data/local/tmp/lib.sh; greet you; echo $?"
    )
    assert run(userland, script).out == "hello you\n7\n"
    sourced = run(userland, "echo 'return 4; echo no' > /data/local/tmp/r.sh; "
                  ". /data/local/tmp/r.sh; echo $?")  # fmt: skip
    assert sourced.out == "4\n"


def test_read_takes_one_line_even_when_it_is_huge(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    line = b"x" * 5000 + b" tail\nnext\n"
    result = run(userland, 'read -r a b; read c; echo "${#a} $b $c"', stdin=line)
    assert result.out == "5000 tail next\n"


def test_test_reads_the_devices_files(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    setup = (
        "cd /data/local/tmp && echo x > f && : > empty && chmod 755 f && ln -s f link "
        "&& mkdir d && touch -d 2020-01-01 old"
    )
    assert run(userland, setup).status == 0
    checks = (
        "cd /data/local/tmp; for t in '-f f' '-s f' '-s empty' '-x f' '-x empty' '-L link' "
        "'-h f' '-d d' '-d link' '-e nope' '-r f' 'f -nt old' 'f -ot old' 'link -ef f' "
        "'-O f' '-p f'; do [ $t ]; echo \"$t $?\"; done"
    )
    assert run(userland, checks).out == (
        "-f f 0\n-s f 0\n-s empty 1\n-x f 0\n-x empty 1\n-L link 0\n-h f 1\n-d d 0\n"
        "-d link 1\n-e nope 1\n-r f 0\nf -nt old 0\nf -ot old 1\nlink -ef f 0\n-O f 0\n"
        "-p f 1\n"
    )
    assert run(userland, "[ -t 0 ]; echo $?").out == "1\n"  # no terminal


def test_exec_with_only_redirections_redirects_the_rest_of_the_script(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    script = (
        "cd /data/local/tmp; echo before; exec > log.txt 2>&1; echo into log; ls /nope; "
        "{ exec 2>/dev/null; }; ls /gone; (exec >/dev/null); echo still in log"
    )
    result = run(userland, script)
    assert (result.out, result.err) == ("before\n", "")
    assert run(userland, "cat /data/local/tmp/log.txt").out == (
        "into log\nls: /nope: No such file or directory\nstill in log\n"
    )
    assert run(userland, "echo next line").out == "next line\n"  # a new command line


def test_redirections_make_no_missing_directory(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    script = (
        "cd /data/local/tmp; echo x > /nope/dir/f; echo $?; echo x > f; echo y > f/g; "
        "{ echo out; echo err >&2; } &> both; cat both; ls /nope"
    )
    result = run(userland, script)
    assert result.out == "1\nout\nerr\n"
    assert result.err == (
        "/system/bin/sh: can't create /nope/dir/f: No such file or directory\n"
        "/system/bin/sh: can't create f/g: Not a directory\n"
        "ls: /nope: No such file or directory\n"
    )


def test_cd_dash_goes_back_and_a_script_names_itself(tmp_path: Path) -> None:
    userland = make_userland(tmp_path)
    result = run(userland, "cd /sdcard; cd /data/local/tmp; cd -; pwd; echo $OLDPWD")
    assert result.out == "/sdcard\n/sdcard\n/data/local/tmp\n"
    script = "echo 'echo $0 $1 $#' > /data/local/tmp/s.sh; sh -x /data/local/tmp/s.sh a"
    ran = run(userland, script)
    assert (ran.out, ran.err) == (
        "/data/local/tmp/s.sh a 1\n",
        "+ echo /data/local/tmp/s.sh a 1\n",
    )
    assert run(userland, "sh -q -c true").err == "sh: -q: unknown option\n"


def test_trimming_a_long_value_takes_one_match_not_one_per_cut(tmp_path: Path) -> None:
    """${x%.*} on a 200 KB value (a file read with $(cat)): one regular-expression match;
    a match per possible cut took hours."""
    userland = make_userland(tmp_path)
    big = "/data/local/tmp/big"
    assert (
        run(userland, f"head -c 200000 /dev/zero | tr '\\0' a > {big}; echo .e >> {big}").status
        == 0
    )
    script = (
        f"x=$(cat {big}); y=${{x%.*}}; z=${{x##*a}}; w=${{x%%a*}}; v=${{x#a}}; u=${{x/a/b}}; "
        "n=${x#*z}; m=${x%z*}; echo ${#x} ${#y} $z ${#w} ${#v} ${#u} ${#n} ${#m}"
    )
    outcome: list[str] = []
    worker = threading.Thread(target=lambda: outcome.append(run(userland, script).out), daemon=True)
    worker.start()
    worker.join(60)
    assert outcome == ["200002 200000 .e 0 200001 200002 200002 200002\n"]


def test_nesting_deeper_than_the_simulator_allows_ends_the_script_cleanly(
    tmp_path: Path,
) -> None:
    userland = make_userland(tmp_path)
    deep = (
        "f() { if [ $1 -gt 0 ]; then for x in 1; do case a in a) { f $(($1 - 1)); };; esac; "
        "done; fi; }; f 1000; echo not reached"
    )
    result = run(userland, deep)
    assert (result.out, result.status) == ("", 1)
    assert result.err in (
        "/system/bin/sh: f: too many nested function calls\n",
        "/system/bin/sh: commands nested too deeply\n",
    )
    parens = run(userland, "( " * 3000 + "echo hi" + " )" * 3000)  # `((` would be arithmetic
    assert (parens.err, parens.status) == (
        "/system/bin/sh: syntax error: commands nested too deeply\n",
        1,
    )
    assert run(userland, "echo $((1 + 1))").out == "2\n"  # the device goes on
