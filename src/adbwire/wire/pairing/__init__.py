"""Wireless-debugging pairing (Android 11+): a 6-digit code turns into a trusted adb key.

- `edwards25519`, `spake2`: SPAKE2 exactly as BoringSSL runs it on the device.
- `cipher`: HKDF → AES-128-GCM with counter nonces, for the PeerInfo exchange.
- `messages`: the 6-byte packet header and the 8192-byte PeerInfo record.
- `channel`: TLS 1.3 with a deadline on every step, and the exporter's keying material.
- `session`: the exchange both sides run; `client` (the host, `adbwire pair`) and `server`
  (the device side, used by the simulated device).

docs/wireless.md describes the protocol byte by byte and how each part is checked.
"""
