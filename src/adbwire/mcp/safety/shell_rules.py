"""The guard's rules for commands that change directory or destroy: cd, rm, mv, cp, dd,
tee, truncate, shred, find, sm, vdc. Each notes what it finds on the guard and answers
where the shell may be afterwards (success, failure)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from adbwire.mcp.safety.shell_paths import Cwds, targets
from adbwire.mcp.safety.shell_words import DEVICE_NAMES, Text, literal, read_word, show
from adbwire.shell_syntax import Lit, Word

if TYPE_CHECKING:
    from adbwire.mcp.safety.shell_guard import Guard

Outcome = tuple[Cwds, Cwds]
Rule = Callable[["Guard", str, list[Word], Cwds, int], Outcome]

_DELETERS = frozenset({"rm", "mv", "shred", "unlink"})


def cd(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    operands = [word for word in args if literal(word) not in ("-L", "-P", "-e", "--")]
    if not operands:
        return (None if guard.home is None else frozenset({guard.home})), cwds
    text = read_word(operands[0])
    if text is None or text.globs or text.text == "-":
        return None, cwds
    found = targets(text, cwds, guard.home)
    return (None if found is None else frozenset(t.path for t in found)), cwds


def leave(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    return frozenset(), frozenset()  # nothing after it runs


def _options_and_operands(
    guard: Guard, program: str, args: list[Word], values: frozenset[str] = frozenset()
) -> tuple[dict[str, Word | None], list[Word]]:
    """Options (anywhere before `--`, as toybox reads them) and operands. An option word
    only known at run time may be any option: asked."""
    options: dict[str, Word | None] = {}
    operands: list[Word] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        text = literal(word)
        if text is None:
            if read_word(word) is None:
                guard.ask(f"{program} {show(word)}: an argument only known when the line runs")
            operands.append(word)
        elif text == "--":
            operands.extend(args[index:])
            break
        elif text.startswith("-") and text != "-":
            name, equals, value = text.partition("=")
            if name in values and not equals:
                options[name] = args[index] if index < len(args) else None
                index += 1
            else:
                options[name] = Word((Lit(value, True),)) if equals else None
        else:
            operands.append(word)
    return options, operands


def _recursive(options: dict[str, Word | None]) -> bool:
    return "--recursive" in options or any(
        not name.startswith("--") and ("r" in name or "R" in name) for name in options
    )


def rm(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    options, operands = _options_and_operands(guard, program, args)
    if _recursive(options):
        for word in operands:
            guard.removal("recursive deletion of", word, cwds)
    return cwds, cwds


def mv(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    options, operands = _options_and_operands(guard, program, args, frozenset({"-t"}))
    into = options.get("-t") or options.get("--target-directory")
    sources = operands if into is not None else operands[:-1]
    destination = into if into is not None else (operands[-1] if operands else None)
    if program == "mv":
        for word in sources:
            guard.removal("moving away", word, cwds)
    if destination is not None:
        guard.write(destination, cwds)
    return cwds, cwds


def writes_operands(
    guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int
) -> Outcome:
    """tee, truncate, shred: every operand is written."""
    _, operands = _options_and_operands(guard, program, args, frozenset({"-s", "-r", "-n"}))
    for word in operands:
        guard.write(word, cwds)
    return cwds, cwds


def dd(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    for word in args:
        text = read_word(word)
        if text is None:
            guard.ask(f"dd {show(word)}: an argument only known when the line runs")
        elif text.text.startswith("of="):
            guard.write_text(Text(text.chars[3:]), cwds)
    return cwds, cwds


_FIND_NARROWING = frozenset(
    [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-inum",
        "-samefile",
        "-newer",
        "-user",
        "-mtime",
        "-mmin",
        "-size",
        "-links",
    ]
)
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITES = {"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}


def find(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    index = 0
    while index < len(args) and literal(args[index]) in ("-H", "-L", "-P"):
        index += 1
    starts: list[Word] = []
    while index < len(args) and not _find_expression(args[index]):
        starts.append(args[index])
        index += 1
    expression = args[index:]
    deletes = narrowed = destroys = False
    index = 0
    while index < len(expression):
        word = literal(expression[index]) or ""
        if word in _FIND_NARROWING:
            narrowed = True
        elif word in _FIND_WRITES and index + 1 < len(expression):
            guard.write(expression[index + 1], cwds)
            index += _FIND_WRITES[word]
        elif word == "-delete":
            deletes = destroys = True
            guard.ask("find -delete deletes files only the device knows")
        elif word in _FIND_RUNS:
            end = index + 1
            while end < len(expression) and literal(expression[end]) not in (";", "+"):
                end += 1
            command = [DEVICE_NAMES if "{}" in show(w) else w for w in expression[index + 1 : end]]
            destroys = destroys or any(
                (literal(w) or "").rsplit("/", 1)[-1] in _DELETERS for w in command
            )
            guard.ask(f"find {word} runs a command on files only the device knows")
            guard.run(command, None if word.endswith("dir") else cwds, depth + 1)
            index = end
        index += 1
    if destroys and not narrowed:
        for start in starts or [Word((Lit(".", False),))]:
            guard.removal(f"find {'-delete' if deletes else '-exec'} over", start, cwds)
    return cwds, cwds


def _find_expression(word: Word) -> bool:
    text = literal(word)
    return text is not None and (text.startswith("-") or text in ("(", "!", ")", ","))


def storage_manager(
    guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int
) -> Outcome:
    words = [literal(word) for word in args if not (literal(word) or "-").startswith("--")]
    if program == "vdc":
        if words[:1] != ["volume"]:
            return cwds, cwds
        words = words[1:]
    if words and words[0] is None:
        guard.ask(f"{program} with a subcommand only known when the line runs")
    elif words and words[0] in ("format", "partition", "forget", "forget_partition"):
        guard.refuse(f"{program} {'volume ' if program == 'vdc' else ''}{words[0]}")
    return cwds, cwds
