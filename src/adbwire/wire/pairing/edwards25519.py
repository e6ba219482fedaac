"""The twisted Edwards curve edwards25519 over plain Python integers, as SPAKE2 needs it.

-x² + y² = 1 + d·x²·y² over GF(2²⁵⁵ - 19). Points are kept in extended coordinates
(X:Y:Z:T) with x = X/Z, y = Y/Z, x·y = T/Z, and added with the complete formula of Hisil,
Wong, Carter and Dawson (2008), which is exact for every pair of points, including equal
points, the identity and points of small order. So `scalar_mult(k, P)` is k·P for any k ≥ 0,
whatever subgroup P lies in: the results agree with BoringSSL's constant-time tables, which
compute the same group elements.

Nothing here is constant-time. Pairing runs one SPAKE2 exchange per attempt with a fresh
secret scalar, over a link where a device already limits the attempts; timing attacks on a
host-side CLI are out of scope. The arithmetic is cross-checked against BoringSSL's SPAKE2
(through spake2-cffi) in tests/wire/pairing/test_spake2.py.
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = [
    "BASE",
    "IDENTITY",
    "ORDER",
    "PRIME",
    "Point",
    "add",
    "decode",
    "encode",
    "negate",
    "scalar_mult",
]

PRIME: Final = 2**255 - 19
ORDER: Final = 2**252 + 27742317777372353535851937790883648493
"""l, the order of the prime-order subgroup (the full group has order 8·l)."""
_D: Final = -121665 * pow(121666, PRIME - 2, PRIME) % PRIME
_TWO_D: Final = 2 * _D % PRIME
_SQRT_MINUS_ONE: Final = pow(2, (PRIME - 1) // 4, PRIME)
_Y_MASK: Final = (1 << 255) - 1


class Point(NamedTuple):
    """A point in extended coordinates; compare points with `encode`, not with ==."""

    x: int
    y: int
    z: int
    t: int


IDENTITY: Final = Point(0, 1, 1, 0)


def add(p: Point, q: Point) -> Point:
    """p + q (the complete formula: also right for p == q and for the identity)."""
    a = (p.y - p.x) * (q.y - q.x) % PRIME
    b = (p.y + p.x) * (q.y + q.x) % PRIME
    c = p.t * _TWO_D * q.t % PRIME
    d = 2 * p.z * q.z % PRIME
    e, f, g, h = b - a, d - c, d + c, b + a
    return Point(e * f % PRIME, g * h % PRIME, f * g % PRIME, e * h % PRIME)


def negate(p: Point) -> Point:
    return Point(-p.x % PRIME, p.y, p.z, -p.t % PRIME)


def scalar_mult(k: int, p: Point) -> Point:
    """k·p for any integer k ≥ 0 (no reduction of k: 8·l + 1 times a torsion point stays one)."""
    if k < 0:
        raise ValueError("scalar_mult takes a non-negative scalar")
    result = IDENTITY
    for bit in bin(k)[2:]:
        result = add(result, result)
        if bit == "1":
            result = add(result, p)
    return result


def encode(p: Point) -> bytes:
    """The 32-byte encoding: y little-endian, the low bit of x in the top bit."""
    z_inverse = pow(p.z, PRIME - 2, PRIME)
    x = p.x * z_inverse % PRIME
    y = p.y * z_inverse % PRIME
    return (y | (x & 1) << 255).to_bytes(32, "little")


def decode(data: bytes) -> Point | None:
    """The point `data` encodes, or None when no point has that y.

    Deliberately as lax as BoringSSL's x25519_ge_frombytes_vartime, which the device runs:
    the top bit is the sign of x, the other 255 bits are y taken modulo p (a y ≥ p is not
    refused), and a sign bit on x = 0 is ignored.
    """
    if len(data) != 32:
        raise ValueError(f"an edwards25519 point is 32 bytes, not {len(data)}")
    encoded = int.from_bytes(data, "little")
    y = (encoded & _Y_MASK) % PRIME
    sign = encoded >> 255
    u = (y * y - 1) % PRIME
    v = (_D * y * y + 1) % PRIME
    # x = sqrt(u/v) by the usual exponentiation, then the fix-up by sqrt(-1).
    v3 = v * v * v % PRIME
    x = u * v3 * pow(u * v3 * v3 * v, (PRIME - 5) // 8, PRIME) % PRIME
    check = v * x * x % PRIME
    if check != u:
        if check != -u % PRIME:
            return None
        x = x * _SQRT_MINUS_ONE % PRIME
    if x & 1 != sign:
        x = -x % PRIME
    return Point(x, y, 1, x * y % PRIME)


def _base_point() -> Point:
    # The standard base point: y = 4/5, x even.
    y = 4 * pow(5, PRIME - 2, PRIME) % PRIME
    point = decode(y.to_bytes(32, "little"))
    assert point is not None
    return point


BASE: Final = _base_point()
