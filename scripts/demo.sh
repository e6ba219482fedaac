#!/usr/bin/env bash
# The main job on a fresh machine: install adbwire into .venv and show the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
.venv/bin/adbwire --help
