"""Toybox find (a useful subset) and xargs.

find: paths, then -name/-iname/-path PATTERN, -type [fdlcbps], -maxdepth/-mindepth N,
-size [+-]N[ckMG], -newer FILE, -empty, -print, -print0, -delete, -exec CMD {} ; and +,
combined with implicit and, -a, -o, ! / -not and ( ). Directories come before their
contents (after them with -depth or -delete), entries in name order.
"""

from __future__ import annotations

import fnmatch
import posixpath
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from adbwire.testing.device_files import FileStat, FsError
from adbwire.testing.userland.process import BytesReader, Streams
from adbwire.testing.userland.shell.interp import CommandFn, Invocation

MAX_XARGS_ARGS = 4096

Test = Callable[[str, FileStat, int], bool]


class _Usage(Exception):
    pass


@dataclass
class _Plan:
    maxdepth: int | None = None
    mindepth: int = 0
    depth_first: bool = False
    has_action: bool = False
    batches: list[tuple[list[str], list[str]]] = field(default_factory=list)


_TYPES = {"f": 0o100000, "d": 0o040000, "l": 0o120000, "c": 0o020000, "b": 0o060000,
          "p": 0o010000, "s": 0o140000}  # fmt: skip


class _Parser:
    def __init__(self, inv: Invocation, tokens: list[str], plan: _Plan) -> None:
        self.inv = inv
        self.tokens = tokens
        self.plan = plan

    def parse(self) -> Test:
        if not self.tokens:
            return lambda path, st, depth: True
        test = self._or()
        if self.tokens:
            raise _Usage(f"bad arg '{self.tokens[0]}'")
        return test

    def _or(self) -> Test:
        left = self._and()
        while self.tokens and self.tokens[0] in ("-o", "-or"):
            self.tokens.pop(0)
            right = self._and()
            left = _either(left, right)
        return left

    def _and(self) -> Test:
        left = self._not()
        while self.tokens and self.tokens[0] not in ("-o", "-or", ")"):
            if self.tokens[0] in ("-a", "-and"):
                self.tokens.pop(0)
            right = self._not()
            left = _both(left, right)
        return left

    def _not(self) -> Test:
        if self.tokens and self.tokens[0] in ("!", "-not"):
            self.tokens.pop(0)
            inner = self._not()
            return lambda path, st, depth: not inner(path, st, depth)
        if self.tokens and self.tokens[0] == "(":
            self.tokens.pop(0)
            inner = self._or()
            if not self.tokens or self.tokens.pop(0) != ")":
                raise _Usage("missing ')'")
            return inner
        return self._primary()

    def _arg(self, name: str) -> str:
        if not self.tokens:
            raise _Usage(f"'{name}' needs 1 arg")
        return self.tokens.pop(0)

    def _primary(self) -> Test:
        if not self.tokens:
            raise _Usage("missing expression")
        name = self.tokens.pop(0)
        plan = self.plan
        if name in ("-name", "-iname"):
            pattern = self._arg(name)
            fold = name == "-iname"
            return lambda path, st, depth: _glob(posixpath.basename(path) or path, pattern, fold)
        if name in ("-path", "-wholename", "-ipath"):
            pattern = self._arg(name)
            return lambda path, st, depth: _glob(path, pattern, name == "-ipath")
        if name == "-type":
            kinds = self._arg(name).split(",")
            if any(kind not in _TYPES for kind in kinds):
                raise _Usage(f"bad -type '{','.join(kinds)}'")
            wanted = {_TYPES[kind] for kind in kinds}
            return lambda path, st, depth: st.mode & 0o170000 in wanted
        if name in ("-maxdepth", "-mindepth"):
            value = self._arg(name)
            if not value.isdigit():
                raise _Usage(f"bad {name} '{value}'")
            if name == "-maxdepth":
                plan.maxdepth = int(value)
            else:
                plan.mindepth = int(value)
            return lambda path, st, depth: True
        if name == "-depth":
            plan.depth_first = True
            return lambda path, st, depth: True
        if name == "-empty":
            return self._empty
        if name == "-size":
            return _size_test(self._arg(name))
        if name == "-newer":
            reference = self.inv.device.files.stat(self.inv.path(self._arg(name))).mtime
            return lambda path, st, depth: st.mtime > reference
        if name in ("-print", "-print0"):
            plan.has_action = True
            end = "\0" if name == "-print0" else "\n"
            return lambda path, st, depth: self._emit(path + end)
        if name == "-delete":
            plan.has_action = True
            plan.depth_first = True
            return self._delete
        if name in ("-exec", "-ok"):
            plan.has_action = True
            return self._exec()
        raise _Usage(f"bad arg '{name}'")

    def _emit(self, text: str) -> bool:
        self.inv.out(text)
        return True

    def _empty(self, path: str, st: FileStat, depth: int) -> bool:
        if st.is_dir:
            return not self.inv.device.files.listdir(self.inv.path(path))
        return st.is_file and st.size == 0

    def _delete(self, path: str, st: FileStat, depth: int) -> bool:
        try:
            self.inv.device.files.remove(self.inv.path(path))
        except FsError as exc:
            self.inv.err(f"find: {path}: {exc.message}\n")
            return False
        return True

    def _exec(self) -> Test:
        command: list[str] = []
        while self.tokens and self.tokens[0] not in (";", "+"):
            command.append(self.tokens.pop(0))
        if not self.tokens or not command:
            raise _Usage("-exec needs ; or +")
        batched = self.tokens.pop(0) == "+"
        if batched:
            if command[-1] != "{}":
                raise _Usage("-exec + needs {} last")
            batch: tuple[list[str], list[str]] = (command[:-1], [])
            self.plan.batches.append(batch)

            def collect(path: str, st: FileStat, depth: int) -> bool:
                batch[1].append(path)
                return True

            return collect

        def run(path: str, st: FileStat, depth: int) -> bool:
            argv = [word.replace("{}", path) for word in command]
            return self.inv.shell.execute(argv, self.inv.streams) == 0

        return run


def _either(left: Test, right: Test) -> Test:
    return lambda path, st, depth: left(path, st, depth) or right(path, st, depth)


def _both(left: Test, right: Test) -> Test:
    return lambda path, st, depth: left(path, st, depth) and right(path, st, depth)


def _glob(text: str, pattern: str, fold: bool) -> bool:
    if fold:
        text, pattern = text.lower(), pattern.lower()
    return fnmatch.fnmatchcase(text, pattern)


def _size_test(spec: str) -> Test:
    sign = spec[0] if spec[:1] in ("+", "-") else ""
    body = spec[len(sign) :]
    units = {"c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30}
    unit = units.get(body[-1:], 512)
    digits = body[:-1] if body[-1:] in units else body
    if not digits.isdigit():
        raise _Usage(f"bad -size '{spec}'")
    count = int(digits)

    def test(path: str, st: FileStat, depth: int) -> bool:
        blocks = (st.size + unit - 1) // unit
        if sign == "+":
            return blocks > count
        if sign == "-":
            return blocks < count
        return blocks == count

    return test


def find(inv: Invocation) -> int:
    args = list(inv.args)
    while args and args[0] in ("-H", "-L", "-P"):
        args.pop(0)
    roots: list[str] = []
    while args and not (args[0].startswith("-") or args[0] in ("!", "(")):
        roots.append(args.pop(0))
    plan = _Plan()
    try:
        test = _Parser(inv, args, plan).parse()
    except _Usage as exc:
        return inv.fail(str(exc))
    except FsError as exc:
        return inv.fail(f"{exc.path}: {exc.message}")
    status = 0
    for root in roots or ["."]:
        try:
            st = inv.device.files.stat(inv.path(root), follow=False)
        except FsError as exc:
            inv.err(f"find: {root}: {exc.message}\n")
            status = 1
            continue
        status |= _visit(inv, root, st, 0, test=test, plan=plan)
    for command, paths in plan.batches:
        for start in range(0, len(paths), MAX_XARGS_ARGS):
            if inv.shell.execute([*command, *paths[start : start + MAX_XARGS_ARGS]], inv.streams):
                status = 1
    return status


def _visit(inv: Invocation, path: str, st: FileStat, depth: int, *, test: Test, plan: _Plan) -> int:
    if inv.cancelled:
        return 1
    status = 0

    def check() -> None:
        if depth >= plan.mindepth and test(path, st, depth) and not plan.has_action:
            inv.out(path + "\n")

    if not plan.depth_first:
        check()
    if st.is_dir and (plan.maxdepth is None or depth < plan.maxdepth):
        try:
            entries = inv.device.files.listdir(inv.path(path))
        except FsError as exc:
            inv.err(f"find: {path}: {exc.message}\n")
            entries = []
            status = 1
        for name, child in entries:
            child_path = path.rstrip("/") + "/" + name if path != "/" else "/" + name
            status |= _visit(inv, child_path, child, depth + 1, test=test, plan=plan)
    if plan.depth_first:
        check()
    return status


def xargs(inv: Invocation) -> int:
    parsed = _xargs_options(inv)
    if parsed is None:
        return 1
    per_call, null, replace, command = parsed
    data = inv.read_stdin().decode("utf-8", "replace")
    if null:
        items = [item for item in data.split("\0") if item]
    elif replace is not None:
        items = [line for line in data.split("\n") if line]
    else:
        try:
            items = shlex.split(data)
        except ValueError as exc:
            return inv.fail(str(exc))
    command = command or ["echo"]
    if replace is not None:
        calls = [[word.replace(replace, item) for word in command] for item in items]
    else:
        size = per_call or MAX_XARGS_ARGS
        calls = [command + items[i : i + size] for i in range(0, len(items), size)] or [command]
    status = 0
    for argv in calls:
        streams = Streams(BytesReader(b""), inv.streams.stdout, inv.streams.stderr)
        result = inv.shell.execute(argv, streams)
        if result == 127:
            return 127
        if result:
            status = 123
    return status


def _xargs_options(inv: Invocation) -> tuple[int, bool, str | None, list[str]] | None:
    args = list(inv.args)
    per_call, null, replace = 0, False, None
    while args and args[0].startswith("-") and len(args[0]) > 1:
        arg = args.pop(0)
        if arg == "-0":
            null = True
        elif arg in ("-n", "-I") and args:
            value = args.pop(0)
            if arg == "-n":
                per_call = int(value) if value.isdigit() else 0
            else:
                replace = value
        elif arg.startswith("-n") and arg[2:].isdigit():
            per_call = int(arg[2:])
        elif arg.startswith("-I"):
            replace = arg[2:]
        elif arg in ("-r", "-t", "--no-run-if-empty"):
            continue
        else:
            inv.fail(f"Unknown option '{arg}'")
            return None
    return per_call, null, replace, args


COMMANDS: dict[str, CommandFn] = {"find": find, "xargs": xargs}
