"""Fuzz the decoders of the ADB framing: packet headers, payload checksums, CNXN banners."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adbwire.errors import RemoteProtocolError
from adbwire.wire import packets as P
from adbwire.wire.banner import parse_banner
from tests.fuzz.strategies import FUZZ, mutated, small_bytes

COMMANDS = sorted(P.COMMAND_NAMES)
U32 = st.integers(0, 0xFFFFFFFF)


@st.composite
def headers(draw: st.DrawFn) -> bytes:
    """24 bytes: mostly a known command with its magic, sometimes anything at all."""
    if draw(st.booleans()):
        return draw(st.binary(min_size=24, max_size=24))
    command = draw(st.sampled_from(COMMANDS) | U32)
    magic = draw(st.just(command ^ 0xFFFFFFFF) | U32)
    length = draw(st.integers(0, 2 * P.MAX_PAYLOAD) | U32)
    return P.HEADER.pack(command, draw(U32), draw(U32), length, draw(U32), magic)


@FUZZ
@given(headers(), st.integers(256, P.MAX_PAYLOAD))
def test_decode_header_validates_or_raises_remote_protocol_error(
    raw: bytes, max_payload: int
) -> None:
    try:
        header = P.decode_header(raw, max_payload=max_payload)
    except RemoteProtocolError:
        command, _a0, _a1, length, _check, magic = P.HEADER.unpack(raw)
        assert (
            magic != command ^ 0xFFFFFFFF or command not in P.COMMAND_NAMES or length > max_payload
        )
        return
    assert header.command in P.COMMAND_NAMES
    assert 0 <= header.length <= max_payload


@FUZZ
@given(small_bytes().filter(lambda raw: len(raw) != P.HEADER_SIZE))
def test_a_header_of_the_wrong_size_is_refused(raw: bytes) -> None:
    try:
        P.decode_header(raw, max_payload=P.MAX_PAYLOAD)
    except RemoteProtocolError:
        return
    raise AssertionError("accepted a header that is not 24 bytes")


@FUZZ
@given(small_bytes(), U32)
def test_verify_payload_accepts_exactly_the_byte_sum(payload: bytes, check: int) -> None:
    header = P.Header(P.A_WRTE, 1, 2, len(payload), check)
    try:
        P.verify_payload(header, payload)
    except RemoteProtocolError:
        assert check != P.checksum(payload)
    else:
        assert check == P.checksum(payload)


BANNERS = [
    b"device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;"
    b"ro.product.device=emu64xa;features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,"
    b"abb,fixed_push_symlink_timestamp,abb_exec,remount_shell,track_app,sendrecv_v2,"
    b"sendrecv_v2_dry_run_send,delayed_ack\0",
    b"recovery::ro.product.name=x;features=cmd",
    b"device:0123456789ABCDEF:",
    b"host::features=shell_v2",
]


@FUZZ
@given(mutated(BANNERS) | small_bytes())
def test_parse_banner_returns_a_banner_no_larger_than_its_input(raw: bytes) -> None:
    try:
        banner = parse_banner(raw)
    except RemoteProtocolError:
        return
    size = len(raw) + 1
    assert len(banner.properties) <= size
    assert len(banner.features) <= size
    assert all(len(key) + len(value) <= size for key, value in banner.properties.items())
    assert isinstance(banner.model, str | None)
    assert all(feature and "," not in feature for feature in banner.features)


@FUZZ
@given(st.binary(max_size=64))
def test_a_banner_with_raw_control_bytes_still_parses_the_same_way(noise: bytes) -> None:
    raw = b"device::ro.product.model=" + noise.replace(b";", b"").replace(b"\0", b"")
    banner = parse_banner(raw + b";features=shell_v2")
    assert banner.has("shell_v2")
