"""Side-by-side benchmarks: adbwire vs Google's adb vs adb_shell, on one simulated device.

Run `python -m benchmarks` (full) or `python -m benchmarks --quick` (seconds; what the test
suite runs). Results go to benchmarks/results/ as markdown and JSON; docs/performance.md
explains the measurements. This package is not product code: it may run Google's adb as the
baseline, always fenced in (own server port, own HOME and key, kill-server at the end).
"""
