"""SPAKE2 over edwards25519, byte for byte as BoringSSL implements it (the device's side).

AOSP's pairing (pairing_auth/pairing_auth.cpp) runs BoringSSL's SPAKE2
(crypto/curve25519/spake25519.cc) with the host as Alice and the device as Bob. One exchange:

1. Each side picks 64 random bytes, reduces them modulo l and multiplies by 8 (the cofactor):
   that is its private scalar x. It hashes the password with SHA-512 (`password_hash`),
   reduces the hash modulo l and adds l, 2l, 4l as needed to make it a multiple of 8
   (BoringSSL's "password scalar hack", which keeps the mask in the prime-order subgroup):
   that is the password scalar w.
2. It sends x·B + w·M (Alice) or x·B + w·N (Bob): 32 bytes, the message.
3. On the peer's message Q*, it computes K = x·(Q* - w·N) (Alice) or x·(Q* - w·M) (Bob).
4. The key is SHA-512 over length-prefixed fields (8-byte little-endian lengths): Alice's
   name, Bob's name, Alice's message, Bob's message, K encoded, password_hash. 64 bytes.

Both sides get the same key only if both used the same password. The names AOSP passes are
"adb pair client" and "adb pair server" with their terminating NUL (sizeof of a C string).

M and N are BoringSSL's: the first points found by hashing "edwards25519 point generation
seed (M)" / "(N)" with SHA-256 (repeatedly) until the digest decodes. Their encodings below
are the ones BoringSSL documents next to its tables; a test derives them again from the seeds.
"""

from __future__ import annotations

import enum
import hashlib
import os
import struct
from collections.abc import Callable
from typing import Final

from adbwire.errors import PairingError
from adbwire.wire.pairing import edwards25519 as ed

__all__ = [
    "MESSAGE_SIZE",
    "POINT_M",
    "POINT_N",
    "SPAKE2_KEY_SIZE",
    "Spake2",
    "Spake2Role",
    "password_scalar",
]

MESSAGE_SIZE: Final = 32
SPAKE2_KEY_SIZE: Final = 64
_RANDOM_SIZE: Final = 64

POINT_M_ENCODED: Final = bytes.fromhex(
    "5ada7e4bf6ddd9adb6626d32131c6b5c51a1e347a3478f53cfcf441b88eed12e"
)
POINT_N_ENCODED: Final = bytes.fromhex(
    "10e3df0ae37d8e7a99b5fe74b44672103dbddcbd06af680d71329a11693bc778"
)


def _point(encoded: bytes) -> ed.Point:
    point = ed.decode(encoded)
    assert point is not None, "M and N are points of the curve"
    return point


POINT_M: Final = _point(POINT_M_ENCODED)
POINT_N: Final = _point(POINT_N_ENCODED)


class Spake2Role(enum.Enum):
    ALICE = "alice"
    """The pairing client (the host)."""
    BOB = "bob"
    """The pairing server (the device)."""


class _State(enum.Enum):
    INIT = enum.auto()
    MESSAGE_GENERATED = enum.auto()
    KEY_GENERATED = enum.auto()


def password_scalar(password: bytes) -> tuple[int, bytes]:
    """(w, SHA-512(password)): the password's scalar as BoringSSL makes it, and its hash."""
    password_hash = hashlib.sha512(password).digest()
    scalar = int.from_bytes(password_hash, "little") % ed.ORDER
    # Adding l flips bit 0 (l is odd), 2l flips bit 1, 4l flips bit 2: the result is w mod l
    # and a multiple of 8, at most 8l - 1 < 2^256.
    for multiple in (1, 2, 4):
        if scalar & multiple:
            scalar += multiple * ed.ORDER
    return scalar, password_hash


def _length_prefixed(data: bytes) -> bytes:
    return struct.pack("<Q", len(data)) + data


class Spake2:
    """One side of one SPAKE2 exchange: `generate_message` once, then `process_message` once.

    `random_bytes` (default `os.urandom`) supplies the 64 bytes the private scalar comes from;
    tests pass a fixed source to compare with BoringSSL's output.
    """

    def __init__(
        self,
        role: Spake2Role,
        my_name: bytes,
        their_name: bytes,
        *,
        random_bytes: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.role = role
        self._my_name = my_name
        self._their_name = their_name
        self._random_bytes = random_bytes
        self._state = _State.INIT
        self._private_scalar = 0
        self._password_scalar = 0
        self._password_hash = b""
        self._my_message = b""

    @property
    def private_scalar(self) -> int:
        """x (already a multiple of 8); 0 before `generate_message`."""
        return self._private_scalar

    def generate_message(self, password: bytes) -> bytes:
        """Our 32-byte message for `password`. Call once."""
        if self._state is not _State.INIT:
            raise RuntimeError("a SPAKE2 message was already generated in this context")
        entropy = self._random_bytes(_RANDOM_SIZE)
        if len(entropy) != _RANDOM_SIZE:
            raise ValueError(f"random_bytes returned {len(entropy)} bytes, not {_RANDOM_SIZE}")
        self._private_scalar = int.from_bytes(entropy, "little") % ed.ORDER * 8
        self._password_scalar, self._password_hash = password_scalar(password)
        my_mask = POINT_M if self.role is Spake2Role.ALICE else POINT_N
        public = ed.add(
            ed.scalar_mult(self._private_scalar, ed.BASE),
            ed.scalar_mult(self._password_scalar, my_mask),
        )
        self._my_message = ed.encode(public)
        self._state = _State.MESSAGE_GENERATED
        return self._my_message

    def process_message(self, their_message: bytes) -> bytes:
        """The 64-byte shared key from the peer's message. Call once, after generate_message.

        Raises PairingError when the message is not 32 bytes or not a point of the curve
        (where BoringSSL's SPAKE2_process_msg fails).
        """
        if self._state is not _State.MESSAGE_GENERATED:
            raise RuntimeError("process_message needs generate_message first, and runs once")
        if len(their_message) != MESSAGE_SIZE:
            raise PairingError(
                f"the peer's SPAKE2 message is {len(their_message)} bytes; it must be "
                f"{MESSAGE_SIZE}"
            )
        their_point = ed.decode(their_message)
        if their_point is None:
            raise PairingError("the peer's SPAKE2 message is not a point of edwards25519")
        their_mask = POINT_N if self.role is Spake2Role.ALICE else POINT_M
        unmasked = ed.add(their_point, ed.negate(ed.scalar_mult(self._password_scalar, their_mask)))
        shared = ed.encode(ed.scalar_mult(self._private_scalar, unmasked))
        if self.role is Spake2Role.ALICE:
            fields = (self._my_name, self._their_name, self._my_message, their_message)
        else:
            fields = (self._their_name, self._my_name, their_message, self._my_message)
        digest = hashlib.sha512()
        for field in (*fields, shared, self._password_hash):
            digest.update(_length_prefixed(field))
        self._state = _State.KEY_GENERATED
        return digest.digest()
