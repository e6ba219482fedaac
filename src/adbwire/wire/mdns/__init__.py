"""mDNS (DNS-SD) discovery of wireless-debugging devices, as AOSP's adb finds them.

- `names`: the three service types, what a resolved instance holds, the checks on names and
  TXT records a device sends (untrusted), adb's QR payload `WIFI:T:ADB;S:NAME;P:PASSWORD;;`.
- `browser`: bounded browsing and resolution with python-zeroconf.

docs/wireless.md describes what is discovered and how it is checked.
"""
