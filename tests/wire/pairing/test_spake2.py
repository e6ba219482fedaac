"""SPAKE2 (BoringSSL's variant) against its reference: spake2-cffi, BoringSSL's code in C.

Where spake2-cffi cannot be imported the live cross-checks skip; the known-answer vector
(recorded from spake2-cffi 1.0.1) and the derivations below still run.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable
from typing import Any

import pytest

from adbwire.errors import PairingError
from adbwire.wire.pairing import edwards25519 as ed
from adbwire.wire.pairing.spake2 import (
    POINT_M_ENCODED,
    POINT_N_ENCODED,
    Spake2,
    Spake2Role,
    password_scalar,
)

spake2_cffi: Any = None
spake2_ffi: Any = None
SKIP_REASON = ""
try:
    spake2_cffi = importlib.import_module("spake2")
    spake2_ffi = importlib.import_module("_spake2_cffi").ffi
except ImportError as exc:  # pragma: no cover - depends on the platform's wheels
    SKIP_REASON = f"spake2-cffi (BoringSSL's SPAKE2 in C) cannot be imported here: {exc}"

needs_reference = pytest.mark.skipif(spake2_cffi is None, reason=SKIP_REASON or "n/a")

CLIENT = b"adb pair client"
SERVER = b"adb pair server"
# AOSP passes sizeof(name): the C string with its NUL. spake2-cffi appends the NUL itself.
CLIENT_NAME = CLIENT + b"\0"
SERVER_NAME = SERVER + b"\0"


def fixed_random(scalar: int) -> Callable[[int], bytes]:
    """A random source whose 64 bytes reduce to `scalar` (which must be below l)."""
    return lambda size: scalar.to_bytes(size, "little")


def ours(role: Spake2Role, scalar: int | None = None) -> Spake2:
    names = (CLIENT_NAME, SERVER_NAME) if role is Spake2Role.ALICE else (SERVER_NAME, CLIENT_NAME)
    if scalar is None:
        return Spake2(role, *names)
    return Spake2(role, *names, random_bytes=fixed_random(scalar))


def reference(role: Spake2Role) -> Any:
    assert spake2_cffi is not None
    if role is Spake2Role.ALICE:
        return spake2_cffi.Spake2_Alice(CLIENT, SERVER)
    return spake2_cffi.Spake2_Bob(SERVER, CLIENT)


def reference_private_scalar(context: Any) -> int:
    """The scalar spake2-cffi drew, divided by the cofactor it multiplied in."""
    private_key = int.from_bytes(bytes(spake2_ffi.buffer(context._ctx.private_key)), "little")
    assert private_key % 8 == 0
    return private_key // 8


def other(role: Spake2Role) -> Spake2Role:
    return Spake2Role.BOB if role is Spake2Role.ALICE else Spake2Role.ALICE


# --------------------------------------------------------------- the curve and the points


def test_base_point_has_the_prime_order() -> None:
    assert ed.encode(ed.scalar_mult(ed.ORDER, ed.BASE)) == ed.encode(ed.IDENTITY)
    assert ed.encode(ed.BASE).hex() == "58" + "66" * 31


def test_addition_agrees_with_scalar_multiplication() -> None:
    p3 = ed.add(ed.add(ed.BASE, ed.BASE), ed.BASE)
    assert ed.encode(p3) == ed.encode(ed.scalar_mult(3, ed.BASE))
    assert ed.encode(ed.add(p3, ed.negate(p3))) == ed.encode(ed.IDENTITY)


def derive_point(seed: bytes) -> bytes:
    """BoringSSL's genpoint: SHA-256 of the seed, again and again, until it decodes."""
    candidate = hashlib.sha256(seed).digest()
    while ed.decode(candidate) is None:
        candidate = hashlib.sha256(candidate).digest()
    point = ed.decode(candidate)
    assert point is not None
    return ed.encode(point)


def test_m_and_n_are_derived_from_boringssl_seeds() -> None:
    assert derive_point(b"edwards25519 point generation seed (M)") == POINT_M_ENCODED
    assert derive_point(b"edwards25519 point generation seed (N)") == POINT_N_ENCODED


def test_decoding_is_as_lax_as_boringssl() -> None:
    # y = p + 1 is not canonical; BoringSSL reads it as y = 1 (the identity).
    non_canonical = (ed.PRIME + 1).to_bytes(32, "little")
    point = ed.decode(non_canonical)
    assert point is not None
    assert ed.encode(point) == ed.encode(ed.IDENTITY)
    # y = 2 has no x on the curve.
    assert ed.decode((2).to_bytes(32, "little")) is None


def test_password_scalar_is_a_multiple_of_eight_congruent_to_the_hash() -> None:
    for password in (b"", b"123456", os.urandom(70)):
        scalar, digest = password_scalar(password)
        assert digest == hashlib.sha512(password).digest()
        assert scalar % 8 == 0
        assert scalar < 8 * ed.ORDER
        assert scalar % ed.ORDER == int.from_bytes(digest, "little") % ed.ORDER


# --------------------------------------------------------------- a known answer


KAT_PASSWORD = b"482913" + bytes(range(64))
KAT_ALICE_SCALAR = 0xAF58DCC50B3E1269CE87194D14119B48CE9D0662E7A9C6A0EBFAA47DF81B414
KAT_BOB_SCALAR = 0x1EEBB49CCB335983BCF074F34315C62AAEF805E0BCB034261669BB30415B8F1
KAT_ALICE_MESSAGE = "c09b78bcbf90d4194ef27cc97173b6e0defa93345bf15ac4adf46dacb3298a91"
KAT_BOB_MESSAGE = "93a3d9e06f0008c7e389c0fa73012bab8fbd0d456e76f77616df8fbb377c5aa5"
KAT_KEY = (
    "d197a40821e0981617819ec5dc729c6ba8c4d5d7540cb084ceea856ad490cad3"
    "72833d0b6bfec8171034be8b19e1fd8a9a76c1e361adb1522b01340ca11c6849"
)


def test_known_answer_recorded_from_boringssl_code() -> None:
    """Scalars, messages and key of one spake2-cffi 1.0.1 run (AOSP's names, a 6-digit code
    followed by 64 exporter-like bytes)."""
    alice = ours(Spake2Role.ALICE, KAT_ALICE_SCALAR)
    bob = ours(Spake2Role.BOB, KAT_BOB_SCALAR)
    alice_message = alice.generate_message(KAT_PASSWORD)
    bob_message = bob.generate_message(KAT_PASSWORD)
    assert alice_message.hex() == KAT_ALICE_MESSAGE
    assert bob_message.hex() == KAT_BOB_MESSAGE
    assert alice.process_message(bob_message).hex() == KAT_KEY
    assert bob.process_message(alice_message).hex() == KAT_KEY


# --------------------------------------------------------------- live cross-checks


@needs_reference
@pytest.mark.parametrize("role", list(Spake2Role))
def test_messages_match_boringssl_for_its_own_scalar(role: Spake2Role) -> None:
    for _ in range(8):
        password = os.urandom(6) + os.urandom(64)
        theirs = reference(role)
        their_message = theirs.generate_msg(password)
        mine = ours(role, reference_private_scalar(theirs))
        assert mine.generate_message(password) == their_message
        assert mine.private_scalar == 8 * reference_private_scalar(theirs)


@needs_reference
@pytest.mark.parametrize("role", list(Spake2Role))
def test_keys_agree_with_a_boringssl_peer(role: Spake2Role) -> None:
    for _ in range(8):
        password = b"%06d" % int.from_bytes(os.urandom(3), "big") + os.urandom(64)
        mine = ours(role)
        peer = reference(other(role))
        my_message = mine.generate_message(password)
        peer_message = peer.generate_msg(password)
        key = mine.process_message(peer_message)
        assert len(key) == 64
        assert key == peer.process_msg(my_message)


@needs_reference
@pytest.mark.parametrize("role", list(Spake2Role))
def test_same_key_as_boringssl_in_our_place(role: Spake2Role) -> None:
    """Both of us, given the same scalar, password and peer message, derive the same key."""
    password = b"135790" + os.urandom(64)
    theirs = reference(role)
    theirs.generate_msg(password)
    mine = ours(role, reference_private_scalar(theirs))
    mine.generate_message(password)
    peer_message = ours(other(role)).generate_message(password)
    assert mine.process_message(peer_message) == theirs.process_msg(peer_message)


@needs_reference
@pytest.mark.parametrize("role", list(Spake2Role))
def test_wrong_password_gives_different_keys(role: Spake2Role) -> None:
    mine = ours(role)
    peer = reference(other(role))
    my_message = mine.generate_message(b"111111" + bytes(64))
    peer_message = peer.generate_msg(b"111112" + bytes(64))
    assert mine.process_message(peer_message) != peer.process_msg(my_message)


@needs_reference
def test_accepts_and_refuses_the_same_messages_as_boringssl() -> None:
    """Random 32-byte strings (about half are not points) and non-canonical encodings."""
    candidates = [os.urandom(32) for _ in range(24)]
    candidates += [(ed.PRIME + k).to_bytes(32, "little") for k in range(0, 19)]
    candidates += [bytes(c[:31]) + bytes([c[31] | 0x80]) for c in candidates[-19:]]
    password = b"246800" + bytes(64)
    refused = 0
    for candidate in candidates:
        theirs = reference(Spake2Role.BOB)
        theirs.generate_msg(password)
        mine = ours(Spake2Role.BOB, reference_private_scalar(theirs))
        mine.generate_message(password)
        try:
            their_key: bytes | None = theirs.process_msg(candidate)
        except Exception:  # spake2-cffi raises a bare Exception
            their_key = None
        if their_key is None:
            refused += 1
            with pytest.raises(PairingError, match="not a point"):
                mine.process_message(candidate)
        else:
            assert mine.process_message(candidate) == their_key
    assert 0 < refused < len(candidates)


# --------------------------------------------------------------- misuse


def test_message_of_the_wrong_size_is_refused() -> None:
    alice = ours(Spake2Role.ALICE)
    alice.generate_message(b"123456")
    with pytest.raises(PairingError, match="33 bytes"):
        alice.process_message(bytes(33))


def test_each_step_runs_once_and_in_order() -> None:
    alice = ours(Spake2Role.ALICE)
    with pytest.raises(RuntimeError):
        alice.process_message(bytes(32))
    message = alice.generate_message(b"123456")
    with pytest.raises(RuntimeError):
        alice.generate_message(b"123456")
    alice.process_message(message)
    with pytest.raises(RuntimeError):
        alice.process_message(message)
