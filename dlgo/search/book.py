"""An opening book: the answers of long searches for a board's first moves, looked up in play.

A search of a second or two on two cores gives its opening moves a thousand visits or so, and
the opening is where the network rates the candidates most alike (on 9x9 within a few
hundredths of win rate): there, four times the visits changes the move in about half the
positions where it was a mistake (docs/strength.md). The opening positions are few, so they
can be searched once, much longer, before any game: Fuego's and Pachi's opening books, here
filled by our own search (``dlgo.play.book_builder``), never by another program's moves.

A book holds, for each position, the search's candidates (move, visits, win rate, lower
confidence bound, prior, principal variation), best first, as ``SearchResult`` has them; the
engine plays the book's result as if its own search had just returned it, so the opening's
variety draw (``dlgo.search.variety``) still picks among the near-best moves. Positions are
stored once for the board's 8 symmetries (the least of the 8 transformed boards is the key),
with the colour to move; a book answers only at its komi (within ``komi_tolerance``) and
board size, and only with moves legal in the game.

The file is JSON::

    {"format": "dlgo-opening-book", "version": 1, "board_size": 9, "komi": 7.5,
     "built": {"network": ..., "visits": ..., "command": ..., ...},
     "positions": {"<key>": {"visits": 20000, "winrate": 0.52, "weight": 0.31,
                             "candidates": [["E5", visits, winrate, lcb, prior, ["E5", "C4", ...]], ...]}}}

where ``<key>`` is the board row by row from the top ("." empty, "x" Black, "o" White) then the
colour to move ("b" or "w"), in the symmetry that makes it least.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlgo.encoders import symmetry
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search.base import CandidateInfo, SearchResult
from dlgo.utils import move_to_text, point_from_coords

__all__ = ["BOOK_FORMAT", "BookError", "BookPosition", "OpeningBook", "canonical_key", "load_book"]

BOOK_FORMAT = "dlgo-opening-book"
BOOK_VERSION = 1
_STONE = {None: ".", Player.black: "x", Player.white: "o"}


class BookError(ValueError):
    """A book file that cannot be used; the message names the file and the field."""


def _grid_text(state: GameState, k: int) -> str:
    size = state.board.num_rows
    cells = ["."] * (size * size)
    for row in range(1, size + 1):
        for col in range(1, size + 1):
            colour = state.board.get(Point(row, col))
            if colour is not None:
                image = symmetry.apply_to_point(Point(row, col), k, size)
                cells[(image.row - 1) * size + image.col - 1] = _STONE[colour]
    # rows from the top, as a board is drawn
    rows = ["".join(cells[(r - 1) * size : r * size]) for r in range(size, 0, -1)]
    return "".join(rows) + ("b" if state.next_player == Player.black else "w")


def canonical_key(state: GameState) -> tuple[str, int]:
    """The book's key for ``state`` and the symmetry that maps the game's board onto the key's."""
    return min((_grid_text(state, k), k) for k in symmetry.allowed(state.board.num_rows))


def _move_under(move: Move, k: int, size: int) -> Move:
    return move if not move.is_play else Move.play(symmetry.apply_to_point(move.point, k, size))


def _parse_move(text: str) -> Move:
    return Move.pass_turn() if text.lower() == "pass" else Move.play(point_from_coords(text))


@dataclass
class BookPosition:
    """One searched position: its root visits and win rate, its best candidates (key's frame),
    and how often the builder expected games to reach it (``weight``, 0 when unknown)."""

    visits: int
    winrate: float
    candidates: list[CandidateInfo]
    weight: float = 0.0


@dataclass
class OpeningBook:
    """Searched opening positions of one board size and komi (see the module's docstring)."""

    board_size: int
    komi: float
    positions: dict[str, BookPosition] = field(default_factory=dict)
    built: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)

    def applies_to(self, state: GameState, komi_tolerance: float = 0.5) -> bool:
        board = state.board
        return board.num_rows == board.num_cols == self.board_size and abs(state.komi - self.komi) <= komi_tolerance

    def lookup(self, state: GameState, komi_tolerance: float = 0.5) -> SearchResult | None:
        """The book's result for ``state``, in the game's orientation, its illegal moves left
        out; None when the book has no such position (or none of its moves is legal)."""
        if not self.applies_to(state, komi_tolerance):
            return None
        key, k = canonical_key(state)
        stored = self.positions.get(key)
        if not stored:
            return None
        back = symmetry.inverse(k)
        size = self.board_size
        candidates = []
        for c in stored.candidates:
            move = _move_under(c.move, back, size)
            if move.is_play and state.is_valid_move(move):
                pv = [move, *(_move_under(m, back, size) for m in c.pv[1:])]
                candidates.append(CandidateInfo(move, c.visits, c.winrate, c.prior, c.lcb, pv))
        if not candidates:
            return None
        return SearchResult(candidates, stored.visits, stored.winrate, 0.0)

    def add(self, state: GameState, result: SearchResult, keep: int = 10, weight: float = 0.0) -> str:
        """Store ``result`` (a search of ``state``), its ``keep`` best candidates, in the key's
        orientation, with the chance ``weight`` that a game reaches it; returns the key."""
        key, k = canonical_key(state)
        size = self.board_size
        stored = []
        for c in [c for c in result.candidates if c.move.is_play][:keep]:
            pv = [_move_under(m, k, size) for m in (c.pv or [c.move])]
            if not pv or pv[0] != _move_under(c.move, k, size):
                pv = [_move_under(c.move, k, size)]
            stored.append(CandidateInfo(pv[0], c.visits, c.winrate, c.prior, c.lcb, pv))
        self.positions[key] = BookPosition(int(result.visits), float(result.winrate), stored, weight)
        return key

    def __contains__(self, state: object) -> bool:
        return isinstance(state, GameState) and canonical_key(state)[0] in self.positions

    # --- the file ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        def row(c: CandidateInfo) -> list[Any]:
            return [
                move_to_text(c.move),
                int(c.visits),
                round(float(c.winrate), 4),
                round(float(c.lcb), 4),
                round(float(c.prior), 4),
                [move_to_text(m) for m in c.pv[:8]],
            ]

        return {
            "format": BOOK_FORMAT,
            "version": BOOK_VERSION,
            "board_size": self.board_size,
            "komi": self.komi,
            "built": self.built,
            "positions": {
                key: {
                    "visits": p.visits,
                    "winrate": round(p.winrate, 4),
                    "weight": round(p.weight, 5),
                    "candidates": [row(c) for c in p.candidates],
                }
                for key, p in sorted(self.positions.items())
            },
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the book (a temporary file renamed over ``path``: a run stopped while writing
        leaves the last whole book)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=0) + "\n")
        os.replace(tmp, path)

    @classmethod
    def from_json(cls, data: Any, source: str = "book") -> OpeningBook:
        """A book from its JSON; ``BookError`` naming ``source`` and the field when malformed."""

        def fail(where: str, problem: str) -> BookError:
            return BookError(f"{source}: {where}: {problem}")

        if not isinstance(data, Mapping) or data.get("format") != BOOK_FORMAT:
            raise fail("format", f"not an opening book (expected format {BOOK_FORMAT!r})")
        if data.get("version") != BOOK_VERSION:
            raise fail("version", f"{data.get('version')!r}: this engine reads version {BOOK_VERSION}")
        size = data.get("board_size")
        if isinstance(size, bool) or not isinstance(size, int) or not 2 <= size <= 25:
            raise fail("board_size", f"{size!r}: expected 2 to 25")
        komi = data.get("komi")
        if isinstance(komi, bool) or not isinstance(komi, int | float) or komi != komi or abs(komi) > 1000:
            raise fail("komi", f"{komi!r}: expected a number")
        positions = data.get("positions")
        if not isinstance(positions, Mapping):
            raise fail("positions", "expected an object of positions")
        built = data.get("built", {})
        book = cls(size, float(komi), built=dict(built) if isinstance(built, Mapping) else {})
        for key, entry in positions.items():
            where = f"positions[{key!r}]"
            shape_ok = isinstance(key, str) and len(key) == size * size + 1 and key[-1] in "bw"
            if not shape_ok or set(key[:-1]) - set(".xo"):
                raise fail(where, f"not a {size}x{size} position key")
            book.positions[key] = _position(
                entry, size, lambda field, problem, where=where: fail(f"{where}.{field}", problem)
            )
        return book


def _position(entry: Any, size: int, fail: Any) -> BookPosition:
    if not isinstance(entry, Mapping):
        raise fail("visits", "expected an object with visits, winrate and candidates")
    visits, winrate, rows = entry.get("visits"), entry.get("winrate"), entry.get("candidates")
    weight = entry.get("weight", 0.0)
    if isinstance(visits, bool) or not isinstance(visits, int) or visits < 1:
        raise fail("visits", f"{visits!r}: expected a count")
    if isinstance(winrate, bool) or not isinstance(winrate, int | float) or not 0.0 <= winrate <= 1.0:
        raise fail("winrate", f"{winrate!r}: expected 0 to 1")
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not 0.0 <= weight <= 1.0:
        raise fail("weight", f"{weight!r}: expected 0 to 1")
    if not isinstance(rows, list) or not rows:
        raise fail("candidates", "expected a list of candidates")
    return BookPosition(
        visits,
        float(winrate),
        [_candidate(row, size, lambda problem, i=i: fail(f"candidates[{i}]", problem)) for i, row in enumerate(rows)],
        float(weight),
    )


def _candidate(row: Any, size: int, fail: Any) -> CandidateInfo:
    if not isinstance(row, list) or len(row) != 6:
        raise fail("expected [move, visits, winrate, lcb, prior, pv]")
    text, visits, winrate, lcb, prior, pv = row
    if isinstance(visits, bool) or not isinstance(visits, int) or visits < 0:
        raise fail(f"visits {visits!r}: expected a count")
    for name, value in (("winrate", winrate), ("lcb", lcb), ("prior", prior)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
            raise fail(f"{name} {value!r}: expected 0 to 1")
    if not isinstance(pv, list) or not pv:
        raise fail("pv: expected a list of moves")
    moves = []
    for vertex in [text, *pv]:
        try:
            move = _parse_move(vertex) if isinstance(vertex, str) else None
        except ValueError:
            move = None
        if move is None or (move.is_play and not (move.point.row <= size and move.point.col <= size)):
            raise fail(f"{vertex!r}: not a move on a {size}x{size} board")
        moves.append(move)
    if moves[1] != moves[0]:
        raise fail("pv: must begin with the move")
    return CandidateInfo(moves[0], visits, float(winrate), float(prior), float(lcb), moves[1:])


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int) -> OpeningBook:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise BookError(f"{path}: cannot read the opening book: {e}") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BookError(f"{path}: not JSON: {e}") from None
    return OpeningBook.from_json(data, path)


def load_book(path: str | os.PathLike[str]) -> OpeningBook:
    """The book at ``path`` (read once per version of the file); ``BookError`` naming the file."""
    path = os.fspath(path)
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError as e:
        raise BookError(f"{path}: no opening book there: {e.strerror}") from None
    return _load_cached(path, mtime)
