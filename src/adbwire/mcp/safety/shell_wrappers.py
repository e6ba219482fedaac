"""The guard's rules for commands that run other commands: shells (`sh -c`), `su`, `eval`,
`trap`, `.`/`source`, `alias`, and wrappers (`busybox`, `env`, `nohup`, `timeout`, ...),
which hand the command they run back to the guard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from adbwire.mcp.safety.shell_paths import Cwds
from adbwire.mcp.safety.shell_rules import Outcome, cd
from adbwire.mcp.safety.shell_words import (
    DEVICE_NAMES,
    literal,
    read_word,
    show,
)
from adbwire.shell_syntax import Lit, Word

if TYPE_CHECKING:
    from adbwire.mcp.safety.shell_guard import Guard

SHELLS = frozenset({"sh", "mksh", "bash", "ash", "dash", "ksh", "zsh", "hush"})


def shell(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    index = 0
    command_mode = False
    while index < len(args):
        text = literal(args[index])
        if text is None or text == "--" or text[:1] not in ("-", "+") or len(text) < 2:
            break
        if text in ("-o", "+o", "-O", "+O"):
            index += 1
        elif text.startswith("-") and not text.startswith("--") and "c" in text:
            command_mode = True
        index += 1
    if command_mode and index < len(args):
        guard.ask(f"{program} -c runs a command line given as a string")
        _run_string(guard, program + " -c", args[index], cwds, depth)
    elif index >= len(args) and guard.stdin_script is not None:
        _here_document(guard, program, guard.stdin_script, cwds, depth)
    else:
        guard.ask(f"{program} runs commands the guard cannot see (from its input or a file)")
    return cwds, cwds


def _here_document(guard: Guard, program: str, body: Word, cwds: Cwds, depth: int) -> None:
    """`sh <<EOF`: the shell runs the here-document's lines, checked as a command line."""
    guard.ask(f"{program} runs the commands of a here-document")
    text = read_word(body)  # its substitutions were checked with the redirection
    if text is None:
        guard.ask(f"{program} reads a here-document only known when the line runs")
    else:
        guard.source(text.text, cwds, depth + 1)


def _run_string(guard: Guard, what: str, word: Word, cwds: Cwds, depth: int) -> None:
    text = read_word(word)
    if text is None:
        guard.ask(f"{what} {show(word)}: a command line only known when the line runs")
    else:
        guard.source(text.text, cwds, depth + 1)


_SU_VALUES = frozenset({"-s", "--shell", "-Z", "--context", "-t", "--target", "-g", "-G"})


def su(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    """`su [options] [user [command...]]`; the options -c/--command run a string."""
    script: Word | None = None
    user: Word | None = None
    index = 0
    while index < len(args):
        text = literal(args[index])
        if text in ("-c", "--command"):
            script = args[index + 1] if index + 1 < len(args) else DEVICE_NAMES
            index += 2
        elif text in _SU_VALUES:
            index += 2
        elif text is not None and text.startswith("--command="):
            script = Word((Lit(text.partition("=")[2], True),))
            index += 1
        elif text is not None and text.startswith("-"):
            index += 1
        elif user is None:
            user = args[index]
            index += 1
        else:
            break  # the command starts here
    command = args[index:]
    guard.home = None  # another user's home
    if script is not None:
        guard.ask("su -c runs a command line given as a string")
        _run_string(guard, "su -c", script, cwds, depth)
    elif not command and guard.stdin_script is not None:
        _here_document(guard, "su", guard.stdin_script, cwds, depth)
    elif not command:
        guard.ask("su starts a shell that reads commands from its input")
    guard.run(command, cwds, depth + 1)
    return cwds, cwds


def evaluate(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    texts = [read_word(word) for word in args]
    guard.ask(f"{program} runs a string as a command line")
    if any(text is None for text in texts):
        guard.ask(f"{program} of a value only known when the line runs")
        return None, None
    return guard.source(" ".join(text.text for text in texts if text is not None), cwds, depth + 1)


def trap(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    if args:
        guard.ask("trap runs a string as a command line later")
        _run_string(guard, "trap", args[0], None, depth)
    return cwds, cwds


def script_file(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    guard.ask(f"{program} runs commands from a file the guard cannot see")
    return None, None


def alias(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    """`alias NAME=VALUE`: asked (a name may come to run anything), its value checked as a
    command line where it is defined and, with the arguments, where the name is used."""
    for word in args:
        text = read_word(word)
        if text is None:
            if "=" in show(word):
                guard.ask("alias defines a command only known when the line runs")
            continue
        name, equals, value = text.text.partition("=")
        if not equals:
            continue
        guard.ask("alias defines a command the guard cannot follow everywhere")
        guard.aliases[name] = value
        guard.source(value, cwds, depth + 1)
    return cwds, cwds


@dataclass(frozen=True)
class Wrapper:
    """A command that runs the command after its options (and `operands` more words)."""

    values: frozenset[str] = frozenset()
    """Options that take the next word as their value."""
    operands: int = 0
    assignments: bool = False
    """NAME=value words may come before the command."""


WRAPPERS = {
    "sudo": Wrapper(
        frozenset(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"]), assignments=True
    ),
    "busybox": Wrapper(),
    "toybox": Wrapper(),
    "exec": Wrapper(frozenset({"-a"})),
    "nohup": Wrapper(),
    "time": Wrapper(),
    "builtin": Wrapper(),
    "setsid": Wrapper(),
    "command": Wrapper(),
    "env": Wrapper(
        frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), assignments=True
    ),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": Wrapper(frozenset({"-c", "-n", "-p", "-t"})),
    "timeout": Wrapper(frozenset({"-s", "--signal", "-k", "--kill-after"}), operands=1),
    # GNU's -i, -l and -e take their value attached or not at all
    "xargs": Wrapper(frozenset(["-n", "-s", "-L", "-P", "-I", "-d", "-E", "-a"])),
    "runcon": Wrapper(operands=1),
    "run-as": Wrapper(frozenset({"--user"}), operands=1),
    "chroot": Wrapper(operands=1),
    "taskset": Wrapper(operands=1),
    "stdbuf": Wrapper(frozenset({"-i", "-o", "-e"})),
}


def wrapper(guard: Guard, program: str, args: list[Word], cwds: Cwds, depth: int) -> Outcome:
    spec = WRAPPERS[program]
    options: dict[str, Word | None] = {}
    index = 0
    while index < len(args):
        text = literal(args[index])
        if text is None:
            break
        if text == "--":
            index += 1
            break
        if text.startswith("-") and len(text) > 1:
            name, equals, value = text.partition("=")
            if name in spec.values and not equals:
                options[name] = args[index + 1] if index + 1 < len(args) else None
                index += 2
            else:
                options[name] = Word((Lit(value, True),)) if equals else None
                index += 1
        elif spec.assignments and "=" in text:
            index += 1
        else:
            break
    command = args[index + spec.operands :]
    if program == "command" and ("-v" in options or "-V" in options):
        return cwds, cwds  # only says what the name would run
    if program == "xargs":
        guard.ask("xargs runs a command on words only the device knows")
        marker = options.get("-I")  # -I R: each R in the command becomes an input word
        replace = literal(marker) if marker is not None else None
        command = [DEVICE_NAMES if replace and replace in show(w) else w for w in command]
        command = [*command, DEVICE_NAMES] if command else []
    for split in ("-S", "--split-string"):
        if program == "env" and split in options:
            guard.ask("env -S runs a string as a command")
            _run_string(guard, "env -S", options[split] or DEVICE_NAMES, cwds, depth)
    chdir = options.get("-C") or options.get("--chdir")
    if program == "env" and chdir is not None:
        cwds, _ = cd(guard, "cd", [chdir], cwds, depth)
    if program in ("run-as", "chroot"):
        cwds = None  # the app's data directory, or paths inside another root
        guard.home = None
    return guard.run(command, cwds, depth + 1)
