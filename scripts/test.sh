#!/usr/bin/env bash
# The whole test suite on a fresh machine: makes .venv, installs adbwire with its test
# extras, then runs lint, types and pytest. Interop tests use Google's adb as an oracle
# when /usr/bin/adb exists (.ci/run installs it); they are skipped with a reason otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
.venv/bin/ruff check src tests
.venv/bin/ruff format --check src tests
.venv/bin/mypy
.venv/bin/pytest -ra "$@"
