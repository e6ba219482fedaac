#!/usr/bin/env bash
# The main job on a fresh machine: install adbwire into .venv, then
#  1. `adbwire demo`: an MCP client session (what an AI agent does) with the simulated device:
#     launch an app, read the screen, tap by label, type, take a screenshot;
#  2. the adbwire CLI against a simulated device on loopback: devices, shell, push, ls, pull.
# The simulated device is a test adbd shipped in the package; no adb binary is involved.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
export PATH="$PWD/.venv/bin:$PATH"
export ADBWIRE_MDNS=0   # the demo's device is on loopback: no mDNS browse of your network

adbwire demo
printf '\n--- the same device, driven from the command line ---\n'

work=$(mktemp -d)
export HOME="$work/home"   # a fresh adb key for the demo; your ~/.android is not touched
mkdir -p "$HOME"
adbwire simulate --port 0 >"$work/address" 2>"$work/simulator.log" &
simulator=$!
trap 'kill $simulator 2>/dev/null; wait $simulator 2>/dev/null; rm -rf "$work"' EXIT
# Up to 30 s for its address: a cold start on a busy CI machine takes seconds.
for _ in $(seq 300); do [ -s "$work/address" ] && break; sleep 0.1; done
address=$(head -n1 "$work/address")
[ -n "$address" ] || { cat "$work/simulator.log"; exit 1; }

step() { printf '\n$ %s\n' "$*"; "$@"; }
step adbwire devices -l "$address"
export ANDROID_SERIAL="$address"
step adbwire shell getprop ro.product.model
step adbwire shell pm list packages -3
set +e
step adbwire shell 'echo to stdout; echo to stderr >&2; exit 3'
echo "(exit status $?)"
set -e
echo "hello from the host" >"$work/hello.txt"
step adbwire push "$work/hello.txt" /sdcard/Download/
step adbwire ls /sdcard/Download
step adbwire shell cat /sdcard/Download/hello.txt
step adbwire pull /sdcard/Download/hello.txt "$work/back.txt"
cmp "$work/hello.txt" "$work/back.txt" && echo "pulled bytes are identical"
