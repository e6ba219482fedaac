"""Shell-level utilities: echo, test, true/false, sleep, sh, id, whoami, env, date… (printf
is in printf.py)."""

from __future__ import annotations

import re
import time

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.commands.printf import format_printf, printf
from adbwire.testing.userland.shell.interp import CommandFn, ExitShell, Invocation, Shell
from adbwire.testing.userland.special_files import stat_path

SHELL_GROUPS = (
    "1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),"
    "1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
    "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs)"
)
MAX_SLEEP_SECONDS = 3600.0
_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|[abcefnrtv\\])")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
}


def _unescape(text: str) -> tuple[str, bool]:
    """mksh/print backslash escapes; returns (text, stop) where stop means `\\c` was seen."""
    stop = False

    def replace(match: re.Match[str]) -> str:
        nonlocal stop
        code = match.group(1)
        if code == "c":
            stop = True
            return "\x00STOP"
        if code.startswith("0"):
            return chr(int(code[1:] or "0", 8))
        return _SIMPLE_ESCAPES[code]

    result = _ESCAPE.sub(replace, text)
    if stop:
        result = result.split("\x00STOP", 1)[0]
    return result, stop


def echo(inv: Invocation) -> int:
    args = inv.args
    newline, escapes = True, True
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for flag in args[0][1:]:
            newline = newline and flag != "n"
            escapes = {"e": True, "E": False}.get(flag, escapes)
        args = args[1:]
    text = " ".join(args)
    if escapes and "\\" in text:
        text, stop = _unescape(text)
        newline = newline and not stop
    inv.out(text + "\n" if newline else text)
    return 0


def _test(inv: Invocation, args: list[str]) -> int:
    if args and args[0] == "!":
        return 1 - _test(inv, args[1:])
    if not args:
        return 1
    if len(args) == 1:
        return 0 if args[0] else 1
    if len(args) == 2:
        op, operand = args
        if op in ("-z", "-n"):
            return 0 if (operand == "") == (op == "-z") else 1
        if op == "-t":  # a terminal only when the session asked for a pty
            return 0 if operand in ("0", "1", "2") and inv.shell.pty else 1
        try:
            found = stat_path(inv.shell, inv.path(operand), follow=op != "-L")
            mode, size = found.mode, found.size
        except FsError:  # a missing file is simply false
            return 1
        checks = {
            "-e": True,
            "-f": mode & 0o170000 == 0o100000,
            "-d": mode & 0o170000 == 0o040000,
            "-s": size > 0,
            "-r": True,
            "-w": True,
            "-x": bool(mode & 0o111),
            "-L": mode & 0o170000 == 0o120000,
        }
        return 0 if checks.get(op, False) else 1
    left, op, right = args[0], args[1], args[2]
    if op in ("=", "=="):
        return 0 if left == right else 1
    if op == "!=":
        return 0 if left != right else 1
    numeric = {
        "-eq": int.__eq__,
        "-ne": int.__ne__,
        "-lt": int.__lt__,
        "-le": int.__le__,
        "-gt": int.__gt__,
        "-ge": int.__ge__,
    }
    if op in numeric:
        try:
            return 0 if numeric[op](int(left), int(right)) else 1
        except ValueError:
            inv.err(f"test: bad number '{left if not left.lstrip('-').isdigit() else right}'\n")
            return 2
    return 2


def test(inv: Invocation) -> int:
    args = list(inv.args)
    if inv.name == "[":
        if not args or args[-1] != "]":
            return inv.fail("missing ]", 2)
        args = args[:-1]
    return _test(inv, args)


def sleep(inv: Invocation) -> int:
    units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
    total = 0.0
    for arg in inv.args:
        match = re.fullmatch(r"(\d*\.?\d+)([smhd]?)", arg)
        if match is None:
            return inv.fail(f"Not a number '{arg}'")
        total += float(match.group(1)) * units[match.group(2) or "s"]
    deadline = time.monotonic() + min(total, MAX_SLEEP_SECONDS)
    while not inv.cancelled:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(remaining, 0.02))
    return 0


_SH_OPTIONS = {"e": "errexit", "x": "xtrace", "u": "nounset"}


def sh(inv: Invocation) -> int:
    """`sh [-eux] [-o OPTION] [-c COMMAND [NAME [ARG…]] | SCRIPT [ARG…] | -s [ARG…]]`: a
    child shell; without a command or a script it reads commands from stdin."""
    device = inv.device
    args = list(inv.args)
    parent = inv.shell
    child = Shell(
        device,
        parent.vars,
        cwd=parent.cwd,
        process=parent.child,  # the process the parent started for this command
        cancelled=parent.outer_cancelled,
    )
    child.pty = parent.pty
    command_mode = from_stdin = False
    while args and args[0][:1] in ("-", "+") and len(args[0]) > 1 and args[0] != "--":
        flags = args.pop(0)
        for letter in flags[1:]:
            if letter == "c":
                command_mode = True
            elif letter == "s":
                from_stdin = True
            elif letter == "o" and args:
                child.options.add(args.pop(0))
            elif letter in _SH_OPTIONS:
                child.options.add(_SH_OPTIONS[letter])
            elif letter not in "il":
                return inv.fail(f"{flags}: unknown option", 2)
    if args[:1] == ["--"]:
        args.pop(0)
    try:
        if command_mode:
            if not args:
                inv.err(f"{inv.argv[0]}: -c: option requires an argument\n")
                return 1
            child.arg0 = args[1] if len(args) > 1 else inv.argv[0]
            child.set_positional(args[2:])
            return child.run_source(args[0], inv.streams)
        if args and not from_stdin:
            with device.files.open_read(inv.path(args[0])) as handle:
                source = handle.read().decode("utf-8", "replace")
            child.arg0 = args[0]
            child.set_positional(args[1:])
            return child.run_source(source, inv.streams)
        child.set_positional(args)
        return child.run_source(inv.read_stdin().decode("utf-8", "replace"), inv.streams)
    except ExitShell as exc:
        return exc.code
    except FsError as exc:
        inv.err(f"{inv.argv[0]}: {args[0]}: {exc.message}\n")
        return 127


def ident(inv: Invocation) -> int:
    root = inv.device.state.root
    uid, name, context = (0, "root", "su") if root else (2000, "shell", "shell")
    if "-u" in inv.args or "-un" in inv.args or "-nu" in inv.args:
        inv.out(f"{name if 'n' in ''.join(inv.args) else uid}\n")
        return 0
    inv.out(
        f"uid={uid}({name}) gid={uid}({name}) groups={uid}({name}),{SHELL_GROUPS} "
        f"context=u:r:{context}:s0\n"
    )
    return 0


def whoami(inv: Invocation) -> int:
    inv.out("root\n" if inv.device.state.root else "shell\n")
    return 0


def env(inv: Invocation) -> int:
    inv.out("".join(f"{k}={v}\n" for k, v in inv.shell.vars.items() if k != "IFS"))
    return 0


def pwd(inv: Invocation) -> int:
    inv.out(inv.shell.cwd + "\n")
    return 0


def uname(inv: Invocation) -> int:
    props = inv.device.state.properties
    kernel = props.get("ro.kernel.version", "6.1.23-android14-4-00257-g7e35917775b8-ab9964412")
    machine = props.get("ro.product.cpu.abi", "x86_64").replace("arm64-v8a", "aarch64")
    if "-a" in inv.args:
        inv.out(
            f"Linux localhost {kernel} #1 SMP PREEMPT Mon Apr 17 20:50:58 UTC 2023 "
            f"{machine} Toybox\n"
        )
    elif "-r" in inv.args:
        inv.out(kernel + "\n")
    elif "-m" in inv.args:
        inv.out(machine + "\n")
    else:
        inv.out("Linux\n")
    return 0


def date(inv: Invocation) -> int:
    now = inv.device.state.clock.now()
    fmt = next((a[1:] for a in inv.args if a.startswith("+")), "%a %b %e %H:%M:%S UTC %Y")
    inv.out(now.strftime(fmt.replace("%N", f"{now.microsecond * 1000:09d}")) + "\n")
    return 0


def true(inv: Invocation) -> int:
    return 0


def false(inv: Invocation) -> int:
    return 1


__all__ = ["COMMANDS", "format_printf"]

COMMANDS: dict[str, CommandFn] = {
    "echo": echo,
    "printf": printf,
    "test": test,
    "[": test,
    "true": true,
    "false": false,
    "sleep": sleep,
    "sh": sh,
    "mksh": sh,
    "id": ident,
    "whoami": whoami,
    "env": env,
    "printenv": env,
    "pwd": pwd,
    "uname": uname,
    "date": date,
}
