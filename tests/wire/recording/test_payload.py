"""How bytes look in a fixture: readable where they are text, compact where they are not."""

from __future__ import annotations

import json
import os
import struct

import pytest

from adbwire.wire.recording.host_bytes import ShellV2Canon
from adbwire.wire.recording.payload import (
    PayloadError,
    decode_payload,
    encode_payload,
    is_shell_v2_service,
)


def shell_packet(channel: int, data: bytes) -> bytes:
    return struct.pack("<BI", channel, len(data)) + data


@pytest.mark.parametrize(
    ("data", "service", "expected"),
    [
        (b"hello\n", "", {"text": "hello\n"}),
        ("grüße\n".encode(), "", {"text": "grüße\n"}),
        (b"STAT\x07\x00\x00\x00/sdcard", "sync:", {"text": "STAT\x07\x00\x00\x00/sdcard"}),
        (b"\x00\x01\x02\xff", "", {"b64": "AAEC/w==", "size": 4}),
        (
            shell_packet(1, b"hi\n") + shell_packet(2, b"\xff") + shell_packet(3, b"\x02"),
            "shell,v2,raw:x",
            {"shell": [["stdout", "hi\n"], ["stderr", {"b64": "/w=="}], ["exit", 2]]},
        ),
        (shell_packet(4, b""), "shell,v2,TERM=xterm,pty:", {"shell": [["close-stdin", ""]]}),
    ],
)
def test_readable_forms(data: bytes, service: str, expected: dict[str, object]) -> None:
    assert encode_payload(data, service=service) == expected
    assert decode_payload(expected) == data


def test_shell_bytes_that_do_not_parse_as_packets_fall_back() -> None:
    cut = shell_packet(1, b"hello")[:-2]
    encoded = encode_payload(cut, service="shell,v2,raw:x")
    assert "shell" not in encoded
    assert decode_payload(encoded) == cut


def test_services_that_are_shell_v2() -> None:
    assert is_shell_v2_service("shell,v2,raw:ls")
    assert is_shell_v2_service("shell,v2,TERM=xterm-256color,pty:")
    assert not is_shell_v2_service("shell:ls")
    assert not is_shell_v2_service("exec:shell,v2")


def test_a_large_random_blob_costs_base64_and_no_more() -> None:
    data = os.urandom(10 * 1024 * 1024)
    line = json.dumps(encode_payload(data))
    assert len(line) < len(data) * 1.34 + 100
    assert decode_payload(json.loads(line)) == data


def test_a_large_compressible_blob_is_compressed() -> None:
    data = b"".join(f"line {i}: the quick brown fox\n".encode() for i in range(400_000))
    encoded = encode_payload(data)
    assert "zb64" in encoded and encoded["size"] == len(data)
    assert len(json.dumps(encoded)) < len(data) // 5
    assert decode_payload(encoded) == data


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({}, "exactly one of"),
        ({"text": "a", "b64": "YQ=="}, "exactly one of"),
        ({"text": 3}, "must be a string"),
        ({"b64": "not base64!"}, "not valid base64"),
        ({"b64": "YQ==", "size": 2}, "size 2"),
        ({"zb64": "AAAA", "size": 1}, "not valid zlib"),
        ({"zb64": "eJwrSS0u", "size": -1}, "non-negative"),
        ({"shell": [["stdout"]]}, "expected [channel, value]"),
        ({"shell": [["stdnothing", "x"]]}, "expected [channel, value]"),
        ({"shell": [["exit", 300]]}, "not a byte"),
    ],
)
def test_malformed_payloads(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(PayloadError) as caught:
        decode_payload(fields)
    assert problem in str(caught.value)


def test_canonical_shell_stdin_does_not_depend_on_packet_sizes() -> None:
    content = bytes(range(256)) * 40
    small = b"".join(shell_packet(0, content[i : i + 100]) for i in range(0, len(content), 100))
    large = shell_packet(0, content[:5000]) + shell_packet(0, content[5000:])
    tail = shell_packet(5, b"24x80,0x0\0") + shell_packet(4, b"")
    one, two = ShellV2Canon(), ShellV2Canon()
    fed_in_bits = b"".join(one.feed(small[i : i + 7]) for i in range(0, len(small), 7))
    assert fed_in_bits + one.feed(tail) == two.feed(large + tail)
    assert ShellV2Canon().feed(shell_packet(0, b"a") + tail) != ShellV2Canon().feed(
        shell_packet(0, b"a") + shell_packet(4, b"") + shell_packet(5, b"24x80,0x0\0")
    )
