"""How the command line logs: one format on stderr, WARNING and up (DEBUG with --debug or
ADBWIRE_DEBUG=1), Python warnings through the same handler.

Importing logging costs ~8 ms, and `adbwire -s S shell true` logs nothing unless something
goes wrong (issue #20). So without --debug, logging is set up the moment anything imports
it (adbwire's start-up path does so only to log a warning: wire/lazy_logging.py), and the
first Python warning imports it: every message comes out as if logging had been set up at
the start, on the stderr of the start.
"""

from __future__ import annotations

import sys
import warnings

TYPE_CHECKING = False  # typing is not imported for this (mypy knows the idiom)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import TextIO

FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
_original_showwarning = warnings.showwarning


def configure_logging(*, debug: bool) -> None:
    stream = sys.stderr
    if debug or "logging" in sys.modules:
        _configure(debug, stream)
        return
    sys.meta_path.insert(0, _ConfigureWhenImported(lambda: _configure(debug, stream)))
    warnings.showwarning = _show_warning


def _configure(debug: bool, stream: TextIO) -> None:
    import logging  # noqa: PLC0415 - the point of this module

    _stop_waiting()
    logging.captureWarnings(True)
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING, format=FORMAT, stream=stream
    )


def _stop_waiting() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ConfigureWhenImported)]
    if warnings.showwarning is _show_warning:
        warnings.showwarning = _original_showwarning


def _show_warning(  # noqa: PLR0917 - warnings.showwarning's signature
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """The first Python warning: set logging up (captureWarnings), then show it there."""
    import logging  # noqa: F401, PLC0415 - importing it configures it

    warnings.showwarning(message, category, filename, lineno, file, line)


class _ConfigureWhenImported:
    """A meta path finder that watches for `logging` alone: the usual finders find it, and
    once it has run, `configure` sets it up (before whoever imported it gets it)."""

    def __init__(self, configure: Callable[[], None]) -> None:
        self._configure = configure

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name != "logging":
            return None
        _stop_waiting()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec: ModuleSpec | None = find(name, path, target) if find is not None else None
            if spec is not None and spec.loader is not None:
                spec.loader = _ThenConfigure(spec.loader, self._configure)  # type: ignore[assignment]
                return spec
        return None


class _ThenConfigure:
    """A module's loader, with `then` run once the module has been executed."""

    def __init__(self, loader: object, then: Callable[[], None]) -> None:
        self._loader = loader
        self._then = then

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        created: ModuleType | None = self._loader.create_module(spec)  # type: ignore[attr-defined]
        return created

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)  # type: ignore[attr-defined]
        self._then()

    def __getattr__(self, name: str) -> object:
        return getattr(self._loader, name)
