"""Running a command line one line at a time, as mksh reads it: each line is parsed with
the aliases the lines before it left, so an alias defined on one line applies from the
next one on."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from adbwire.shell_syntax.lexer import Token, tokenize
from adbwire.shell_syntax.parser import Script, parse_lines
from adbwire.testing.userland.process import Streams
from adbwire.testing.userland.shell.aliases import DEFAULT_ALIASES

if TYPE_CHECKING:
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["run_lines"]

MAX_CACHED_SOURCES = 256
_LINES: dict[str | tuple[str, frozenset[tuple[str, str]]], list[Script]] = {}
"""Parsed lines of command lines that changed no alias, by source (with mksh's own alias
table, every new session's) or by source and alias table."""


@functools.lru_cache(maxsize=256)
def _tokens_cached(source: str) -> list[Token]:
    """Clients repeat their command lines; the tokens are only ever read (the parser
    copies the list), so they are kept."""
    return tokenize(source)


def run_lines(shell: Shell, source: str, streams: Streams) -> None:
    """Run each line, parsed with the aliases the lines before it left. Clients repeat
    their command lines: the lines of one that changed no alias are kept, per alias
    table, and parsed again from where an alias changed after all (`. lib.sh`)."""
    aliases: dict[str, str]
    key: str | tuple[str, frozenset[tuple[str, str]]]
    if shell.aliases == DEFAULT_ALIASES:  # only read: the parser never changes a table
        aliases, key = DEFAULT_ALIASES, source
    else:
        aliases = dict(shell.aliases)
        key = (source, frozenset(aliases.items()))
    cached = _LINES.get(key)
    done: list[Script] = []
    if cached is not None:
        for line in cached:
            version = shell.alias_version
            shell.run_script(line, streams)
            done.append(line)
            if shell.alias_version != version:
                break
        else:
            return
    version = shell.alias_version
    tokens = _tokens_cached(source)
    for line in parse_lines(tokens, shell.aliases, skip=len(done), skipped_with=aliases):
        shell.run_script(line, streams)
        done.append(line)
    if cached is None and shell.alias_version == version and "alias" not in source:
        if len(_LINES) >= MAX_CACHED_SOURCES:
            _LINES.clear()
        _LINES[key] = done
