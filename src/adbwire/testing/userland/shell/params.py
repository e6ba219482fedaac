"""The parameters a shell expands and assigns: variables (with mksh's dynamic ones,
$RANDOM, $SECONDS, $PPID, $PWD), array elements, positional parameters and the special
ones ($? $$ $# $@ $* $0 $! $-)."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from adbwire.shell_syntax.tree import Assign
from adbwire.testing.userland.shell import variables
from adbwire.testing.userland.shell.arith import evaluate
from adbwire.testing.userland.shell.expand import expand_single, expand_subscript, expand_words

if TYPE_CHECKING:
    from adbwire.testing.userland.android.state import Process
    from adbwire.testing.userland.shell.interp import Shell

__all__ = ["Parameters"]

_OPTION_LETTERS = (("errexit", "e"), ("nounset", "u"), ("xtrace", "x"))
_EXPORTED = variables.Attributes(export=True)
_EXPORTED_BY_NAMES: dict[tuple[str, ...], dict[str, variables.Attributes]] = {}
"""The attributes of an environment's names, built once per set of names (they are frozen,
so every session shares them until a `typeset` replaces one)."""
MAX_ENVIRONMENTS = 64


class Parameters:
    """The expansion host's side of a Shell (`expand.ExpansionHost`)."""

    vars: dict[str, str]
    cwd: str
    started: float
    process: Process | None
    last_status: int
    pid: int
    arg0: str
    last_job: str
    options: set[str]
    interactive: bool
    pty: bool
    _positional: list[str]

    @property
    def positional(self) -> Sequence[str]:
        return self._positional

    def set_positional(self, params: Sequence[str]) -> None:
        self._positional = list(params)

    def get_var(self, name: str) -> str | None:
        if name == "PWD":
            return self.cwd
        if name == "RANDOM" and name not in self.vars:
            return str(random.randrange(32768))  # noqa: S311 (mksh's is not secure either)
        if name == "SECONDS" and name not in self.vars:
            return str(int(time.monotonic() - self.started))
        if name == "PIPESTATUS":
            return str(self._shell().pipe_statuses[0])
        if name == "PPID" and name not in self.vars and self.process is not None:
            return str(self.process.ppid)  # mksh sets it at start-up
        return self.vars.get(name)

    def set_var(self, name: str, value: str) -> None:
        variables.assign(self._shell(), name, value)

    def _shell(self) -> Shell:
        return cast("Shell", self)  # Shell is the only class built on Parameters

    def set_element(self, name: str, index: int, value: str) -> None:
        variables.assign(self._shell(), name, value, index=index)

    def element(self, name: str, index: int) -> str | None:
        return variables.element(self._shell(), name, index)

    def elements(self, name: str) -> list[str]:
        return variables.values(self._shell(), name)

    def indexes(self, name: str) -> list[int]:
        return variables.indexes(self._shell(), name)

    def expand_subscript(self, text: str) -> str:
        return expand_subscript(self._shell(), text)

    def assign_word(self, assign: Assign) -> None:
        """Run one assignment of a command: `NAME=…`, `NAME+=…`, `a[i]=…`, `a=(…)`."""
        shell = self._shell()
        if assign.items is not None:  # NAME=(…), NAME+=(…)
            items = expand_words(shell, list(assign.items), shell.listdir, shell.cwd)
            append = assign.append
            variables.set_array(shell, assign.name, items, replace=not append, after=append)
            return
        value = expand_single(shell, assign.value)
        index = None
        if assign.subscript is not None:
            index = evaluate(expand_single(shell, assign.subscript) or "0", shell)
        variables.assign(shell, assign.name, value, index=index, append=assign.append)

    def export_environment(self) -> None:
        """The variables the shell started with are exported (`export` lists them)."""
        names = tuple(self.vars)
        exported = _EXPORTED_BY_NAMES.get(names)
        if exported is None:
            # IFS is the shell's own, not inherited
            exported = {name: _EXPORTED for name in names if name != "IFS"}
            if len(_EXPORTED_BY_NAMES) >= MAX_ENVIRONMENTS:
                _EXPORTED_BY_NAMES.clear()
            _EXPORTED_BY_NAMES[names] = exported
        attrs = self._shell().attrs
        if not attrs:  # a new session's shell
            attrs.update(exported)
            return
        for name in exported:
            old = attrs.get(name)
            attrs[name] = _EXPORTED if old is None else dataclasses.replace(old, export=True)

    def option_letters(self) -> str:
        """`$-`, in mksh's order: e u, i l m s (interactive, login, monitor, stdin), h
        (trackall), U (UTF-8: Android's mksh assumes it), x, and c for `sh -c`."""
        letters = [letter for option, letter in _OPTION_LETTERS[:2] if option in self.options]
        if self.interactive:
            letters += ["i", "l", "m", "s"] if self.pty else ["l", "s", "h"]
        else:
            letters.append("h")
        letters.append("U")
        if "xtrace" in self.options:
            letters.append("x")
        if not self.interactive:
            letters.append("c")
        return "".join(letters)

    def special_param(self, name: str) -> str | None:
        if name == "?":
            return str(self.last_status)
        if name == "$":
            return str(self.pid)
        if name == "#":
            return str(len(self._positional))
        if name in ("@", "*"):  # "$*" joins with IFS's first character
            ifs = self.vars.get("IFS")
            return (" " if ifs is None else ifs[:1]).join(self._positional)
        if name == "0":
            return self.arg0
        if name.isdigit():
            index = int(name) - 1
            return self._positional[index] if index < len(self._positional) else ""
        if name == "!":
            return self.last_job
        if name == "-":
            return self.option_letters()
        return None
