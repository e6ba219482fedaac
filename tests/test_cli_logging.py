"""The command line's logging (cli/log_setup.py, wire/lazy_logging.py): set up the moment
something imports logging, so a start that logs nothing never imports it (issue #20), and
every message looks as it did when logging was set up first."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINE = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} "  # the asctime of FORMAT


def run_python(program: str) -> tuple[str, str]:
    """stdout and stderr of `program` in a fresh interpreter (no logging loaded by pytest)."""
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin"},
        check=True,
    )
    return done.stdout, done.stderr


def test_nothing_logged_nothing_imported_then_set_up_by_the_first_import() -> None:
    out, err = run_python(
        "import sys\n"
        "from adbwire.cli.log_setup import configure_logging\n"
        "from adbwire.wire.lazy_logging import get_logger\n"
        "configure_logging(debug=False)\n"
        "get_logger('adbwire.quiet').debug('dropped %s', 1)\n"
        "get_logger('adbwire.quiet').info('dropped too')\n"
        "print('logging' in sys.modules)\n"
        "import logging\n"  # as a module loaded later would: set up before it runs on
        "logging.getLogger('third.party').warning('plain %s', 'logging')\n"
        "logging.getLogger('third.party').info('below the level')\n"
    )
    assert out == "False\n"
    assert re.fullmatch(LINE + r"third\.party WARNING plain logging\n", err), err


def test_a_lazy_warning_imports_logging_and_comes_out_formatted() -> None:
    out, err = run_python(
        "import sys\n"
        "from adbwire.cli.log_setup import configure_logging\n"
        "from adbwire.wire.lazy_logging import get_logger\n"
        "configure_logging(debug=False)\n"
        "get_logger('adbwire.wire.keys').warning('%s: cannot be read', 'adbkey.pub')\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError:\n"
        "    get_logger('adbwire.wire.reading').exception('reader crashed')\n"
        "print('logging' in sys.modules)\n"
    )
    assert out == "True\n"
    first, second, *trace = err.splitlines()
    assert re.fullmatch(LINE + "adbwire.wire.keys WARNING adbkey.pub: cannot be read", first)
    assert re.fullmatch(LINE + "adbwire.wire.reading ERROR reader crashed", second)
    assert trace[0] == "Traceback (most recent call last):" and "ZeroDivisionError" in trace[-1]


def test_a_python_warning_goes_through_logging_as_captureWarnings_had_it() -> None:
    _, err = run_python(
        "import warnings\n"
        "from adbwire.cli.log_setup import configure_logging\n"
        "configure_logging(debug=False)\n"
        "warnings.warn('first')\n"
        "warnings.warn('second', DeprecationWarning, stacklevel=1)\n"  # shown: __main__
    )
    lines = err.splitlines()
    assert re.fullmatch(LINE + "py.warnings WARNING <string>:4: UserWarning: first", lines[0])
    assert re.fullmatch(
        LINE + "py.warnings WARNING <string>:5: DeprecationWarning: second", lines[2]
    )


def test_debug_sets_logging_up_at_once_and_shows_debug_lines() -> None:
    out, err = run_python(
        "import sys\n"
        "from adbwire.cli.log_setup import configure_logging\n"
        "from adbwire.wire.lazy_logging import get_logger\n"
        "configure_logging(debug=True)\n"
        "print('logging' in sys.modules)\n"
        "get_logger('adbwire.wire.protocol').debug('ignoring an OKAY %d', 7)\n"
    )
    assert out == "True\n"
    assert re.fullmatch(LINE + r"adbwire\.wire\.protocol DEBUG ignoring an OKAY 7\n", err), err


def test_a_message_names_the_line_that_logged_it() -> None:
    """The stand-in logger is no frame of its own in a record (funcName, lineno)."""
    _, err = run_python(
        "import logging\n"
        "logging.basicConfig(format='%(funcName)s:%(lineno)d %(message)s')\n"
        "from adbwire.wire.lazy_logging import get_logger\n"
        "def caller():\n"
        "    get_logger('x').warning('here')\n"
        "caller()\n"
    )
    assert err == "caller:5 here\n"
