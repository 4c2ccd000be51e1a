"""One finished game as data: what the referee saw, as JSON (one line of ``results.jsonl``) and SGF.

Vertices are GTP text (``D4``, ``pass``); colours are ``B`` and ``W``. ``reason`` says how the
game ended:

==============  ==================================================================
``score``       two passes, counted by the referee (``result`` like ``B+3.5``, or ``0``)
``move-limit``  the referee stopped a game that ran too long, and counted it
``resign``      a player resigned (``B+R`` / ``W+R``)
``time``        a player overran its clock (``B+T`` / ``W+T``)
``illegal``     a player chose an illegal move (forfeit: ``B+F`` / ``W+F``)
``crash``       a player could not start, exited, or closed its pipes (forfeit)
``timeout``     a player did not answer in time outside a clock: hung (forfeit)
``protocol``    a player answered something that is not GTP or not a move (forfeit)
``refused``     a player answered ``?`` to a command it needs (forfeit)
==============  ==================================================================

``fault`` is the colour whose failure ended the game (forfeits and time), else None.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.handicap import handicap_game
from dlgo.sgf import write_game
from dlgo.utils import point_from_coords

__all__ = [
    "GameRecord",
    "FORFEITS",
    "winner_result",
    "parse_move",
    "initial_state",
    "replay",
    "record_to_sgf",
    "append_record",
    "load_records",
    "repair_records",
]

FORFEITS = ("illegal", "crash", "timeout", "protocol", "refused")
_SGF_SUFFIX = {"resign": "R", "time": "T", **{r: "F" for r in FORFEITS}}


@dataclass
class GameRecord:
    index: int
    black: str  # labels of the players
    white: str
    size: int
    komi: float
    handicap: int = 0
    handicap_stones: list[str] = field(default_factory=list)
    moves: list[list[str]] = field(default_factory=list)  # [colour, vertex]
    times: list[float] = field(default_factory=list)  # seconds per move, aligned with moves
    opening: str = ""  # the opening file the game started from (dlgo.match.openings), if any
    opening_moves: int = 0  # the first this many moves are the opening's, played by the referee
    winner: str | None = None  # "B", "W", None (draw or no result)
    result: str = "Void"  # SGF RE
    reason: str = ""
    detail: str = ""
    fault: str | None = None
    black_name: str = ""  # what the engines call themselves (GTP name + version)
    white_name: str = ""
    scoring: dict = field(default_factory=dict)
    time_control: str = ""
    started: str = ""
    duration: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> GameRecord:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def label(self, colour: str) -> str:
        return self.black if colour == "B" else self.white

    def colour_of(self, label: str) -> str | None:
        if label == self.black:
            return "B"
        if label == self.white:
            return "W"
        return None

    @property
    def winner_label(self) -> str | None:
        return None if self.winner is None else self.label(self.winner)


def winner_result(winner: str, reason: str) -> str:
    """SGF ``RE`` for a game won without a count (``B+R``, ``W+T``, ``B+F``)."""
    return f"{winner}+{_SGF_SUFFIX[reason]}"


def parse_move(text: str) -> Move:
    """A GTP vertex, ``pass`` or ``resign`` as a Move; ValueError on anything else."""
    t = text.strip().lower()
    if t == "pass":
        return Move.pass_turn()
    if t == "resign":
        return Move.resign()
    return Move.play(point_from_coords(t))


def _player(colour: str) -> Player:
    return Player.black if colour == "B" else Player.white


def initial_state(record: GameRecord) -> GameState:
    if record.handicap_stones:
        points = [point_from_coords(v) for v in record.handicap_stones]
        return handicap_game(record.size, points, record.komi)
    return GameState.new_game(record.size, record.komi)


def replay(record: GameRecord) -> tuple[GameState, list[tuple[Player, Move]]]:
    """The start position and the moves as ``(Player, Move)`` (moves were checked when played)."""
    return initial_state(record), [(_player(c), parse_move(v)) for c, v in record.moves]


def record_to_sgf(record: GameRecord) -> str:
    """SGF text: players, result, komi, Chinese rules, seconds per move as comments."""
    start, moves = replay(record)
    comments: list[str | None] = [f"{t:.2f} s" for t in record.times]
    if 0 < record.opening_moves <= len(comments):
        comments[: record.opening_moves] = [None] * record.opening_moves
        comments[record.opening_moves - 1] = f"the opening {record.opening} ends here; the players' moves follow"
    comments += [None] * (len(moves) - len(comments))
    end_note = f"{record.result} ({record.reason}{': ' + record.detail if record.detail else ''})"
    if record.scoring.get("gnugo_result") is not None:
        end_note += f"; GNU Go counts {record.scoring['gnugo_result']}"
    if moves:
        last = comments[-1]
        comments[-1] = f"{last}\n{end_note}" if last else end_note
    names = {"B": record.black, "W": record.white}
    for colour, engine_name in (("B", record.black_name), ("W", record.white_name)):
        if engine_name and engine_name != names[colour]:
            names[colour] = f"{names[colour]} ({engine_name})"
    return write_game(
        moves,
        start,
        black_name=names["B"],
        white_name=names["W"],
        result=record.result,
        rules="Chinese",
        date=record.started[:10] or None,
        comments=comments,
        handicap=record.handicap or None,
    )


# --- results.jsonl ---------------------------------------------------------------------------


def append_record(path: str | os.PathLike, record: GameRecord) -> None:
    """Append one record as a JSON line and flush it to disk.

    The line goes out in ``write`` calls on an ``O_APPEND`` descriptor (one for any line of
    ordinary size), so the file never holds half a line unless the process dies in the middle
    (a kill, a crash, a power cut); :func:`load_records` ignores such a torn line and
    :func:`repair_records` removes it before the next append, so it cannot swallow the next record.
    """
    data = (json.dumps(record.to_json(), separators=(",", ":")) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _parse_line(line: bytes) -> GameRecord | None:
    try:
        return GameRecord.from_json(json.loads(line.decode("utf-8")))
    except (UnicodeDecodeError, json.JSONDecodeError, TypeError, KeyError, AttributeError):
        return None


def repair_records(path: str | os.PathLike) -> bool:
    """Make ``path`` end with a whole line before anything is appended to it; True when it changed.

    A last line without its newline is either complete (the newline is added) or torn by an
    interrupted write (it is cut off): appending after a torn line would glue the next record to it.
    """
    p = Path(path)
    if not p.exists():
        return False
    data = p.read_bytes()
    if not data or data.endswith(b"\n"):
        return False
    cut = data.rfind(b"\n") + 1
    with open(p, "r+b") as f:
        if _parse_line(data[cut:]) is not None:
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
        else:
            f.truncate(cut)
        f.flush()
        os.fsync(f.fileno())
    return True


def load_records(path: str | os.PathLike) -> dict[int, GameRecord]:
    """Records by game index; a torn line (an interrupted write) is ignored."""
    records: dict[int, GameRecord] = {}
    p = Path(path)
    if not p.exists():
        return records
    for line in p.read_bytes().splitlines():
        if not line.strip():
            continue
        record = _parse_line(line)
        if record is not None:
            records[record.index] = record
    return records
