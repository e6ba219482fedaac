"""A small awk: enough for the one-liners scripts pipe device output through.

Supported: `awk [-F SEP] [-v NAME=VALUE] 'PROGRAM' [FILE…]`; rules `BEGIN {…}`,
`END {…}`, `PATTERN {…}`, `PATTERN` alone and `{…}`; patterns are expressions or /RE/;
statements print (with `,` for OFS and `>` not supported), printf, NAME = / += / -= EXPR,
NAME++ / NAME--, next, `if (…) … else …`; expressions use $N, NF, NR, FS, OFS, variables,
numbers, "strings", /RE/, ( ), + - * / %, string concatenation, comparisons, ~ !~, ! && ||,
and length(), substr(), tolower(), toupper(), int(). Not supported: arrays, loops,
user functions, getline, output redirection.
"""

from __future__ import annotations

from adbwire.testing.userland.commands.awk_parse import Program, tokenize
from adbwire.testing.userland.commands.awk_runtime import AwkError, NextRecord, Run, truth
from adbwire.testing.userland.commands.textedit import read_inputs
from adbwire.testing.userland.shell.interp import CommandFn, Invocation


def awk(inv: Invocation) -> int:
    args = list(inv.args)
    separator: str | None = None
    assigns: list[tuple[str, str]] = []
    while args and args[0].startswith("-") and len(args[0]) > 1:
        arg = args.pop(0)
        if arg == "--":
            break
        if arg.startswith("-F"):
            separator = arg[2:] or (args.pop(0) if args else " ")
            separator = "\t" if separator == "\\t" else separator
        elif arg.startswith("-v"):
            name, _, value = (arg[2:] or (args.pop(0) if args else "")).partition("=")
            assigns.append((name, value))
        else:
            return inv.fail(f"Unknown option '{arg}'")
    if not args:
        return inv.fail("Need 1 argument")
    run = Run(inv, separator)
    run.vars.update(assigns)
    try:
        Program(tokenize(args[0]), run).rules()
        for block in run.begin:
            block()
        status = 0
        if run.rules or run.end:
            data, status = read_inputs(inv, args[1:])
            for line in data.decode("utf-8", "replace").splitlines():
                run.nr += 1
                run.split(line)
                try:
                    for pattern, body in run.rules:
                        if pattern is None or truth(pattern()):
                            body()
                except NextRecord:
                    continue
        for block in run.end:
            block()
    except AwkError as exc:
        inv.err(f"awk: {exc}\n")
        return 2
    return status


COMMANDS: dict[str, CommandFn] = {"awk": awk}
