"""run_shell's guard rail: three verdicts for a command line, read from its syntax tree.

A guard rail, not a sandbox. The command line is parsed as the device's shell (mksh) parses
it (`adbwire.shell_syntax`), and every command it would run is looked at, through lists,
pipelines, subshells, `if`/`case`/loops, function bodies (where they are defined and again
where they are called), wrappers (`busybox`, `env`, `su 0`, `nohup`, ...), `sh -c` strings,
here-documents fed to a shell, command substitutions and the quoted ones mksh's arithmetic
expands (`x='a[$(cmd)]'; ((x))`), with the directory each `cd` leaves the shell in.

* **refuse**: catastrophic for sure, never run: recursive deletion or moving away of a
  protected path (`shell_paths.PROTECTED`), formatting and partitioning, raw writes to
  storage device nodes, factory reset, `sm format`, `vdc volume format`.
* **ask every time**: the guard cannot know what would happen: an operand of a destructive
  command only known when the line runs (a variable, `$(…)`, a glob that may match a
  protected path, `..` through symlinks), a command name that is not plain text, `sh -c`,
  `su -c`, `eval`, a shell reading commands from a pipe or a file, `find -exec/-delete`,
  `xargs`, and a line the guard cannot parse. The user must confirm this very call, even
  when the operator's `--allow-destructive` would otherwise answer for them.
* **ordinary**: everything else, confirmed as the policy says.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from adbwire.device.errors import RefusedError
from adbwire.mcp.safety.shell_commands import FACTORY_RESET_MARKERS, run_words
from adbwire.mcp.safety.shell_paths import HOME, Cwds, Target, device_node, protected, targets
from adbwire.mcp.safety.shell_tree import (
    assigned_words,
    cat_of_here_document,
    fed_documents,
    with_arguments,
)
from adbwire.mcp.safety.shell_words import (
    Text,
    arithmetic_texts,
    literal,
    read_word,
    show,
    substitutions,
)
from adbwire.shell_syntax import (
    Case,
    Command,
    Conditional,
    For,
    FunctionDef,
    Group,
    If,
    Lit,
    Loop,
    Pipeline,
    Redirect,
    Script,
    ShellSyntaxError,
    Simple,
    Word,
    expression,
    parse,
)

MAX_NESTING = 8
"""`sh -c`, `eval` and `$(…)` inside each other deeper than this are not followed: asked."""
MAX_REASON = 200
"""Characters of one reason (an operand may be long); the question shows the whole line."""
MAX_PLACES = 16
"""Directories the shell may be in that the guard keeps apart; beyond, it may be anywhere."""
_START: Cwds = frozenset({"/"})  # `adb shell` starts in /
_WRITE_OPS = (">", ">>", ">|", "<>", "&>")

Outcome = tuple[Cwds, Cwds]
"""Where the shell may be after a command succeeded, and after it failed."""


class Verdict(IntEnum):
    ORDINARY = 0
    ASK_EVERY_TIME = 1
    REFUSE = 2


@dataclass(frozen=True)
class Assessment:
    verdict: Verdict
    reasons: tuple[str, ...]
    """Why, for the verdict given (empty when ordinary)."""


def assess(command: str) -> Assessment:
    guard = Guard(home=None if "HOME" in command else HOME)
    try:
        guard.source(command, _START, 0)
    except RecursionError:
        guard.ask("the command line is nested too deeply for the guard to read")
    return guard.assessment()


def check_command(command: str) -> str | None:
    """Raise RefusedError for a catastrophic command line; else why it must be asked every
    time (None: an ordinary command line)."""
    assessment = assess(command)
    reasons = "; ".join(assessment.reasons)
    if assessment.verdict is Verdict.REFUSE:
        raise RefusedError(
            f"refused before asking: {reasons}; run_shell never runs catastrophic commands"
        )
    return reasons if assessment.verdict is Verdict.ASK_EVERY_TIME else None


def _union(first: Cwds, second: Cwds) -> Cwds:
    if first is None or second is None:
        return None
    both = first | second
    return both if len(both) <= MAX_PLACES else None


class Guard:
    """Walks a command line's syntax tree and notes what it finds."""

    def __init__(self, home: str | None = HOME) -> None:
        self._found: dict[str, Verdict] = {}
        self.home = home
        """What `~` and a bare `cd` mean; None once the line may have changed it."""
        self.functions: dict[str, Command] = {}
        """Functions the line defines (the last definition of each name), by name."""
        self.aliases: dict[str, str] = {}
        """Aliases the line defines (`alias NAME=VALUE` with a known value), by name."""
        self._expanding: set[str] = set()
        self._calling: set[str] = set()
        self._piped: Word | None = None
        """What the previous stage of a pipeline writes, when it is a here-document."""
        self.stdin_script: Word | None = None
        """The here-document given to the command being checked: what a shell reads."""

    def refuse(self, reason: str) -> None:
        self._found[_short(reason)] = Verdict.REFUSE

    def ask(self, reason: str) -> None:
        self._found.setdefault(_short(reason), Verdict.ASK_EVERY_TIME)

    def assessment(self) -> Assessment:
        verdict = max(self._found.values(), default=Verdict.ORDINARY)
        return Assessment(verdict, tuple(r for r, v in self._found.items() if v is verdict))

    # ----------------------------------------------------------------- the syntax tree

    def source(self, text: str, cwds: Cwds, depth: int) -> Outcome:
        """Check a command line; where the shell may be once it ran."""
        if self.too_deep(depth):
            return None, None
        try:
            script = parse(text)
        except ShellSyntaxError as exc:
            self.ask(f"the guard cannot read the command line ({exc})")
            return None, None
        return self.outcome(script, cwds, depth)

    def outcome(self, script: Script, cwds: Cwds, depth: int) -> Outcome:
        """Where the shell may be after the script, by the success of its last command."""
        outcome: Outcome = (cwds, cwds)
        for item in script:
            succeeded, failed = self.pipeline(item.first, _union(*outcome), depth)
            for operator, pipeline in item.rest:
                if operator == "&&":
                    succeeded, also_failed = self.pipeline(pipeline, succeeded, depth)
                    failed = _union(failed, also_failed)
                else:
                    also_succeeded, failed = self.pipeline(pipeline, failed, depth)
                    succeeded = _union(succeeded, also_succeeded)
            outcome = (succeeded, failed)
        return outcome

    def script(self, script: Script, cwds: Cwds, depth: int) -> Cwds:
        return _union(*self.outcome(script, cwds, depth))

    def pipeline(self, pipeline: Pipeline, cwds: Cwds, depth: int) -> Outcome:
        outcome: Outcome = (cwds, cwds)
        self._piped = None
        for command in pipeline.commands:
            outcome = self.command(command, cwds, depth)
            self._piped = cat_of_here_document(command)
        if len(pipeline.commands) > 1:  # each stage runs in a subshell
            both = _union(cwds, _union(*outcome))
            outcome = (both, both)
        return (outcome[1], outcome[0]) if pipeline.negate else outcome

    def command(self, command: Command, cwds: Cwds, depth: int) -> Outcome:
        self.redirects(command.redirects, cwds, depth)
        if isinstance(command, Simple):
            for word in [*command.words, *assigned_words(command)]:
                self.inspect_word(word, cwds, depth)
            fed = fed_documents(command)
            if command.words and literal(command.words[0]) == "read":
                for document in fed:  # a line read may be used as a number later
                    for text, _ in arithmetic_texts(document):
                        self.arithmetic_text(text, False, cwds, depth)
            self.stdin_script = fed[-1] if fed else self._piped
            self._piped = None
            try:
                return self.run(command.words, cwds, depth)
            finally:
                self.stdin_script = None
        if isinstance(command, FunctionDef):
            # Checked where it is defined (it may be called where the guard cannot see,
            # `trap f EXIT`) and again where it is called, from the caller's directory.
            self.functions[command.name] = command.body
            self.command(command.body, cwds, depth + 1)
            return cwds, cwds
        if isinstance(command, Conditional):  # only its words' substitutions run anything
            for item in command.items:
                if isinstance(item, Word):
                    self.inspect_word(item, cwds, depth)
            return cwds, cwds
        if isinstance(command, Case):
            self.inspect_word(command.word, cwds, depth)
            end: Cwds = cwds  # no pattern matched
            for patterns, body in command.items:
                for pattern in patterns:
                    self.inspect_word(pattern, cwds, depth)
                end = _union(end, self.script(body, cwds, depth))
            return end, end
        if isinstance(command, Group):
            end = self.script(command.body, cwds, depth)
            return (cwds, cwds) if command.subshell else (end, end)
        if isinstance(command, If):
            ends: Cwds = frozenset()
            for condition, body in command.branches:
                succeeded, cwds = self.outcome(condition, cwds, depth)
                ends = _union(ends, self.script(body, succeeded, depth))
            if command.orelse is not None:
                cwds = self.script(command.orelse, cwds, depth)
            end = _union(ends, cwds)
            return end, end
        if isinstance(command, For):
            for word in command.items or ():
                self.inspect_word(word, cwds, depth)
            return self.loop([command.body], cwds, depth)
        assert isinstance(command, Loop)
        return self.loop([command.cond, command.body], cwds, depth)

    def loop(self, parts: list[Script], cwds: Cwds, depth: int) -> Outcome:
        end = cwds
        for part in parts:
            end = self.script(part, end, depth)
        if end != cwds:  # a cd in the loop: each round may start somewhere else
            end = None
            for part in parts:
                self.script(part, None, depth)
        return end, end

    def run(self, words: list[Word], cwds: Cwds, depth: int) -> Outcome:
        """Check one command, name and arguments (`shell_commands`); a name the line
        defined as a function runs its body (checked too, as the definition may not have
        happened: `false && rm() { :; }; rm -rf /`)."""
        if self.too_deep(depth):
            return None, None
        outcome = run_words(self, words, cwds, depth)
        expanded = self.alias_call(words, cwds, depth)
        if expanded is not None:
            outcome = _union(outcome[0], expanded[0]), _union(outcome[1], expanded[1])
        name = read_word(words[0]) if words else None
        body = self.functions.get(name.text) if name is not None else None
        if name is None or body is None:
            return outcome
        if name.text in self._calling:  # recursion: already being checked
            return None, None
        self._calling.add(name.text)
        try:
            called = self.command(body, cwds, depth + 1)
        finally:
            self._calling.discard(name.text)
        return _union(outcome[0], called[0]), _union(outcome[1], called[1])

    def alias_call(self, words: list[Word], cwds: Cwds, depth: int) -> Outcome | None:
        """A command name the line made an alias of runs the alias's value with the
        arguments after it (checked too where the alias may not apply yet: mksh expands
        only on the lines after the definition ran)."""
        name = read_word(words[0]) if words else None
        if name is None or any(not bare for _, bare in name.chars):
            return None  # `\x`, `'x'`: quoted names are never aliases
        value = self.aliases.get(name.text)
        if value is None or name.text in self._expanding:
            return None
        self._expanding.add(name.text)
        try:
            script = with_arguments(parse(value), words[1:])
            if script is None:
                self.ask(f"the alias {name.text} runs {value!r}, more than the guard can follow")
                return self.outcome(parse(value), cwds, depth + 1)
            return self.outcome(script, cwds, depth + 1)
        except ShellSyntaxError as exc:
            self.ask(f"the guard cannot read the alias {name.text} ({exc})")
            return None, None
        finally:
            self._expanding.discard(name.text)

    def too_deep(self, depth: int) -> bool:
        if depth > MAX_NESTING:
            self.ask(f"commands nested more than {MAX_NESTING} levels deep")
        return depth > MAX_NESTING

    def inspect_word(self, word: Word, cwds: Cwds, depth: int, *, document: bool = False) -> None:
        for source in substitutions(word):
            self.source(source, cwds, depth + 1)
        for text, subscript in () if document else arithmetic_texts(word):
            self.arithmetic_text(text, subscript, cwds, depth)
        text = "".join(part.text for part in word.parts if isinstance(part, Lit))
        for marker in FACTORY_RESET_MARKERS:
            if marker in text:
                self.refuse(f"factory reset ({marker})")

    def arithmetic_text(self, text: str, subscript: bool, cwds: Cwds, depth: int) -> None:
        """Quoted text that mksh's arithmetic may still expand (`shell_words.arithmetic_texts`):
        its command substitutions are checked as if they ran. Without a subscript in the text
        (`x='$(cmd)'`, a here-document `read` reads) they run only through another value's
        subscript (`y='a[b[$x]]'`), so a refusal becomes a question."""
        try:
            parts = expression(text)
        except ShellSyntaxError as exc:
            if subscript:
                self.ask(f"the guard cannot read the subscript in {text!r} ({exc})")
            return
        inner = Guard(self.home)
        inner.functions, inner.aliases = dict(self.functions), dict(self.aliases)
        for source in substitutions(Word(parts)):
            inner.source(source, cwds, depth + 1)
        for reason, verdict in inner._found.items():
            if verdict is Verdict.REFUSE and subscript:
                self.refuse(reason)
            else:
                self.ask(f"{reason}, if mksh's arithmetic expands the quoted {text!r}")

    def redirects(self, redirects: list[Redirect], cwds: Cwds, depth: int) -> None:
        for redirect in redirects:
            self.inspect_word(redirect.target, cwds, depth, document=redirect.op == "<<")
            target = read_word(redirect.target)
            to_fd = target is not None and (target.text.isdigit() or target.text == "-")
            if redirect.op in _WRITE_OPS or (redirect.op == ">&" and not to_fd):
                self.write(redirect.target, cwds)

    # ----------------------------------------------------------------- operands

    def write(self, word: Word, cwds: Cwds) -> None:
        """Something will be written to this path: refuse a raw storage device."""
        text = read_word(word)
        if text is None:
            self.ask(f"writes to {show(word)}, a name only known when the line runs")
        else:
            self.write_text(text, cwds)

    def write_text(self, text: Text, cwds: Cwds) -> None:
        if text.globs:
            self.ask(f"writes to {text.text}, a glob the device expands")
            return
        found = targets(text, cwds, self.home)
        if found is None:
            self.ask(f"writes to {text.text} in a directory only known when the line runs")
            return
        nodes = [target for target in found if device_node(target)]
        if nodes and len(nodes) == len(found):
            self.refuse(f"raw write to the device node {_paths(nodes)}")
        elif nodes:
            self.ask(f"raw write to the device node {_paths(nodes)} if a cd before it fails")

    def removal(self, action: str, word: Word, cwds: Cwds) -> None:
        """`word` will be deleted or moved away with everything below it."""
        text = read_word(word)
        if text is None:
            self.ask(f"{action} {show(word)}, a path only known when the line runs")
            return
        found = targets(text, cwds, self.home)
        if found is None:
            self.ask(f"{action} {text.text} in a directory only known when the line runs")
            return
        sure = [target for target in found if protected(target) and not target.globs]
        if sure and len(sure) == len(found):
            self.refuse(f"{action} {_paths(sure)}{_written(text, sure)}")
            return
        for target in found:
            if target.globs and protected(target):
                self.ask(f"{action} {text.text}, a glob that may match a protected path")
            elif protected(target):
                self.ask(f"{action} {target.path} if a cd before it fails")
            elif target.dotdot:
                self.ask(f"{action} {text.text}: the device follows '..' through symlinks")
            elif target.home:
                self.ask(f"{action} {text.text}: the guard does not know the home directory")


def _short(reason: str) -> str:
    return reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 1] + "…"


def _paths(found: list[Target]) -> str:
    return " or ".join(sorted({target.path for target in found}))


def _written(text: Text, found: list[Target]) -> str:
    return "" if {text.text} == {target.path for target in found} else f" (as {text.text!r})"
