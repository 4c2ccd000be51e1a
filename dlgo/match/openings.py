"""Openings for a match: positions the games start from, read from SGF files.

As GoGui's ``twogtp -openings``: each pair of games (the engine Black in one, White in the other)
starts from the next file's main line, so both players get the same position with each colour,
and the files cycle when the match has more pairs than files. Matches from openings measure what
plain games cannot: the same middle game or endgame played out many times, and game variety
between deterministic engines. The referee plays the opening's moves into both engines with
``play``; they are part of the record (and of the count) but not of either player's times.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.sgf import read_game
from dlgo.sgf.record import move_text

__all__ = ["Opening", "load_openings", "opening_for_game"]


@dataclass(frozen=True)
class Opening:
    """One start position: where it came from and its moves as (``B``/``W``, GTP vertex)."""

    name: str
    moves: tuple[tuple[str, str], ...]

    def to_json(self) -> dict:
        return {"name": self.name, "moves": [list(m) for m in self.moves]}

    @classmethod
    def from_json(cls, data: dict) -> Opening:
        return cls(str(data["name"]), tuple((str(c), str(v)) for c, v in data["moves"]))


def _sgf_files(paths: Sequence[str | os.PathLike]) -> list[Path]:
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix.lower() == ".sgf" and p.is_file())
            if not found:
                raise ValueError(f"{path}: no .sgf files in this folder")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ValueError(f"{path}: no such file or folder")
    return files


def _opening_of(path: Path, size: int) -> Opening:
    game = read_game(path, log_repairs=False)  # an SgfError names the file
    if game.repairs:  # a record read only in part or changed would start another game than it shows
        raise ValueError(f"{path}: {game.repairs[0].message}")
    rows, cols = game.board_size
    if (rows, cols) != (size, size):
        raise ValueError(f"{path}: a {rows}x{cols} game, but the match is played on {size}x{size}")
    if game.handicap or game.setups or any(True for _ in game.initial_state.board.stones()):
        raise ValueError(f"{path}: setup stones (AB/AW, handicap) are not supported in an opening, only moves")
    state = GameState.new_game(size)
    moves: list[tuple[str, str]] = []
    passes = 0
    for number, (player, move) in enumerate(game.moves, 1):
        if move.is_resign:
            raise ValueError(f"{path}: move {number} is a resignation: the game is over")
        reason = state.illegal_reason(player, move)
        if reason is not None:
            raise ValueError(f"{path}: move {number} ({move_text(move)}) is illegal: {reason}")
        state = state.play_as(player, move)
        passes = passes + 1 if move.is_pass else 0
        moves.append(("B" if player == Player.black else "W", move_text(move)))
    if passes >= 2:
        raise ValueError(f"{path}: it ends with two passes: the game is over")
    return Opening(path.name, tuple(moves))


def load_openings(paths: Sequence[str | os.PathLike], size: int) -> tuple[Opening, ...]:
    """The openings in ``paths`` (SGF files, or folders whose ``.sgf`` files are taken in name
    order); ValueError naming the file for one that cannot start a ``size`` x ``size`` game."""
    return tuple(_opening_of(path, size) for path in _sgf_files(paths))


def opening_for_game(openings: Sequence[Opening], index: int) -> Opening | None:
    """The opening of game ``index``: games 2k and 2k + 1 (colours swapped) share one."""
    if not openings:
        return None
    return openings[(index // 2) % len(openings)]
