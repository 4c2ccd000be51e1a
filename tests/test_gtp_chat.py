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


# gtp2ogs 9.0.1's PvOutputParser.ts: how it recognises Leela Zero and reads its candidates.
LZ_DETECT = re.compile(r".*\(V:.*\) \(LCB:.*\) \(N:.*\) PV: .*")
LZ_MOVE = re.compile(
    r"([A-Z]\d+|pass) -> +(\d+) \(V: +(\d+.\d\d)%\) (\(LCB: +(\d+.\d\d)%\) )?\(N: +(\d+.\d\d)%\) "
    r"PV:(( ([A-Z][0-9]+|pass)+)+)"
)
LZ_SUMMARY = re.compile(r"(\d+) visits, (\d+) nodes, (\d+) playouts, (\d+) n\/s")
SAI_DETECT = re.compile(r".*\(V:.*\) \(LCB:.*\) \(N:.*\) \(A:.*\) PV: .*")


def test_variations_in_leela_zeros_format_when_enabled() -> None:
    done = run_engine("chat.variations=true")
    stderr = done.stderr.decode().splitlines()
    moves = [line for line in stderr if LZ_MOVE.search(line)]
    summaries = [line for line in stderr if LZ_SUMMARY.search(line)]
    assert len(summaries) == 2 and len(moves) >= 2  # each genmove: its candidates, then a summary
    assert all(LZ_DETECT.match(line) and not SAI_DETECT.match(line) for line in moves)
    first = LZ_MOVE.search(moves[0])
    assert int(first.group(2)) > 0 and 0 <= float(first.group(3)) <= 100
    assert first.group(7).split()[0] == first.group(1)  # the variation begins with its move
    # the best candidate comes first, right after the previous move's summary (gtp2ogs keeps the first)
    assert stderr.index(moves[0]) < stderr.index(summaries[0])
    assert "visits" not in done.stdout.decode()
