"""Text filters for pipelines: grep, wc, head, tail, sort, cut-free basics."""

from __future__ import annotations

import re

from adbwire.testing.device_files import FsError
from adbwire.testing.userland.shell.interp import CommandFn, Invocation
from adbwire.testing.userland.special_files import open_input


def _inputs(inv: Invocation, operands: list[str]) -> list[tuple[str, bytes]] | None:
    if not operands:
        return [("-", inv.read_stdin())]
    found: list[tuple[str, bytes]] = []
    for operand in operands:
        if operand == "-":
            found.append(("-", inv.read_stdin()))
            continue
        try:
            with open_input(inv.shell, operand) as handle:
                found.append((operand, handle.read()))
        except FsError as exc:
            inv.err(f"{inv.name}: {operand}: {exc.message}\n")
            return None
    return found


def _count_option(inv: Invocation, letter: str, default: int) -> tuple[int, bool, list[str]]:
    """-n N / -nN / -N / -c N parsing for head and tail; returns (count, bytes_mode, rest)."""
    count, by_bytes, rest = default, False, []
    args = list(inv.args)
    while args:
        arg = args.pop(0)
        if arg in ("-n", "-c") and args:
            count, by_bytes = int(args.pop(0).lstrip("+")), arg == "-c"
        elif re.fullmatch(r"-[nc]-?\d+", arg):
            count, by_bytes = int(arg[2:]), arg[1] == "c"
        elif re.fullmatch(r"-\d+", arg):
            count = int(arg[1:])
        else:
            rest.append(arg)
    return count, by_bytes, rest


def head(inv: Invocation) -> int:
    count, by_bytes, operands = _count_option(inv, "n", 10)
    if not operands:  # stop reading once enough came, so `yes | head -1` ends
        inv.out(_head_of_stdin(inv, count, by_bytes))
        return 0
    inputs = _inputs(inv, operands)
    if inputs is None:
        return 1
    for _, data in inputs:
        if by_bytes:
            inv.out(data[:count])
        else:
            inv.out(b"".join(data.splitlines(keepends=True)[:count]))
    return 0


def _head_of_stdin(inv: Invocation, count: int, by_bytes: bool) -> bytes:
    taken = bytearray()
    while not inv.cancelled:
        enough = len(taken) >= count if by_bytes else taken.count(b"\n") >= count
        if enough:
            break
        chunk = inv.streams.stdin.read(65536)
        if not chunk:
            break
        taken += chunk
    if by_bytes:
        return bytes(taken[:count])
    return b"".join(bytes(taken).splitlines(keepends=True)[:count])


def tail(inv: Invocation) -> int:
    count, by_bytes, operands = _count_option(inv, "n", 10)
    inputs = _inputs(inv, operands)
    if inputs is None:
        return 1
    for _, data in inputs:
        if by_bytes:
            inv.out(data[-count:] if count else b"")
        else:
            lines = data.splitlines(keepends=True)
            inv.out(b"".join(lines[-count:] if count else []))
    return 0


def wc(inv: Invocation) -> int:
    flags = {c for a in inv.args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    operands = [a for a in inv.args if not a.startswith("-") or a == "-"]
    inputs = _inputs(inv, operands)
    if inputs is None:
        return 1
    wanted = [c for c in "lwc" if c in flags] or ["l", "w", "c"]
    only_one = len(wanted) == 1 and not operands
    for name, data in inputs:
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
        if only_one:
            inv.out(f"{counts[wanted[0]]}\n")
            continue
        cells = " ".join(f"{counts[c]:>7}" if not only_one else str(counts[c]) for c in wanted)
        inv.out(cells + (f" {name}" if name != "-" else "") + "\n")
    return 0


def grep(inv: Invocation) -> int:
    args = list(inv.args)
    flags: set[str] = set()
    patterns: list[str] = []
    operands: list[str] = []
    while args:
        arg = args.pop(0)
        if arg == "-e" and args:
            patterns.append(args.pop(0))
        elif arg.startswith("-") and len(arg) > 1 and not operands:
            flags.update(arg[1:])
        else:
            operands.append(arg)
    if not patterns:
        if not operands:
            inv.err(
                "usage: grep [-EFHIabcdhilmnoqrsvwxZz] [-ABC NUM] [-m MAX] [-e REGEX]... "
                "[-f REGFILE] [FILE]...\n"
            )
            return 2
        patterns.append(operands.pop(0))
    sources = [re.escape(p) if "F" in flags else p for p in patterns]
    if "w" in flags:
        sources = [rf"\b(?:{s})\b" for s in sources]
    if "x" in flags:
        sources = [rf"^(?:{s})$" for s in sources]
    try:
        regex = re.compile(
            "|".join(f"(?:{s})" for s in sources), re.IGNORECASE if "i" in flags else 0
        )
    except re.error:
        return inv.fail("bad regex", 2)
    inputs = _inputs(inv, operands)
    if inputs is None:
        return 2
    matched = 0
    show_names = len(inputs) > 1 and "h" not in flags
    for name, data in inputs:
        count = 0
        for number, raw in enumerate(
            data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"), 1
        ):
            line = raw.decode("utf-8", "replace")
            if bool(regex.search(line)) == ("v" in flags):
                continue
            count += 1
            matched += 1
            if "q" in flags:
                return 0
            if "c" in flags or "l" in flags:
                continue
            prefix = (f"{name}:" if show_names else "") + (f"{number}:" if "n" in flags else "")
            text = " ".join(m.group(0) for m in regex.finditer(line)) if "o" in flags else line
            inv.out(f"{prefix}{text}\n")
        if "c" in flags:
            inv.out((f"{name}:" if show_names else "") + f"{count}\n")
        if "l" in flags and count:
            inv.out(f"{name if name != '-' else '(standard input)'}\n")
    return 0 if matched else 1


def _leading_number(line: str) -> float:
    match = re.match(r"\s*(-?\d+(?:\.\d+)?)", line)
    return float(match.group(1)) if match else 0.0


def sort(inv: Invocation) -> int:
    flags = {c for a in inv.args if a.startswith("-") and len(a) > 1 for c in a[1:]}
    inputs = _inputs(inv, [a for a in inv.args if not a.startswith("-")])
    if inputs is None:
        return 1
    lines = [line for _, data in inputs for line in data.decode("utf-8", "replace").splitlines()]
    if "n" in flags:
        lines.sort(key=_leading_number, reverse="r" in flags)
    else:
        lines.sort(reverse="r" in flags)
    if "u" in flags:
        lines = list(dict.fromkeys(lines))
    inv.out("".join(line + "\n" for line in lines))
    return 0


COMMANDS: dict[str, CommandFn] = {
    "grep": grep,
    "head": head,
    "tail": tail,
    "wc": wc,
    "sort": sort,
}
