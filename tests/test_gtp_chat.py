"""gtp2ogs chat lines: on stderr only, only when enabled, with win rate and PV."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = b"boardsize 9\ngenmove b\nplay w E5\ngenmove b\nquit\n"


def run_engine(*settings: str) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "gtp_engine", "--config", str(ROOT / "configs/engine/mcts.toml")]
    for s in ("mcts.rounds=300", "time.default_seconds=0", *settings):
        args += ["--set", s]
    return subprocess.run(args, input=COMMANDS, capture_output=True, cwd=ROOT, timeout=120, check=True)


def test_chat_lines_on_stderr_when_enabled() -> None:
    done = run_engine("chat.enabled=true", "chat.channel=discussion")
    chats = [line for line in done.stderr.decode().splitlines() if "DISCUSSION:" in line]
    assert len(chats) == 2
    for line in chats:
        assert re.fullmatch(r"DISCUSSION: black [A-HJ][1-9]: win rate \d+\.\d%, \d+ visits, PV( [A-HJ][1-9])+", line)
    stdout = done.stdout.decode()
    assert "DISCUSSION" not in stdout and "win rate" not in stdout
    assert stdout.count("\n\n") == 5  # one response per command, nothing else


def test_no_chat_by_default() -> None:
    done = run_engine()
    assert "MALKOVICH:" not in done.stderr.decode() and "DISCUSSION:" not in done.stderr.decode()
