#!/usr/bin/env python3
"""Mutation testing for one module: do its tests notice when the code changes?

    .venv/bin/python scripts/mutate.py src/adbwire/mcp/safety/confirm.py --sample 60 --seed 1
    .venv/bin/python scripts/mutate.py src/adbwire/mcp/safety/confirm.py \\
        --tests tests/mcp/test_confirmation.py --sample 60 --seed 1 --jobs 2
    .venv/bin/python scripts/mutate.py src/adbwire/wire/protocol.py --list

Every mutant of the module (scripts/mutation_operators.py) is enumerated; a fixed-seed
sample of up to --sample of them is tried. Each worker runs against its own copy of
``src/`` in a temporary directory, put first on PYTHONPATH (the test subprocesses that
start ``adbwire serve`` inherit it), so the work tree is never modified and others may keep
running tests in it. For each mutant the module's tests run with ``-x``; a failure kills
the mutant, a pass lets it survive, and a run past the timeout counts as a timeout (killed,
since the change was noticed). Survivors are printed with their line, the original and the
mutated code. docs/testing.md explains how to read the result.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutation_operators import Mutant, apply_mutant, enumerate_mutants, unparsed

ROOT = Path(__file__).resolve().parent.parent
SOURCE_ROOT = ROOT / "src"

# The tests that guard each module when --tests is not given (globs, relative to the root).
# They run in this order with -x, so the fast unit tests come first: most mutants die there.
DEFAULT_TESTS: dict[str, tuple[str, ...]] = {
    "src/adbwire/mcp/safety/confirm.py": (
        "tests/mcp/test_consent_state.py",
        "tests/mcp/test_consent*.py",
        "tests/mcp/test_confirmation*.py",
    ),
    "src/adbwire/mcp/safety/shell_guard.py": ("tests/mcp/test_shell_guard*.py",),
    "src/adbwire/mcp/safety/paths.py": ("tests/mcp/test_paths*.py",),
    "src/adbwire/mcp/safety/policy.py": ("tests/mcp/test_policy*.py",),
    "src/adbwire/wire/protocol.py": ("tests/wire/test_protocol*.py",),
    "src/adbwire/wire/services/sync/pull.py": (
        "tests/wire/sync/test_pull*.py",
        "tests/wire/sync/test_push_pull.py",
        "tests/wire/sync/test_sync_faults.py",
    ),
}

KILLED, SURVIVED, TIMEOUT = "killed", "survived", "timeout"


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    status: str
    seconds: float


class Workspace:
    """A private copy of src/ that one worker mutates; the work tree is only read."""

    def __init__(self, parent: Path, module: Path) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="worker-", dir=parent))
        shutil.copytree(
            SOURCE_ROOT,
            self.root / "src",
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
        self.module = self.root / "src" / module.relative_to(SOURCE_ROOT)

    def write(self, text: str) -> None:
        temporary = self.module.with_suffix(".py.mutating")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.module)
        # Byte code is keyed on mtime and size, which two mutants may share: drop it.
        for cached in (self.module.parent / "__pycache__").glob(f"{self.module.stem}.*.pyc"):
            cached.unlink(missing_ok=True)

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        existing = env.get("PYTHONPATH")
        env["PYTHONPATH"] = os.pathsep.join(
            [str(self.root / "src"), *([existing] if existing else [])]
        )
        env["ADBWIRE_MUTATION_SOURCE"] = str(self.root / "src")
        return env


class Runner:
    def __init__(self, tests: Sequence[str], timeout: float) -> None:
        self.tests = list(tests)
        self.timeout = timeout
        self._running: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self.stopping = False

    def run_tests(self, workspace: Workspace, timeout: float | None = None) -> tuple[str, float]:
        argv = [
            sys.executable,
            "-m",
            "pytest",
            *self.tests,
            "-x",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
        ]
        started = time.monotonic()
        process = subprocess.Popen(  # noqa: S603 - our interpreter, our test paths
            argv,
            cwd=ROOT,
            env=workspace.environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        with self._lock:
            self._running.add(process)
        try:
            code = process.wait(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            self._kill(process)
            return TIMEOUT, time.monotonic() - started
        finally:
            with self._lock:
                self._running.discard(process)
        return (SURVIVED if code == 0 else KILLED), time.monotonic() - started

    def _kill(self, process: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop_all(self) -> None:
        self.stopping = True
        with self._lock:
            running = list(self._running)
        for process in running:
            self._kill(process)


def resolve_tests(module: str, given: Sequence[str] | None) -> list[str]:
    patterns = list(given) if given else list(DEFAULT_TESTS.get(module, ()))
    if not patterns:
        sys.exit(f"no default tests for {module}: pass --tests")
    found: list[str] = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, root_dir=ROOT))
        if not matches and not given:
            continue
        found.extend(matches or [pattern])
    if not found:
        sys.exit(f"none of the tests {patterns} exist")
    return list(dict.fromkeys(found))


def sample(mutants: list[Mutant], size: int, seed: int) -> list[Mutant]:
    if len(mutants) <= size:
        return list(mutants)
    generator = random.Random(seed)  # noqa: S311 - a reproducible sample, not a secret
    chosen = generator.sample(range(len(mutants)), size)
    return [mutants[index] for index in sorted(chosen)]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_isolation(workspace: Workspace) -> None:
    """The test process must import adbwire from the private copy, not from the work tree."""
    probe = subprocess.run(
        [sys.executable, "-c", "import adbwire, sys; sys.stdout.write(adbwire.__file__)"],
        cwd=ROOT,
        env=workspace.environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    if not Path(probe.stdout).is_relative_to(workspace.root):
        sys.exit(f"adbwire is imported from {probe.stdout}, not the private copy: cannot run")


@contextlib.contextmanager
def workspaces(count: int, module: Path) -> Iterator[list[Workspace]]:
    parent = Path(tempfile.mkdtemp(prefix="adbwire-mutate-"))
    try:
        yield [Workspace(parent, module) for _ in range(count)]
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def run(arguments: argparse.Namespace) -> int:
    module_path = (ROOT / arguments.module).resolve()
    module = module_path.relative_to(ROOT).as_posix()
    original_text = module_path.read_text(encoding="utf-8")
    original_digest = digest(module_path)
    mutants = enumerate_mutants(original_text)
    chosen = sample(mutants, arguments.sample, arguments.seed)
    if arguments.list:
        for mutant in chosen:
            print(
                f"{module}:{mutant.line} [{mutant.kind}] {mutant.original!r} -> {mutant.mutated!r}"
            )
        print(f"{len(chosen)} of {len(mutants)} mutants")
        return 0
    tests = resolve_tests(module, arguments.tests)
    print(f"module {module}: {len(mutants)} mutants, trying {len(chosen)} (seed {arguments.seed})")
    print(f"tests: {' '.join(tests)}")
    runner = Runner(tests, timeout=arguments.timeout or 0.0)
    with workspaces(arguments.jobs, module_path) as spaces:
        check_isolation(spaces[0])
        spaces[0].write(unparsed(original_text))
        status, seconds = runner.run_tests(spaces[0], timeout=600)
        if status != SURVIVED:
            sys.exit(f"the tests fail ({status}) without any mutant: fix them first")
        if not arguments.timeout:
            runner.timeout = max(60.0, 4 * seconds + 30)
        print(f"baseline: tests pass in {seconds:.1f} s; per-mutant timeout {runner.timeout:.0f} s")
        outcomes = try_all(runner, spaces, original_text, chosen, verbose=arguments.verbose)
    if digest(module_path) != original_digest:
        print(f"note: {module} changed in the work tree during the run (not by this tool)")
    return report(module, arguments, outcomes, len(mutants))


def try_all(
    runner: Runner,
    spaces: list[Workspace],
    source: str,
    chosen: list[Mutant],
    *,
    verbose: bool,
) -> list[Outcome]:
    free: list[Workspace] = list(spaces)
    free_lock = threading.Lock()
    done = 0

    def attempt(mutant: Mutant) -> Outcome:
        nonlocal done
        if runner.stopping:
            raise KeyboardInterrupt
        with free_lock:
            workspace = free.pop()
        try:
            workspace.write(apply_mutant(source, mutant))
            status, seconds = runner.run_tests(workspace)
        finally:
            with free_lock:
                free.append(workspace)
                done += 1
                count = done
        if verbose or status != KILLED:
            print(
                f"[{count}/{len(chosen)}] {status:8} line {mutant.line}: {mutant.kind}", flush=True
            )
        return Outcome(mutant, status, seconds)

    with ThreadPoolExecutor(max_workers=len(spaces)) as pool:
        futures = [pool.submit(attempt, mutant) for mutant in chosen]
        try:
            return [future.result() for future in futures]
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            runner.stop_all()
            raise


def report(module: str, arguments: argparse.Namespace, outcomes: list[Outcome], total: int) -> int:
    killed = sum(outcome.status == KILLED for outcome in outcomes)
    timeouts = sum(outcome.status == TIMEOUT for outcome in outcomes)
    survivors = [outcome for outcome in outcomes if outcome.status == SURVIVED]
    if survivors:
        print("\nsurviving mutants:")
    for outcome in survivors:
        mutant = outcome.mutant
        print(f"  {module}:{mutant.line} [{mutant.kind}]")
        print(f"      was: {mutant.original}")
        print(f"      now: {mutant.mutated}")
    tried = len(outcomes)
    detected = killed + timeouts
    score = 100.0 * detected / tried if tried else 100.0
    print(
        f"\n{module}: score {score:.0f} % ({detected}/{tried}): {killed} killed, "
        f"{timeouts} timed out, {len(survivors)} survived; {total} mutants in all, "
        f"seed {arguments.seed}, {time.strftime('%Y-%m-%d', time.gmtime())}"
    )
    return 0 if score >= arguments.fail_under else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "module", help="the module to mutate, e.g. src/adbwire/mcp/safety/confirm.py"
    )
    parser.add_argument("--tests", nargs="+", help="test paths or globs (default: per module)")
    parser.add_argument("--sample", type=int, default=60, help="mutants to try (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sample (default 1)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="parallel workers (default 2)")
    parser.add_argument("--timeout", type=float, help="seconds per mutant (default: from baseline)")
    parser.add_argument("--fail-under", type=float, default=0.0, help="exit 1 below this score")
    parser.add_argument("--list", action="store_true", help="list the sample, run nothing")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every outcome")
    arguments = parser.parse_args(argv)
    if arguments.jobs < 1 or arguments.sample < 1:
        parser.error("--jobs and --sample must be at least 1")
    try:
        return run(arguments)
    except KeyboardInterrupt:
        print("\ninterrupted; the work tree was never modified", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
