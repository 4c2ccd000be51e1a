"""The duel command line (dlgo.match.duel, ``dlgo-duel``): Ctrl-C, resume, an engine that does not start."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import FAKE_ENGINE

from dlgo.match.record import load_records

ROOT = Path(__file__).resolve().parent.parent


def test_duel_script_ctrl_c_then_resume(tmp_path):
    out = tmp_path / "duel"
    cmd = [
        sys.executable, "-m", "dlgo.match.duel",
        "--engine-cmd", f"{sys.executable} {FAKE_ENGINE} slow:1.0", "--engine-name", "slow",
        "--opponent-cmd", f"{sys.executable} {FAKE_ENGINE} pass", "--opponent-name", "passer",
        "--games", "8", "-j", "2", "--no-gnugo-check", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    # Ctrl-C's default handling in the child even when this run ignores SIGINT (started in the
    # background by a shell, as `nohup pytest &` does): an ignored SIGINT is inherited.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text().strip()):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    kept = load_records(results)
    assert 1 <= len(kept) < 8
    assert json.loads((out / "summary.json").read_text())["games"] == len(kept)
    assert "interrupted" in stderr

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = results.read_text().splitlines()
    assert len(lines) == 8 and sorted(load_records(results)) == list(range(8))  # nothing replayed
    assert "slow vs passer: 8 of 8 games" in done.stdout


def test_duel_script_reports_an_engine_that_does_not_start(tmp_path):
    cmd = [sys.executable, "-m", "dlgo.match.duel", "--engine-cmd", "/nonexistent/engine",
           "--opponent-cmd", f"{sys.executable} {FAKE_ENGINE} pass",
           "--games", "1", "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "does not work as a GTP engine" in done.stderr
