"""From one game record to training samples: planes, move labels, value targets (book 7.2.2).

Every main-line move with a colour gives one sample: the planes of the position before it and the
move's index (``encoder.encode_move``), **including the first move of the game** (the book's
processor skipped it in even games: docs/book-differences.md, 6). Handicap stones are the game's setup (``AB``), so
the first sample of a handicap game is White's first move on the handicap position. Passes are
samples when the encoder has a pass index (``zero``: N*N), else applied but not sampled. A move by
the colour not to move (some records repeat a colour) is applied but not sampled, because the
encoders describe the position from the side to move. A record that ``dlgo.sgf`` had to repair
(truncated, setup after the first move, a move against every rule or that cannot be played; see
``SgfGame.repairs``) is skipped as ``malformed``: a viewer shows it, training wants records read as
written. A ko cycle that the record's own rules allow (simple ko under Japanese rules) is no repair.

Value targets: +1 when the player to move in the position won the game, -1 when it lost, 0 for a
draw; ``value_mask`` is false for results that say nothing about the board (time, forfeit, void,
unknown; see ``dlgo.data.results``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dlgo.data.results import RecordedResult, parse_result
from dlgo.encoders import Encoder
from dlgo.sgf import SgfError, SgfGame, read_game

__all__ = ["GameSamples", "SkipGame", "game_samples", "samples_from_sgf", "SKIP_REASONS"]

SKIP_REASONS = ("malformed", "board_size", "no_samples", "error")


class SkipGame(Exception):
    """A record that gives no samples; ``reason`` is one of ``SKIP_REASONS``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class GameSamples:
    planes: np.ndarray  # (n, rows, cols, planes) float32
    moves: np.ndarray  # (n,) int16: index of the move played (encoder.encode_move)
    values: np.ndarray  # (n,) int8: +1 / -1 / 0 for the player to move
    value_mask: np.ndarray  # (n,) bool: the value target means something
    move_numbers: np.ndarray  # (n,) int16: 0 for the first move of the game
    result: RecordedResult
    handicap: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # moves not sampled, by reason

    def __len__(self) -> int:
        return len(self.moves)


def game_samples(game: SgfGame, encoder: Encoder) -> GameSamples:
    """All samples of ``game`` for ``encoder`` (the board sizes must agree)."""
    rows, cols = game.board_size
    if (rows, cols) != (encoder.board_height, encoder.board_width):
        raise SkipGame(
            "board_size",
            f"{game.name}: {rows}x{cols} board, the encoder is for {encoder.board_height}x{encoder.board_width}",
        )
    has_pass = encoder.num_moves() > encoder.num_points()
    states = game.states()
    result = parse_result(game.result)
    picked: list[int] = []
    labels: list[int] = []
    skipped = {"out_of_turn": 0, "pass": 0}
    for i, (player, move) in enumerate(game.moves):
        if player is not states[i].next_player:
            skipped["out_of_turn"] += 1
            continue
        if move.is_pass and not has_pass:
            skipped["pass"] += 1
            continue
        picked.append(i)
        labels.append(encoder.encode_move(move))
    if not picked:
        raise SkipGame("no_samples", f"{game.name}: no move to learn from ({len(game.moves)} moves)")
    chosen = [states[i] for i in picked]
    values = np.array([result.value_for(s.next_player) for s in chosen], dtype=np.int8)
    return GameSamples(
        planes=encoder.encode_batch(chosen),
        moves=np.array(labels, dtype=np.int16),
        values=values,
        value_mask=np.full(len(picked), result.value_ok, dtype=bool),
        move_numbers=np.array(picked, dtype=np.int16),
        result=result,
        handicap=game.handicap,
        skipped={k: v for k, v in skipped.items() if v},
    )


def samples_from_sgf(data: bytes | str, game_id: str, encoder: Encoder) -> GameSamples:
    """Read and sample one record; every problem is a ``SkipGame`` with its reason, never a crash."""
    try:
        game = read_game(data if isinstance(data, bytes) else data.encode("utf-8"), name=game_id, log_repairs=False)
    except SgfError as e:
        raise SkipGame("malformed", str(e)) from None
    except Exception as e:  # sgfmill or the rules meeting something unforeseen
        raise SkipGame("malformed", f"{game_id}: {type(e).__name__}: {e}") from None
    if game.repairs:
        # A viewer shows a repaired record (dlgo.sgf); training wants only records read as written.
        raise SkipGame("malformed", f"{game_id}: {game.repairs[0].message}")
    try:
        return game_samples(game, encoder)
    except SkipGame:
        raise
    except Exception as e:  # a guard: one odd record must not stop hours of processing
        raise SkipGame("error", f"{game_id}: {type(e).__name__}: {e}") from e
