"""The interpreter: runs a parsed command line against the simulated device.

Pipelines run their stages at once, joined by bounded pipes (process.Pipe): a stage whose
reader is gone ends with SIGPIPE's status, so `yes | head -1` ends; the last stage runs in
the shell itself, as in mksh, and streams to the client as it runs.
Background jobs are in jobs.py, compound commands and functions in control.py.

Each command that is not a shell builtin runs as a child process in the device's process
table (so `ps` shows it; `echo`, `true` and `false` are mksh built-ins, child.py); a signal
sent to it ends it (status 128+N), one sent to the shell runs the shell's trap for it after
the current command, or ends the shell.
"""

from __future__ import annotations

import contextlib
import posixpath
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from adbwire.shell_syntax.lexer import ShellSyntaxError
from adbwire.shell_syntax.parser import (
    AndOr,
    Case,
    Command,
    Conditional,
    For,
    FunctionDef,
    Group,
    If,
    Loop,
    Pipeline,
    Script,
    Simple,
)
from adbwire.testing.userland.process import (
    BufferWriter,
    BytesReader,
    NullWriter,
    Streams,
)
from adbwire.testing.userland.shell import control, jobs, redirects, testexpr, traps, variables
from adbwire.testing.userland.shell.aliases import DEFAULT_ALIASES, alias, builtin, unalias, whence
from adbwire.testing.userland.shell.arith import ArithmeticFailure
from adbwire.testing.userland.shell.builtins import SHELL_BUILTINS, SHELL_PATH, ExitShell
from adbwire.testing.userland.shell.builtins_script import SCRIPT_BUILTINS, SPECIAL_BUILTINS
from adbwire.testing.userland.shell.child import IN_SHELL, run_device_command, run_in_shell
from adbwire.testing.userland.shell.expand import expand_single, expand_words
from adbwire.testing.userland.shell.invocation import CommandFn, Invocation, ShellHost
from adbwire.testing.userland.shell.params import Parameters
from adbwire.testing.userland.shell.pipeline import run_stages
from adbwire.testing.userland.shell.read import read_builtin
from adbwire.testing.userland.shell.source import run_lines
from adbwire.testing.userland.shell.timing import timed
from adbwire.testing.userland.shell.ulimit import DEFAULT_LIMITS, Limit
from adbwire.testing.userland.shell.umask import DEFAULT_UMASK, umask

if TYPE_CHECKING:
    from adbwire.testing.userland.android.state import Process

__all__ = ["SHELL_PATH", "CommandFn", "ExitShell", "Invocation", "Shell", "ShellHost"]

BUILTINS = {
    **SHELL_BUILTINS,
    **SCRIPT_BUILTINS,
    "read": read_builtin,
    "alias": alias,
    "unalias": unalias,
    "builtin": builtin,
    "whence": whence,
    "umask": umask,
    **dict.fromkeys(IN_SHELL, run_in_shell),
}

_NO_STREAMS = Streams(BytesReader(b""), NullWriter(), NullWriter())
"""Where a command substitution reads and reports before the shell ran anything (stateless:
an empty reader stays empty), shared by every new shell."""


class Shell(Parameters):
    """One shell process: variables, working directory, positional parameters, $?."""

    def __init__(
        self,
        host: ShellHost,
        env: Mapping[str, str],
        *,
        cwd: str = "/",
        positional: Sequence[str] = (),
        process: Process | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> None:
        self.host = host
        self.vars: dict[str, str] = dict(env)
        self.cwd = cwd
        self._positional = list(positional)
        self.process = process
        self.pid = process.pid if process is not None else 1
        self.outer_cancelled = cancelled
        self.last_status = 0
        self.arg0 = SHELL_PATH
        """`$0`: the shell, the script it reads, or the NAME of `sh -c CMD NAME`."""
        self.started = time.monotonic()
        self.interactive = False
        self.pty = False
        self.traps: dict[int, str] = {}
        self.options: set[str] = set()
        """`set -o` options in force: errexit, xtrace, pipefail, nounset."""
        self.condition_depth = 0
        """Inside an if/while/until condition, where errexit does not apply."""
        self._errexit_candidate = False
        self.child: Process | None = None
        """The command running in the foreground, if any."""
        self.jobs: dict[int, jobs.Job] = {}
        """Background jobs of the session (shared with subshells)."""
        self.last_job = ""
        self.functions: dict[str, FunctionDef] = {}
        self.frames: list[dict[str, variables.Saved]] = []
        """One per function being run: the values its `local` names had before."""
        self.loop_depth = 0
        self.sourcing = 0
        """Scripts being read by `.`: `return` leaves one."""
        self.limits: Mapping[str, Limit] = DEFAULT_LIMITS
        """`ulimit`: resource -> (soft, hard), None meaning unlimited; never changed in
        place (`ulimit` sets a new table), so shells share it."""
        self.substitutions = 0
        self.nesting_reported = False
        """Command substitutions run so far (a command of assignments takes their status)."""
        self.exec_streams: Streams | None = None
        """Where `exec` with only redirections sent the shell's own streams."""
        self._exec_files: contextlib.ExitStack | None = None  # made by `exec >FILE`
        self._sources = 0
        self.getopts_state = ("1", 0)
        """getopts: the OPTIND it last set, and the letter to read next inside that word
        of grouped options (`-abc`)."""
        self._streams = _NO_STREAMS
        self.attrs: dict[str, variables.Attributes] = {}
        self.arrays: dict[str, dict[int, str]] = {}
        """typeset attributes by name (read-only, integer, case, width...); array
        elements from index 1 by name (element 0 is the scalar in `vars`)."""
        self.aliases: dict[str, str] = dict(DEFAULT_ALIASES)
        self.pipe_statuses, self.alias_version, self.umask = [0], 0, DEFAULT_UMASK
        """`${PIPESTATUS[@]}` (each stage's status in the last pipeline); a count of
        `alias`/`unalias` changes (parsed lines stay valid while it stays); `umask`."""
        self.tracked: dict[str, str] = {}
        """Commands found by name and where (mksh's tracked aliases: `hash`)."""

    def cancelled(self) -> bool:
        """Stop now: the stream closed, the foreground command or this shell got a signal
        that ends it (a trapped signal waits for the current command to finish)."""
        if self.outer_cancelled():
            return True
        child = self.child
        if child is not None and child.pending_signal:
            return True
        process = self.process
        return (
            process is not None
            and bool(process.pending_signal)
            and (process.pending_signal not in self.traps)
        )

    def run_trap(self, signal: int, streams: Streams) -> None:
        traps.run_trap(self, signal, streams)

    def handle_signals(self, streams: Streams) -> None:
        traps.handle_signals(self, streams)

    # -- expansion host (params.py has the parameters) -------------------------------------
    def substitute(self, source: str) -> str:
        """Command substitution: run `source` in a subshell and capture its stdout."""
        out = BufferWriter()
        sub = self.subshell()
        self.substitutions += 1
        try:
            status = sub.run_source(source, Streams(self._streams.stdin, out, self._streams.stderr))
        except ExitShell as exc:  # `$(…; exit 3)` ends the subshell only
            status = exc.code
        self.last_status = status
        return out.getvalue().decode("utf-8", "replace").rstrip("\n")

    # -- running -----------------------------------------------------------------------------
    def subshell(self) -> Shell:
        child = Shell(
            self.host,
            self.vars,
            cwd=self.cwd,
            positional=self._positional,
            process=self.process,
            cancelled=self.outer_cancelled,
        )
        child.pid = self.pid
        child.last_status = self.last_status
        child.pty = self.pty
        child.traps = dict(self.traps)
        child.options = set(self.options)
        child.jobs = self.jobs
        child.last_job = self.last_job
        child.functions = dict(self.functions)
        child.exec_streams = self.exec_streams
        child.arg0 = self.arg0
        child.limits = self.limits
        child.loop_depth = self.loop_depth
        child.attrs = variables.copy_attributes(self.attrs)
        child.arrays = {name: dict(items) for name, items in self.arrays.items()}
        child.aliases = dict(self.aliases)
        child.tracked = dict(self.tracked)
        child.umask = self.umask
        return child

    def resolve(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.cwd, path)) if path else self.cwd

    def file_path(self, path: str) -> str:
        """Like `resolve`, keeping a trailing slash: `link/` names the directory it points to."""
        resolved = self.resolve(path)
        return resolved + "/" if path.endswith("/") and resolved != "/" else resolved

    def run_source(self, source: str, streams: Streams) -> int:
        """Parse and run a command line one line at a time, as mksh does: an alias a line
        defines applies to the lines after it."""
        self._sources += 1
        try:
            run_lines(self, source, streams)
            return self.last_status
        except ShellSyntaxError as exc:
            streams.stderr.write(f"{SHELL_PATH}: syntax error: {exc}\n".encode())
            self.last_status = 1
            return 1
        finally:
            self._sources -= 1
            if not self._sources:  # the files `exec >FILE` opened close with the script
                self.close_files()

    def close_files(self) -> None:
        """Close what `exec >FILE` opened (a script's end, an interactive session's)."""
        self.exec_streams = None
        if self._exec_files is not None:
            self._exec_files.close()

    def run_script(self, script: Script, streams: Streams) -> int:
        self._streams = streams
        for item in script:
            streams = self.exec_streams or streams
            self.handle_signals(streams)
            if self.cancelled():
                break
            if item.background:
                jobs.start_job(self, item, streams)
                self.last_status = 0
                continue
            self.last_status = self.run_and_or(item, streams)
            if self.last_status and self._errexit_candidate and "errexit" in self.options:
                raise ExitShell(self.last_status)  # `set -e`
        self.handle_signals(streams)
        return self.last_status

    def wait_jobs(self, pids: list[int] | None = None) -> int:
        return jobs.wait_jobs(self, pids)

    def run_and_or(self, item: AndOr, streams: Streams) -> int:
        final = item.rest[-1][1] if item.rest else item.first
        status = self._run_pipeline(item.first, streams, final=item.first is final)
        last = item.first
        for op, pipeline in item.rest:
            self.last_status = status
            if (op == "&&") == (status == 0):
                status = self._run_pipeline(pipeline, streams, final=pipeline is final)
                last = pipeline
        self._errexit_candidate = last is final and not last.negate and not self.condition_depth
        return status

    def _run_pipeline(self, pipeline: Pipeline, streams: Streams, *, final: bool) -> int:
        """errexit applies to the last pipeline of an && / || list only, never to a `!` one,
        and not to anything they run (a function's body included), as POSIX and mksh say."""
        if final and not pipeline.negate:
            return self._pipeline(pipeline, streams)
        self.condition_depth += 1
        try:
            return self._pipeline(pipeline, streams)
        finally:
            self.condition_depth -= 1

    def _pipeline(self, pipeline: Pipeline, streams: Streams) -> int:
        if pipeline.timed:
            run = None if not pipeline.commands else lambda: self._untimed(pipeline, streams)
            return timed(run, streams, posix=pipeline.posix_time)
        return self._untimed(pipeline, streams)

    def _untimed(self, pipeline: Pipeline, streams: Streams) -> int:
        if len(pipeline.commands) == 1:
            status = self._command(pipeline.commands[0], streams)
            status = (0 if status else 1) if pipeline.negate else status
            self.pipe_statuses = [status]  # mksh's PIPESTATUS (a `!` one's too, negated)
            return status
        status = run_stages(self, pipeline.commands, streams)  # sets PIPESTATUS
        return (0 if status else 1) if pipeline.negate else status

    def run_command(self, command: Command, streams: Streams) -> int:
        """One command of a pipeline, with its redirections applied."""
        return self._command(command, streams)

    def _command(self, command: Command, streams: Streams) -> int:
        try:
            if _is_bare_exec(command):  # `exec >FILE 2>&1`: for the rest of the script
                applied = redirects.applied(self, command.redirects, streams)
                if self._exec_files is None:
                    self._exec_files = contextlib.ExitStack()
                self.exec_streams = self._exec_files.enter_context(applied)
                return 0
            with redirects.applied(self, command.redirects, streams) as local:
                return self._dispatch(command, local)
        except redirects.RedirectError as exc:
            streams.stderr.write(f"{SHELL_PATH}: {exc}\n".encode())
            return 1
        except (ArithmeticFailure, control.RecursionLimit) as exc:
            # An expansion error ends a non-interactive shell, as in mksh; a read-only
            # name's assignment too, with status 2.
            streams.stderr.write(f"{SHELL_PATH}: {exc}\n".encode())
            status = 2 if isinstance(exc, variables.ReadOnlyError) else 1
            if self.interactive:
                return status
            raise ExitShell(status) from exc
        except RecursionError as exc:  # nesting deeper than the simulator's Python stack
            if not self.nesting_reported:
                self.nesting_reported = True
                streams.stderr.write(f"{SHELL_PATH}: commands nested too deeply\n".encode())
            raise ExitShell(1) from exc

    def _dispatch(self, command: Command, streams: Streams) -> int:
        if isinstance(command, Simple):
            return self._simple(command, streams)
        if isinstance(command, Group):
            if not command.subshell:
                return self.run_script(command.body, streams)
            try:
                return self.subshell().run_script(command.body, streams)
            except ExitShell as exc:
                return exc.code
        if isinstance(command, If):
            return control.run_if(self, command, streams)
        if isinstance(command, Loop):
            return control.run_loop(self, command, streams)
        if isinstance(command, For):
            return control.run_for(self, command, streams)
        if isinstance(command, Case):
            return control.run_case(self, command, streams)
        if isinstance(command, Conditional):
            return testexpr.double_bracket(self, command.items, streams)
        self.functions[command.name] = command
        return 0

    def listdir(self, path: str) -> list[str]:
        return [name for name, _ in self.host.files.listdir(path)]

    def _simple(self, command: Simple, streams: Streams) -> int:
        self._streams = streams
        substitutions = self.substitutions
        argv = expand_words(self, command.words, self.listdir, self.cwd)
        if not argv:  # `x=$(cmd)` has cmd's status; `x=1` has 0
            for assign in command.assigns:
                self.assign_word(assign)
            return self.last_status if self.substitutions != substitutions else 0
        values = [(a.name, expand_single(self, a.value)) for a in command.assigns]
        saved = {name: self.vars.get(name) for name, _ in values}
        for name, value in values:  # for this command only
            variables.assign(self, name, value)
        if "xtrace" in self.options:  # `set -x`: mksh's PS4 is "+ "
            streams.stderr.write(
                ("+ " + " ".join(shlex.quote(arg) for arg in argv) + "\n").encode()
            )
        try:
            function = self.functions.get(argv[0])
            if function is not None and argv[0] not in SPECIAL_BUILTINS:
                return control.call_function(self, function, argv, streams)
            return self.execute(argv, streams)
        finally:
            for name, old in saved.items():
                if old is None:
                    self.vars.pop(name, None)
                else:
                    self.vars[name] = old

    def execute(self, argv: list[str], streams: Streams) -> int:
        """Run one already-expanded command: a shell builtin, a device command, or 127."""
        name = argv[0]
        builtin = BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, argv, streams)
        return run_device_command(self, argv, streams)


def _is_bare_exec(command: Command) -> bool:
    return (
        isinstance(command, Simple)
        and bool(command.redirects)
        and [word.literal() for word in command.words] == ["exec"]
    )
