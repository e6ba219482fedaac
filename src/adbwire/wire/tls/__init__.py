"""Wireless debugging's TLS: the adb key's certificate and TLS 1.3 over the ADB socket.

- `certificate`: the self-signed X.509 certificate AOSP's adb makes from an adb RSA key.
"""
