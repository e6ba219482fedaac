"""`logging.getLogger(name)` for the modules every `adbwire -s S shell` loads, without
importing logging (~8 ms of a CLI start, issue #20) until a message can reach a handler.

Until something imports logging, nothing can have configured it: the root logger would be
at its default level, WARNING, so debug and info messages would go nowhere and are dropped
here without importing it. A warning or an error imports logging and is logged as usual
(the command line configures logging the moment it is imported: cli/log_setup.py). Once
logging is loaded, by anyone, every call goes to the real logger.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing is not imported for this (mypy knows the idiom)
if TYPE_CHECKING:
    import logging


class LazyLogger:
    """The few Logger methods adbwire's start-up path uses, forwarded when they can matter."""

    __slots__ = ("_logger", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: logging.Logger | None = None

    def _real(self) -> logging.Logger:
        if self._logger is None:
            import logging  # noqa: PLC0415 - the point of this module

            self._logger = logging.getLogger(self.name)
        return self._logger

    def debug(self, message: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._real().debug(message, *args, stacklevel=2)

    def info(self, message: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._real().info(message, *args, stacklevel=2)

    def warning(self, message: str, *args: object) -> None:
        self._real().warning(message, *args, stacklevel=2)

    def error(self, message: str, *args: object) -> None:
        self._real().error(message, *args, stacklevel=2)

    def exception(self, message: str, *args: object) -> None:
        self._real().exception(message, *args, stacklevel=2)


def get_logger(name: str) -> LazyLogger:
    return LazyLogger(name)
