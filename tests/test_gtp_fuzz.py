"""Fuzz: thousands of random and malformed lines (bad vertices, missing arguments, huge numbers,
unicode, control characters, very long lines) never crash the engine, never produce a malformed
response, and never change the board on a failed command."""

from __future__ import annotations

import random
import subprocess

import pytest
from gtp_client import PYTHON, ROOT, InProcessEngine, parse_response

from gtp_engine.commands import COMMANDS
from gtp_engine.protocol import parse_command, preprocess

SETTINGS = (
    "mcts.rounds=40",
    "time.default_seconds=0",
    "scoring.playouts=40",
    "pass.playouts=40",
    "analysis.visits=40",
    "analysis.ownership_playouts=20",
    "analysis.max_visits=200",
    "time.max_seconds=0.5",
)
STREAMING = {"lz-analyze", "kata-analyze", "analyze"}

# fmt: off
WORDS = [
    "b", "w", "B", "white", "BLACK", "x", "pass", "PASS", "resign", "a1", "D4", "j9", "T19", "Z25", "z26", "I5",
    "A0", "A-1", "K10", "e5", "0", "1", "2", "7", "9", "13", "19", "25", "26", "-1", "-7.5", "6.5", "1e9",
    "99999999999999999999999999", "1" * 60, "nan", "inf", "-inf", "0x10", "", "true", "false", "alive", "dead",
    "seki", "none", "absolute", "canadian", "byoyomi", "fischer", "fischer-capped", "interval", "ownership",
    "maxmoves", "avoid", "allow", "chinese", "é", "日本", "🀄", "\u200b", "\u00a0", "--", "#", "=", "?", ":", "9:9",
]
# fmt: on


def random_line(rng: random.Random, names: list[str]) -> str:
    kind = rng.random()
    if kind < 0.6:
        name = rng.choice(names)
        args = [rng.choice(WORDS) for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4, 6)))]
        line = " ".join([name, *args])
        if rng.random() < 0.2:
            line = f"{rng.choice(('1', '42', '007', '99999999999999999999'))} {line}"
    elif kind < 0.7:
        line = "".join(chr(rng.randrange(0, 0x3000)) for _ in range(rng.randrange(1, 40))).replace("\n", " ")
    elif kind < 0.8:
        line = "".join(rng.choice("\x00\x01\x07\x08\t\r\x0b\x0c\x1b\x7f #abc") for _ in range(rng.randrange(1, 20)))
    elif kind < 0.85:
        line = rng.choice(names) + " " + rng.choice(("a1 " * rng.randrange(1, 3000), "x" * rng.randrange(1, 100000)))
    elif kind < 0.95:
        line = f"play {rng.choice('bw')} {rng.choice('ABCDEFGHJKLMNOPQRST')}{rng.randrange(1, 20)}"
    else:
        line = rng.choice(("genmove b", "genmove w", "undo", "clear_board", "boardsize 9", "boardsize 5"))
    return line


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz_in_process(seed: int, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # loadsgf/printsgf FILE only ever touch the temporary folder
    rng = random.Random(seed)
    names = [n for n in COMMANDS if n not in STREAMING and n != "quit"] + ["frobnicate", "Play", "genmove_"]
    eng = InProcessEngine(*SETTINGS)
    eng.ok("boardsize 9")
    failures = 0
    try:
        for _ in range(1500):
            line = random_line(rng, names)
            cleaned = preprocess(line)
            if cleaned and parse_command(cleaned).name in ("printsgf", "loadsgf"):
                line = f"{parse_command(cleaned).name} {rng.choice(('game.sgf', 'missing.sgf', 'game.sgf 3'))}"
            before = eng.board_signature()
            r = eng.ask(line)
            if r is None:
                assert not preprocess(line), f"no response to {line!r}"
                continue
            cmd = parse_command(preprocess(line))
            assert r.id == cmd.id, (line, r)
            if not r.ok:
                failures += 1
                assert eng.board_signature() == before, f"failed {line[:200]!r} changed the board: {r.text}"
                assert "internal error" not in r.text, f"{line[:200]!r}: {r.text}"
            state = eng.engine.game.state
            assert state.board.num_rows == eng.engine.game.rows
    finally:
        eng.close()
    assert failures > 300  # the fuzz did reach the error paths


def test_fuzz_through_the_process(tmp_path) -> None:
    """Mixed traffic over a real pipe, analysis commands and interrupts included: the output is
    exactly one well-formed response per command line, and the engine exits 0 at EOF."""
    rng = random.Random(7)
    names = [n for n in COMMANDS if n != "quit"]
    lines = ["boardsize 9"]
    for _ in range(600):
        if rng.random() < 0.08:
            lines.append(f"{rng.choice(sorted(STREAMING))} {rng.choice(('B', 'w', ''))} {rng.choice(('1', '10', ''))}")
        elif rng.random() < 0.05:
            lines.append(rng.choice(("# interrupt", "gogui-interrupt", "genmove b", "genmove w")))
        else:
            line = random_line(rng, names)
            cleaned = preprocess(line)
            if cleaned and parse_command(cleaned).name in ("printsgf", "loadsgf"):
                line = "printsgf"
            lines.append(line)
    payload = "\r\n".join(lines).encode("utf-8", errors="surrogatepass") + b"\r\n"
    args = []
    for s in SETTINGS:
        args += ["--set", s]
    proc = subprocess.run(
        [PYTHON, "-m", "gtp_engine", "--config", str(ROOT / "configs/engine/mcts.toml"), *args],
        input=payload,
        capture_output=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    out = proc.stdout.decode("utf-8")
    chunks = out.split("\n\n")
    assert chunks[-1] == ""
    responses = [parse_response(chunk + "\n\n") for chunk in chunks[:-1]]
    expected = [line for line in lines if preprocess(line.encode("utf-8", "replace").decode("utf-8"))]
    assert len(responses) == len(expected)
    for line, r in zip(expected, responses):
        assert r.id == parse_command(preprocess(line)).id
    assert b"Traceback" not in proc.stderr
