"""Experience from recorded matches: a stronger player's games as Zero training targets.

Self-play teaches the network only what its own search finds, and on the 2 cores the loop's
curve has gone flat. Chapter 7 of the book trains on the records of strong players instead; on
9x9 there are no such human archives here, but there is a stronger program (Pachi), and a match
folder written by ``dlgo.match.duel`` keeps every game (``results.jsonl``: moves, result, the
referee's dead stones). Each position of such a game becomes one row of a
``ZeroExperienceBuffer``:

- ``policies``: the move played, one-hot, where the mover is one of ``learn_from`` (a teacher);
  a row of zeros otherwise (its cross-entropy is 0: the position teaches the value only, so the
  engine's own moves in games it lost are not imitated);
- ``rewards``: the game's result for the player to move (the teacher's wins and our losses);
- ``ownership``/``score``/``aux_mask``: the referee's count with its dead stones removed where
  the game was counted, mask 0 where it was resigned;
- ``root_values``: unknown (NaN): nobody's search is recorded.

``python -m dlgo.zero.teacher`` converts match folders into a replay folder and fine-tunes a
network on it (``dlgo.zero.teacher_cli``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.gotypes import Player
from dlgo.match.record import FORFEITS, GameRecord, load_records, replay
from dlgo.utils import point_from_coords
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer
from dlgo.zero.selfplay import final_targets, movers_aux_targets

__all__ = ["read_match", "game_winner", "counted_dead_stones", "game_experience", "convert_matches"]


def game_winner(record: GameRecord) -> int | None:
    """+1 black, -1 white, 0 a counted draw; None where the game has no result to learn from
    (a forfeit, a fault, a void game)."""
    if record.fault is not None or record.reason in FORFEITS:
        return None
    if record.winner in ("B", "W"):
        return 1 if record.winner == "B" else -1
    return 0 if record.result == "0" else None


def counted_dead_stones(record: GameRecord) -> list[str] | None:
    """The referee's dead stones where it counted the game (two passes); None where it did not."""
    if record.reason == "score" and "dead_removed" in record.scoring:
        return list(record.scoring["dead_removed"])
    return None


def read_match(folder: str | os.PathLike) -> Iterator[GameRecord]:
    """The games of ``folder``'s ``results.jsonl`` (``dlgo.match.record``) that can teach, by
    index: a result, no fault. A line torn by a match still being written is skipped."""
    path = Path(folder) / "results.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no results.jsonl (not a dlgo.match.duel folder)")
    records = load_records(path)
    for index in sorted(records):
        if game_winner(records[index]) is not None:
            yield records[index]


def game_experience(record: GameRecord, learn_from: Iterable[str]) -> ZeroExperienceBuffer:
    """Every position of ``record`` before each move (module doc); policy rows where a player of
    ``learn_from`` moved."""
    teachers = set(learn_from)
    winner = game_winner(record)
    if winner is None:
        raise ValueError(f"game {record.index}: no result to learn from ({record.result}, {record.reason})")
    encoder = get_encoder_by_name("zero", record.size)
    state, moves = replay(record)
    planes, policies, movers = [], [], []
    for player, move in moves:
        if move.is_resign:
            break
        if player != state.next_player:
            raise ValueError(f"game {record.index}: {player.name} {move} out of turn")
        planes.append(encoder.encode(state))
        target = np.zeros(encoder.num_moves(), dtype=np.float32)
        if record.label("B" if player == Player.black else "W") in teachers:
            target[encoder.num_moves() - 1 if move.is_pass else encoder.encode_move(move)] = 1.0
        policies.append(target)
        movers.append(1 if player == Player.black else -1)
        state = state.apply_move(move)
    dead = counted_dead_stones(record)
    counted = None if dead is None else final_targets(state, [point_from_coords(v) for v in dead])
    ownership, score, mask = movers_aux_targets(movers, counted, encoder.num_points())
    return ZeroExperienceBuffer(
        np.array(planes, dtype=np.float16).reshape(-1, *encoder.shape()),
        np.array(policies, dtype=np.float32).reshape(-1, encoder.num_moves()),
        np.array([winner * m for m in movers], dtype=np.float32),
        ownership=ownership,
        score=score,
        aux_mask=mask,
        root_values=np.full(len(movers), np.nan, dtype=np.float32),
    )


@dataclass
class ConvertReport:
    games: int = 0
    positions: int = 0
    teacher_moves: int = 0
    counted: int = 0
    skipped: int = 0  # already converted
    held_out: int = 0


def convert_matches(
    folders: Iterable[str | os.PathLike],
    learn_from: Iterable[str],
    replay: ReplayBuffer,
    holdout: ReplayBuffer | None = None,
    holdout_every: int = 10,
) -> ConvertReport:
    """Each game of each folder as one chunk (iteration: the folder's number from 1, task: the
    game's index), every ``holdout_every``-th game into ``holdout`` when given. Games already
    converted are skipped, so a match that is still running can be converted again."""
    teachers = list(learn_from)
    report = ConvertReport()
    for number, folder in enumerate(folders, 1):
        done = set(replay.done_tasks(number)) | (set(holdout.done_tasks(number)) if holdout is not None else set())
        for game in read_match(folder):
            if game.index in done:
                report.skipped += 1
                continue
            held = holdout is not None and holdout_every > 0 and game.index % holdout_every == 0
            target = holdout if held and holdout is not None else replay
            experience = game_experience(game, teachers)
            if len(experience) == 0:
                continue
            target.add(experience, iteration=number, task=game.index)
            report.games += 1
            report.held_out += int(held)
            report.positions += len(experience)
            report.teacher_moves += int(experience.policies.sum())
            report.counted += int(counted_dead_stones(game) is not None)
    return report


if __name__ == "__main__":
    from dlgo.zero.teacher_cli import main

    raise SystemExit(main())
