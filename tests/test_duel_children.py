"""A duel's engines end with the duel, however it ends: ``timeout`` (SIGTERM), a hang-up, ``kill -9``.

The engines run in their own session (so a Ctrl-C meant for the duel does not reach them), and
nothing but an orderly exit closed them: an engine busy in a ``genmove`` when the duel was killed
went on as an orphan (an engine notices its closed input only between commands). The fake engine
here hangs in its first ``genmove``, like a long search, so only a death signal can end it.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from proc_tree import descendants, kill_all, wait_gone

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fake_gtp_engine.py"
GONE_WITHIN = 5.0  # the kernel's signal ends them at once

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _engines(duel: int) -> list[int]:
    """The fake engines under the duel (its children, or its workers' with ``-j``)."""
    return [p for p in descendants(duel) if str(FAKE) in _cmdline(p)]


@pytest.mark.parametrize(
    ("sig", "jobs"),
    [(signal.SIGTERM, 1), (signal.SIGKILL, 1), (signal.SIGTERM, 2)],
    ids=["sigterm", "sigkill", "sigterm-j2"],
)
def test_no_engine_outlives_a_killed_duel(tmp_path, sig, jobs):
    hang = shlex.join([sys.executable, str(FAKE), "hang"])
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "dlgo.match.duel", "--engine-cmd", hang, "--engine-name", "a"]
    argv += ["--opponent-cmd", hang, "--opponent-name", "b", "--games", str(2 * jobs), "-j", str(jobs)]
    argv += ["--no-gnugo-check", "--no-progress", "--move-timeout", "600", "--out", str(out)]
    duel = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    engines: list[int] = []
    try:
        # Both engines of each game started (the preflight's have quit by then), Black hanging.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            logs = list((out / "logs").glob("game-*.log")) if (out / "logs").is_dir() else []
            engines = _engines(duel.pid)
            if len(logs) == 2 * jobs and len(engines) == 2 * jobs:
                break
            assert duel.poll() is None, "the duel ended before its games got under way"
            time.sleep(0.1)
        time.sleep(0.5)  # into the first genmove
        engines = _engines(duel.pid)
        assert len(engines) == 2 * jobs, engines
        duel.send_signal(sig)
        duel.wait(timeout=30)
        left = wait_gone(engines, within=GONE_WITHIN)
        assert not left, f"engines still running {GONE_WITHIN:g} s after the duel got {sig.name}: {left}"
    finally:
        duel.kill()
        duel.wait()
        kill_all(engines)
