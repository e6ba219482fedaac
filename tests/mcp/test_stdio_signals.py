"""`adbwire serve` over stdio stops cleanly on Ctrl-C or SIGTERM while its client still holds
stdin open: it exits with 128 + the signal, after closing its device sessions in order."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.mcp.spawn import environment, request, serve_argv

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]

ANSWER_WAIT = 60.0
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "signal-test", "version": "1"},
}


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_ends_a_session_whose_client_keeps_stdin_open(
    tmp_path: Path, stop: signal.Signals
) -> None:
    recording = tmp_path / "session.jsonl"
    with subprocess.Popen(
        serve_argv("--simulate", "--no-audit", "--record", str(recording)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment(tmp_path),
    ) as process:
        assert process.stdin and process.stdout and process.stderr
        process.stdin.write(
            request(1, "initialize", INITIALIZE)
            + b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
            + request(2, "tools/call", {"name": "device_info", "arguments": {}})
        )
        process.stdin.flush()
        if not answered(process, 2, within=ANSWER_WAIT):
            process.kill()
            process.wait(timeout=10)
            pytest.fail(
                f"serve did not answer within {ANSWER_WAIT} s; stderr:\n{stderr_of(process)}"
            )
        process.send_signal(stop)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
            pytest.fail(f"serve ran on 30 s after {stop.name}; stderr:\n{stderr_of(process)}")
        errors = stderr_of(process)
    assert process.returncode == 128 + stop, errors
    assert "Traceback" not in errors
    # The device connection was closed by us, so the recording ends like any other session.
    last = json.loads(recording.read_text().splitlines()[-1])
    assert (last["event"], last["by"]) == ("end", "host")


def answered(process: subprocess.Popen[bytes], request_id: int, *, within: float) -> bool:
    """True once stdout carries the answer to `request_id`; False if the server ended or
    stayed silent for `within` seconds (read in a thread, so the wait is bounded)."""
    assert process.stdout is not None
    stdout = process.stdout
    seen = threading.Event()

    def read() -> None:
        for line in stdout:
            if json.loads(line).get("id") == request_id:
                seen.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(within)
    return seen.is_set()


def stderr_of(process: subprocess.Popen[bytes]) -> str:
    assert process.stderr is not None
    return process.stderr.read().decode(errors="replace")
