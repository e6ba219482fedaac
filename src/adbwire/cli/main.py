"""Entry point: build the parser from the command modules, run one, map errors to exit codes.

Only the module of the command being run is imported and registered; without a command
(`--help`, a mistyped word) every command is a stub parser made from the table below (its
name and its --help line), and `--version` builds none: `adbwire --version`, `--help` and
`-s S shell true` import almost nothing they do not use. A new command is one line in
`COMMANDS` (tests/test_cli_startup.py checks each line against what its module registers).

Expected failures (device unreachable, bad argument, refused service) print one line on
stderr and exit non-zero; a traceback is shown only with --debug or ADBWIRE_DEBUG=1.
"""

from __future__ import annotations

import os
import sys

from adbwire import __version__

TYPE_CHECKING = False  # `adbwire --version` imports no typing, argparse or enum (#20)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path
    from types import ModuleType

EXIT_USAGE = 2
EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class Command:
    """A command word, the module under adbwire.cli that registers it, its --help line."""

    __slots__ = ("help", "module", "word")

    def __init__(self, word: str, module: str, help: str) -> None:
        self.word = word
        self.module = module
        self.help = help

    def __repr__(self) -> str:
        return f"Command({self.word!r}, {self.module!r}, {self.help!r})"


_SHELL_HELP = "run a shell command on the device (interactive shell with no command)"
_WAIT_HELP = "wait for a device (also wait-for[-usb|-local|-any]-STATE)"
_SPLITS_HELP = "install an app made of several APKs (base and splits)"
_CAPTURE_HELP = "turn a pcap/pcapng capture of an ADB session into a replayable fixture"

COMMANDS: tuple[Command | ModuleType, ...] = (
    Command("serve", "serve", "run the MCP server for AI agents"),
    Command("demo", "demo", "a scripted agent session against the simulated device"),
    Command("devices", "devices", "list devices"),
    Command("shell", "shell", _SHELL_HELP),
    Command("push", "push", "copy local files/directories to the device"),
    Command("pull", "pull", "copy device files/directories here"),
    Command("ls", "ls", "list a device directory"),
    Command("install", "install", "install an APK"),
    Command("install-multiple", "install_multiple", _SPLITS_HELP),
    Command("uninstall", "uninstall", "uninstall an app"),
    Command("forward", "forward", "forward a host port to the device (foreground)"),
    Command("reverse", "reverse", "relay a device port to a host port (foreground)"),
    Command("logcat", "logcat", "show the device log (logcat --help for its options)"),
    Command("get-state", "state", "print the device's state: device, recovery, bootloader, ..."),
    Command("get-serialno", "state", "print the device's serial number"),
    Command("get-devpath", "state", "print the device's USB path (unknown for TCP devices)"),
    Command("wait-for-device", "wait_for", _WAIT_HELP),
    Command("connect", "connect", "connect to a device via TCP/IP [default port=5555]"),
    Command("disconnect", "connect", "forget a TCP/IP device [default port=5555], or all"),
    Command("remount", "remount", "remount partitions read-write (needs root)"),
    Command("bugreport", "bugreport", "write a zipped bug report to PATH"),
    Command("reboot", "reboot", "reboot the device"),
    Command("root", "root", "restart adbd with root permissions"),
    Command("unroot", "root", "restart adbd without root permissions"),
    Command("tcpip", "tcpip", "restart adbd listening on TCP PORT"),
    Command("usb", "tcpip", "restart adbd listening on USB only"),
    Command("pair", "pair", "pair with a phone for wireless debugging (Android 11+)"),
    Command("mdns", "mdns", "wireless-debugging devices advertised by mDNS"),
    Command("keygen", "keygen", "create an adb RSA key pair"),
    Command("simulate", "simulate", "run a simulated Android device (for tests and demos)"),
    Command("import-capture", "import_capture", _CAPTURE_HELP),
    Command("trace", "trace", "view a recorded agent session (serve --trace)"),
)
"""Tests may add a command module itself (it is then registered as it is)."""
WORD_PREFIXES = {"wait-for-": "wait_for"}
"""Command words a module registers beyond its table lines (wait-for-usb-recovery, ...)."""
_VALUE_OPTIONS = frozenset(
    {"-s", "--serial", "--timeout", "--connect-timeout", "--auth-timeout", "--record"}
    | {"--replay", "--record-note", "--record-origin"}
)
_OPTIONAL_VALUE = "--redact-serial"
"""Takes the next word as its value unless that word is an option or a command word."""
ALL_SERIALS = "--redact-serial="
"""`--redact-serial` with no value, as `normalise` spells it for argparse."""


def _is_command_word(token: str) -> bool:
    words = (entry.word for entry in COMMANDS if isinstance(entry, Command))
    return token in words or token.startswith(tuple(WORD_PREFIXES))


def normalise(argv: Sequence[str]) -> list[str]:
    """`--redact-serial` followed by a command word takes no value: argparse's nargs='?'
    would swallow the command (`--record f --redact-serial shell ls`)."""
    result = list(argv)
    skip = False
    for index, token in enumerate(result):
        if skip:
            skip = False
        elif token in _VALUE_OPTIONS:
            skip = True
        elif token == _OPTIONAL_VALUE:
            following = result[index + 1] if index + 1 < len(result) else "-"
            if following.startswith("-") or _is_command_word(following):
                result[index] = ALL_SERIALS
            else:
                skip = True
        elif not token.startswith("-"):
            break  # the command: its own arguments are not ours to rewrite
    return result


def redact_serial_value(value: str) -> str | bool:
    """argparse type of --redact-serial: empty (no serial given) redacts the device's own."""
    return value or True


def command_module(argv: Sequence[str]) -> str | None:
    """The module (under adbwire.cli) of the command `argv` runs; None when it names none."""
    words = {entry.word: entry.module for entry in COMMANDS if isinstance(entry, Command)}
    skip = False
    for token in normalise(argv):
        if skip:
            skip = False
        elif token in _VALUE_OPTIONS or token == _OPTIONAL_VALUE:
            skip = True
        elif token in words:
            return words[token]
        elif not token.startswith("-"):
            return next((m for p, m in WORD_PREFIXES.items() if token.startswith(p)), None)
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `argv`, only the module of the command it runs is imported
    (every other command is a stub that lists it in --help and in did-you-mean)."""
    import importlib  # noqa: PLC0415 - these imports are kept out of --version (#20)

    from adbwire.cli.suggest import SuggestingParser  # noqa: PLC0415

    parser = SuggestingParser(
        prog="adbwire",
        description="Talk to Android devices over the ADB wire protocol, with no adb binary.",
    )
    parser.add_argument("--version", action="version", version=f"adbwire {__version__}")
    parser.add_argument(
        "-s",
        "--serial",
        metavar="SERIAL",
        default=os.environ.get("ANDROID_SERIAL"),
        help="device to use: USB serial, usb:PORT-PATH or HOST:PORT "
        "(default: $ANDROID_SERIAL, or the only device)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="deadline of one operation; for file transfers, the longest wait for the "
        "device between two steps (default: 30; inf for none)",
    )
    parser.add_argument(
        "--connect-timeout", type=float, default=10.0, metavar="SECONDS", help="default: 10"
    )
    parser.add_argument(
        "--auth-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for 'Allow USB debugging?' to be accepted (default: 60)",
    )
    parser.add_argument(
        "--debug", action="store_true", help="log protocol details, show tracebacks"
    )
    recording = parser.add_argument_group("record and replay (docs/fixtures.md)")
    recording.add_argument(
        "--record", type=_path, metavar="FILE", help="write the device session to FILE"
    )
    recording.add_argument(
        "--replay", type=_path, metavar="FILE", help="replay FILE instead of using a device"
    )
    recording.add_argument(
        "--record-note", default="", metavar="TEXT", help="free text for the recording's header"
    )
    recording.add_argument(
        "--record-origin",
        choices=("real device", "simulated device"),
        default=None,
        help="what the recording says it came from (default: real device)",
    )
    recording.add_argument(
        "--redact-serial",
        nargs="?",
        const=True,
        default=False,
        type=redact_serial_value,
        metavar="SERIAL",
        help="replace the device serial in the recording with X's",
    )
    recording.add_argument(
        "--strict-replay",
        action="store_true",
        help="recorded traffic the command did not use is an error (default: a warning)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    selected = None if argv is None else command_module(argv)
    if argv is None or selected is None:
        stubs = argv is None or not _only_version(argv)
    else:  # `adbwire -h shell` lists every command, `adbwire shell -h` only needs shell
        stubs = _help_before(argv, selected)
    given = {entry.__name__ for entry in COMMANDS if not isinstance(entry, Command)}
    registered: set[str] = set()
    for entry in COMMANDS:
        if not isinstance(entry, Command):
            entry.register(commands)
            continue
        path = f"adbwire.cli.{entry.module}"
        if path in given or path in registered:
            continue
        if argv is None or entry.module == selected:
            importlib.import_module(path).register(commands)
            registered.add(path)
        elif stubs:
            commands.add_parser(entry.word, help=entry.help, add_help=False)
    return parser


def _path(text: str) -> Path:
    from pathlib import Path  # noqa: PLC0415 - not needed for --version and --help

    return Path(text)


def _help_before(argv: Sequence[str], module: str) -> bool:
    """-h/--help comes before the word of the command `module` runs."""
    for token in argv:
        if token in ("-h", "--help"):
            return True
        if command_module([token]) == module:
            return False
    return False


def _only_version(argv: Sequence[str]) -> bool:
    """`--version` without help: argparse prints it before it looks for a command."""
    return "--version" in argv and not {"-h", "--help"} & set(argv)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:  # what argparse's version action prints, without argparse
        print(f"adbwire {__version__}")
        return 0
    import threading  # noqa: PLC0415

    from adbwire.errors import AdbwireError, Fault  # noqa: PLC0415

    argv = normalise(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    debug = args.debug or os.environ.get("ADBWIRE_DEBUG") == "1"
    from adbwire.cli.log_setup import configure_logging  # noqa: PLC0415 - see there (#20)

    configure_logging(debug=debug)
    if threading.current_thread() is threading.main_thread():
        from adbwire.cli import _signal  # noqa: PLC0415 - the C module, no enums (#20)

        _signal.signal(_signal.SIGINT, _signal.default_int_handler)  # see cli/__init__.py
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of our output went away (`adbwire shell cat big | head`): stop quietly,
        # as a pipeline expects, and keep Python from complaining when stdout is flushed.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except AdbwireError as exc:
        if debug:
            raise
        from adbwire.cli.terminal_text import visible  # noqa: PLC0415 - only on errors

        # Messages quote device text (names, error output): shown with escapes made visible.
        print(f"adbwire: error: {visible(str(exc), multiline=True)}", file=sys.stderr)
        return EXIT_USAGE if exc.fault is Fault.CALLER else EXIT_FAILURE
    return code


if __name__ == "__main__":
    sys.exit(main())
