"""Parts of a command line's syntax tree the run_shell guard reads: what a command's
assignments expand, the text fed to its stdin, an alias's value with its arguments."""

from __future__ import annotations

from adbwire.mcp.safety.shell_words import Text, read_word
from adbwire.shell_syntax import AndOr, Command, Pipeline, Script, Simple, Word

FEEDS = ("<<", "<<<")
"""A here-document or a here-string: text the command reads, known to the guard."""


def fed_documents(command: Command) -> list[Word]:
    """The here-documents and here-strings given to the command's stdin, in order."""
    return [r.target for r in command.redirects if r.op in FEEDS and r.fd == 0]


def cat_of_here_document(command: Command) -> Word | None:
    """`cat <<EOF`: the here-document it writes to the pipe (`cat <<EOF | sh`)."""
    if not isinstance(command, Simple) or [read_word(w) for w in command.words] != [
        Text(tuple((ch, True) for ch in "cat"))
    ]:
        return None
    fed = fed_documents(command)
    return fed[-1] if fed else None


def assigned_words(command: Simple) -> list[Word]:
    """What the assignments of a command expand: values, `a[SUBSCRIPT]`s, `a=(WORD…)`."""
    found: list[Word] = []
    for assign in command.assigns:
        found.append(assign.value)
        if assign.subscript is not None:
            found.append(assign.subscript)
        found.extend(assign.items or ())
    return found


def with_arguments(script: Script, arguments: list[Word]) -> Script | None:
    """The alias's value with the words after the alias added to its last command (None
    when that is no simple command: `alias x='(cd /; ls)'`)."""
    if not script:
        return None
    last = script[-1]
    pipeline = last.rest[-1][1] if last.rest else last.first
    command = pipeline.commands[-1] if pipeline.commands else None
    if not isinstance(command, Simple):
        return None
    extended = Simple(command.assigns, [*command.words, *arguments], command.redirects)
    commands = [*pipeline.commands[:-1], extended]
    new_pipeline = Pipeline(pipeline.negate, commands, pipeline.timed, pipeline.posix_time)
    if last.rest:
        rest = [*last.rest[:-1], (last.rest[-1][0], new_pipeline)]
        return [*script[:-1], AndOr(last.first, rest, last.background)]
    return [*script[:-1], AndOr(new_pipeline, [], last.background)]
