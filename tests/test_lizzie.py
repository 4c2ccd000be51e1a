"""Lizzie 0.7.4 (Debian ``liblizzie-java``): its start-up and analysis traffic replayed exactly.

What Lizzie sends was captured by running the real Lizzie under Xvfb with a logging relay as its
engine command (docs/clients.md): ``name``, ``version``, ``boardsize``, ``komi`` written at once,
then ``lz-analyze 10`` once the version check has passed, and ``play``/``undo`` each followed by
a new ``lz-analyze 10`` (the new command ends the running analysis). Commands carry ids.

:class:`Lizzie074` does with each output line what Lizzie 0.7.4's ``Leelaz.parseLine`` does (read
from the bytecode of the packaged ``featurecat/lizzie/analysis/Leelaz.class``). Any engine whose
name does not start with ``KataGo`` is treated as Leela Zero: the first word of the ``version``
answer is split at dots and a second number below 15 opens a modal dialog that deadlocks
Lizzie 0.7.4 at "engine is loading..."; a word without that number throws inside the thread that
reads the engine, which then stops reading. The ``info`` lines go through Lizzie's own
``MoveData`` parser (tests/lizzie/LizzieInfoCheck.java, run against the installed lizzie.jar;
that part skips when Lizzie or Java is missing).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from gtp_client import EngineProcess, InProcessEngine

from dlgo import __version__

ROOT = Path(__file__).resolve().parents[1]
LIZZIE_JAR = Path("/usr/share/java/lizzie.jar")
INFO_CHECK = ROOT / "tests" / "lizzie" / "LizzieInfoCheck.java"

# Lizzie 0.7.4 with board size 9 (its config's ui.board-size), komi 7.5, analysis interval 10 cs:
# each tuple is written at once; Lizzie's normalQuit sends quit when it closes.
LIZZIE_074_SESSION = (
    ("1 name", "2 version", "3 boardsize 9", "4 komi 7.5"),
    ("5 lz-analyze 10",),
    ("6 play B E5",),  # a click on E5
    ("7 lz-analyze 10",),
    ("8 undo",),  # the mouse wheel back
    ("9 lz-analyze 10",),
    ("10 play B E5",),  # and forward again
    ("11 lz-analyze 10",),
    ("12 quit",),
)


REFUSAL = "Lizzie requires version 0.15 or later of Leela Zero for analysis"


class LizzieCrash(Exception):
    """What would be a RuntimeException in Lizzie's engine-reading thread (it stops reading)."""


def _java_trim(s: str) -> str:
    return s.strip("".join(chr(c) for c in range(33)))


def _java_split(s: str, regex: str) -> list[str]:
    parts = re.split(regex, s)
    while len(parts) > 1 and parts[-1] == "":  # String.split drops trailing empty strings
        parts.pop()
    return parts


def _java_parse_int(s: str) -> int:
    if not re.fullmatch(r"[+-]?[0-9]+", s) or not -(2**31) <= int(s) < 2**31:
        raise LizzieCrash(f"NumberFormatException: For input string: {s!r}")
    return int(s)


def _item(parts: list[str], i: int) -> str:
    if i >= len(parts):
        raise LizzieCrash(f"ArrayIndexOutOfBoundsException: Index {i} out of bounds for length {len(parts)}")
    return parts[i]


class Lizzie074:
    """Lizzie 0.7.4's ``Leelaz.parseLine`` for the branches an engine's answers reach."""

    def __init__(self) -> None:
        self.checking_name = True  # set by startEngine before it sends name and version
        self.checking_version = True
        self.kata = False
        self.initialized = False  # Lizzie.initializeAfterVersionCheck: pondering starts
        self.dialog: str | None = None  # the modal dialog Lizzie 0.7.4 deadlocks behind
        self.current_cmd = 0
        self.info_lines: list[str] = []

    def line(self, line: str) -> None:
        if line == "\n":
            return  # end of a response
        if line.startswith("info"):
            self.info_lines.append(line)
            return
        if " -> " in line or line.startswith("play"):
            return
        if line.startswith("=") or line.startswith("?"):
            params = _java_split(_java_trim(line), " ")
            self.current_cmd = _java_parse_int(_java_trim(_item(params, 0)[1:]))
            if line.startswith("?") or len(params) == 1:
                return
            if self.checking_name:
                if params[1].startswith("KataGo"):
                    self.kata = True
                    self.initialized = True
                self.checking_name = False
            elif self.checking_version and not self.kata:
                minor = _java_parse_int(_item(_java_split(params[1], r"\."), 1))
                if minor < 15:  # "Gtp support added in version 15"
                    self.dialog = f"{REFUSAL} (found {params[1]})"
                self.checking_version = False
                self.initialized = True


def _start_up(answers: list[str]) -> Lizzie074:
    lizzie = Lizzie074()
    for answer in answers:
        lizzie.line(answer)
    return lizzie


def test_replica_refuses_what_lizzie_refused() -> None:
    """The replica reproduces the reported failures: 0.1.0 gets the dialog, other shapes crash."""
    lizzie = _start_up(["=1 dlgo\n", "\n", "=2 0.1.0\n", "\n"])
    assert lizzie.dialog == f"{REFUSAL} (found 0.1.0)"
    for version in ("1", "0.1-dev", "0.x"):
        with pytest.raises(LizzieCrash):
            _start_up(["=1 dlgo\n", f"=2 {version}\n"])
    assert _start_up(["=1 KataGo 1.15\n", "=2 1.15.3\n"]).kata  # what a KataGo-like name did
    with pytest.raises(LizzieCrash):  # a response without its id
        _start_up(["= dlgo\n"])


def test_version_passes_lizzies_check_without_pretending() -> None:
    engine = InProcessEngine()
    name, answer = engine.ask_raw("1 name"), engine.ask_raw("2 version")
    lizzie = _start_up([*name.splitlines(keepends=True), *answer.splitlines(keepends=True)])
    assert lizzie.dialog is None and lizzie.initialized
    assert not lizzie.kata  # the name stays dlgo: Lizzie uses lz-analyze, which the engine speaks
    assert f"dlgo {__version__}" in answer  # the dlgo version is still there for people and other tools


def _replay(eng: EngineProcess, lizzie: Lizzie074, infos_per_analysis: int = 2) -> list[str]:
    """Replay the session; every output line goes through ``lizzie``. Returns the commands' names."""
    names = []
    for group in LIZZIE_074_SESSION:
        eng.send("".join(cmd + "\n" for cmd in group))
        for cmd in group:
            cid, name = cmd.split()[:2]
            names.append(name)
            while True:  # the rest of a running analysis, then this command's first line
                line = eng.read_line(timeout=60)
                lizzie.line(line)
                if line.startswith(("=", "?")):
                    break
            assert re.match(rf"={cid}\b", line), (cmd, line)
            assert lizzie.current_cmd == int(cid)
            if name == "lz-analyze":
                for _ in range(infos_per_analysis):
                    line = eng.read_line(timeout=60)
                    assert line.startswith("info move "), line
                    lizzie.line(line)
                continue
            while line != "\n":
                line = eng.read_line(timeout=60)
                lizzie.line(line)
    return names


def test_lizzie_074_session_transcript() -> None:
    lizzie = Lizzie074()
    with EngineProcess("mcts.rounds=200") as eng:
        _replay(eng, lizzie)
        assert eng.proc.wait(timeout=30) == 0
    assert lizzie.dialog is None and lizzie.initialized and not lizzie.kata
    assert len(lizzie.info_lines) >= 8
    for line in lizzie.info_lines:
        for var in line[5:].split(" info "):  # Leelaz.parseInfo, then MoveData.fromInfo's keys
            data = var.strip().split(" ")
            pv = data.index("pv")
            fields = dict(zip(data[:pv:2], data[1:pv:2], strict=True))
            assert set(fields) >= {"move", "visits", "winrate", "prior", "lcb", "order"}
            for key in ("visits", "winrate", "prior", "lcb"):
                _java_parse_int(fields[key])  # Integer.parseInt: Leela Zero's integer scale
            assert 0 <= int(fields["winrate"]) <= 10000 and data[pv + 1 :]


@pytest.mark.skipif(shutil.which("java") is None, reason="java (11+) not found")
@pytest.mark.skipif(not LIZZIE_JAR.is_file(), reason=f"Lizzie not installed ({LIZZIE_JAR}, Debian liblizzie-java)")
def test_lizzies_own_parser_reads_the_analysis_lines(tmp_path) -> None:
    """lz-analyze lines (what Lizzie 0.7.4 asks for) and kata-analyze lines with ownership (what it
    asks a KataGo for) through Lizzie's own MoveData parser."""
    with EngineProcess("mcts.rounds=200", "analysis.ownership_playouts=40") as eng:
        eng.ok("boardsize 9")
        eng.ok("play b e5")
        lines = []
        for command, kind in (("lz-analyze 10", "lz"), ("kata-analyze 10 ownership true", "kata")):
            eng.send(command + "\n")
            assert eng.read_line() == "=\n"  # the stream opens as Leela Zero and KataGo open it
            lines += [(kind, eng.read_line(timeout=60).rstrip("\n")) for _ in range(2)]
            eng.send("protocol_version\n")
            while eng.read_line(timeout=60) != "\n":
                pass
            assert eng.read_response().text == "2"
    proc = subprocess.run(
        ["java", "-Djava.awt.headless=true", f"-Duser.home={tmp_path}", "-cp", str(LIZZIE_JAR), str(INFO_CHECK)],
        input="".join(f"{kind}\t{line}\n" for kind, line in lines),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [r.split("\t") for r in proc.stdout.splitlines()]
    records = [r for r in records if r[0] in ("line", "move", "ownership", "error")]  # not Lizzie's own prints
    assert not [r for r in records if r[0] == "error"], proc.stdout
    parsed: list[list[list[str]]] = []
    for r in records:
        if r[0] == "line":
            parsed.append([])
        else:
            parsed[-1].append(r)
    assert len(parsed) == len(lines)
    for (kind, line), seen in zip(lines, parsed, strict=True):
        sent = [v.strip().split(" ") for v in line[5:].split(" info ")]
        if kind == "kata":
            ownership = seen.pop()
            assert ownership[0] == "ownership" and ownership[1] == "81"
            sent[-1] = sent[-1][: sent[-1].index("ownership")]
        assert len(seen) == len(sent)
        for s, (_, coordinate, playouts, winrate, policy, score, variation) in zip(sent, seen, strict=True):
            pv = s.index("pv")
            fields = dict(zip(s[:pv:2], s[1:pv:2], strict=True))
            assert coordinate == fields["move"] and int(playouts) == int(fields["visits"])
            scale = 100.0 if kind == "kata" else 0.01  # Lizzie shows percent
            assert float(winrate) == pytest.approx(float(fields["winrate"]) * scale)
            assert float(policy) == pytest.approx(float(fields["prior"]) * scale)
            got, expected = variation.split(" "), s[pv + 1 :]
            if kind == "kata" and s is sent[-1]:
                # MoveData takes everything after pv as the variation: with KataGo too, the last
                # candidate's variation runs on into the ownership values
                got = got[: got.index("ownership")]
            assert got == expected
            assert float(score) == 0.0  # no scoreMean until the networks have a score head
