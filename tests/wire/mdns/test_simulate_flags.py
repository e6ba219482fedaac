"""`adbwire simulate --qr-payload`: the flags a simulated phone that scanned a QR code takes."""

from __future__ import annotations

import pytest

from adbwire.cli import main as cli_main
from adbwire.cli.simulate import build_options, pairing_code
from adbwire.errors import UsageError

PAYLOAD = "WIFI:T:ADB;S:studio-abcdefghij;P:Pw3rd9XyZ012;;"


def simulate_args(*flags: str) -> object:
    return cli_main.build_parser().parse_args(["simulate", *flags])


def test_the_qr_password_is_the_pairing_code() -> None:
    args = simulate_args("--wireless", "--qr-payload", PAYLOAD)
    build_options(args)  # type: ignore[arg-type]
    assert pairing_code(args) == "Pw3rd9XyZ012"  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--qr-payload", PAYLOAD], "need --wireless"),
        (["--wireless", "--qr-payload", PAYLOAD, "--pair-code", "123456"], "exclude each other"),
    ],
)
def test_qr_payload_flags_are_checked(flags: list[str], problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        build_options(simulate_args(*flags))  # type: ignore[arg-type]


def test_a_payload_that_is_not_adbs_is_refused() -> None:
    args = simulate_args("--wireless", "--qr-payload", "WIFI:T:WPA;S:home;P:secret;;")
    with pytest.raises(UsageError, match="T:ADB"):
        pairing_code(args)  # type: ignore[arg-type]
