"""GoGui: the engine driven by GoGui 1.6's own GTP client and answer parsers (from gogui.jar).

tests/gogui/GoGuiClientCheck.java runs the engine through ``net.sf.gogui.gtp.GtpClient`` with
GoGui's auto-numbering (every command carries an id) and parses the analysis answers with the
functions GoGui's views use (``GtpUtil.parseDoubleBoard`` for ``dboard``, ``parsePointStringList``
for ``pspairs``, ``parseVariation``, ``parsePointList``, ``AnalyzeDefinition.read``). GoGui's
client takes everything after the first space of a response as the answer, so a multi-line
answer must start ``=ID `` with the space; without it the ownership view failed with
"Incomplete string board" and an empty answer read as its id.

The jars live outside the repository, in ``../shared/tools/gogui/``; the test skips without them
or without Java 11+ (single-file source launch).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gtp_client import parse_response

ROOT = Path(__file__).resolve().parents[1]
GOGUI_JAR = ROOT.parent / "shared" / "tools" / "gogui" / "gogui.jar"
CHECK = ROOT / "tests" / "gogui" / "GoGuiClientCheck.java"
SIZE = 9
# Small budgets: the point is the framing of every answer, not the strength of the analysis.
ENGINE = (
    f"{sys.executable} -m gtp_engine --config configs/engine/mcts.toml --set mcts.rounds=200"
    " --set analysis.visits=200 --set analysis.seconds=0 --set analysis.ownership_playouts=40"
)

pytestmark = [
    pytest.mark.skipif(shutil.which("java") is None, reason="java (11+) not found"),
    pytest.mark.skipif(not GOGUI_JAR.is_file(), reason=f"GoGui jars not found ({GOGUI_JAR})"),
]


def _gogui_run() -> dict[str, list[list[str]]]:
    proc = subprocess.run(
        ["java", "-cp", str(GOGUI_JAR), str(CHECK), str(SIZE), "true", ENGINE],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    records: dict[str, list[list[str]]] = {}
    for line in proc.stdout.splitlines():
        kind, *fields = line.split("\t")
        records.setdefault(kind, []).append(fields)
    return records


@pytest.fixture(scope="module")
def gogui() -> dict[str, list[list[str]]]:
    return _gogui_run()


def test_gogui_accepts_every_answer(gogui) -> None:
    assert "error" not in gogui, gogui.get("error")
    full = {cmd: json.loads(text) for cmd, text in gogui["full"]}
    answers = {cmd: json.loads(text) for cmd, text in gogui["answer"]}
    assert set(answers) == set(full)
    for cmd, raw in full.items():
        # GoGui's answer is the response body exactly as GTP defines it (nothing cut, no id).
        expected = parse_response(raw).text
        assert answers[cmd].strip("\n") == expected, (cmd, raw, answers[cmd])
    assert answers["name"] == "dlgo"
    for cmd in ("boardsize 9", "clear_board", "komi 7", "play b C3", "final_status_list dead", "quit"):
        assert answers[cmd] == "", (cmd, full[cmd])  # was the command's id ("5", "15", ...)
    board = answers["showboard"].strip("\n").split("\n")
    assert board[0].split() == ["9"] + ["."] * SIZE


def test_gogui_ownership_view_parses(gogui) -> None:
    """``dlgo-ownership`` as GoGui's dboard view reads it: SIZE rows of SIZE floats, every value."""
    raw = json.loads(dict(gogui["full"])["dlgo-ownership"])
    sent = [[float(v) for v in row.split()] for row in parse_response(raw).lines]
    seen = [[float(v) for v in fields[0].split()] for fields in gogui["dboard"]]
    assert len(sent) == len(seen) == SIZE
    assert seen == sent
    assert all(-1.0 <= v <= 1.0 for row in seen for v in row)


def test_gogui_analysis_commands(gogui) -> None:
    definitions = {label: (kind, command) for kind, label, command in gogui["analyze"]}
    assert definitions["Ownership"] == ("DBOARD", "dlgo-ownership")
    assert definitions["Best Moves (visits)"] == ("PSPAIRS", "dlgo-visits")
    assert definitions["Principal Variation"] == ("VAR", "dlgo-pv")
    assert definitions["Dead Stones"] == ("PLIST", "final_status_list dead")

    pairs = gogui["pspairs"]
    assert pairs and all(re.fullmatch(r"[A-HJ][1-9]", p) and v.isdigit() for p, v in pairs)
    raw_pairs = parse_response(json.loads(dict(gogui["full"])["dlgo-visits"])).text.split()
    assert [x for pair in pairs for x in pair] == raw_pairs
    # GoGui's parseVariation read back: a pass (the best move of a short random search, now and
    # then) is a move with no point, printed "null".
    var = [(colour, "pass" if point == "null" else point) for colour, point in gogui["var"]]
    raw_var = parse_response(json.loads(dict(gogui["full"])["dlgo-pv"])).text.split()
    assert var and var[0][0] == "BLACK"
    assert [x for colour, point in var for x in (colour[0].lower(), point)] == raw_var
    assert gogui["plist"] == [["0"]]
    assert re.fullmatch(r"[A-HJ][1-9]", gogui["genmove"][0][0])
