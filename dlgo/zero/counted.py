"""Counted human games as ownership and score targets (KataGo's auxiliary heads, Wu 2019).

A network learns who owns each point at the end, and by how much the game is won, only from
games that were counted: self-play on two cores plays few of them out. The archives hold many
(``dlgo.data.counted``). Each counted game is counted again by the engine's own dead-stone
estimate (``dlgo.deadstones``, the count behind ``final_score``) and kept only where that count
names the recorded winner and comes within ``tolerance`` points of the recorded margin (an area
count and a territory count differ by a point or two): its positions then learn the count's
final owner of every point and its area score with the game's komi. Where the two disagree the
dead stones are in doubt, and the game teaches nothing.

Every ``every``-th position of a game (from a random offset, so that neighbouring positions,
nearly the same, do not fill the data) becomes one row of a ``ZeroExperienceBuffer``: the human
move as the policy target, the result as the value target, and the count as ownership and score.

A conversion writes one chunk per kept game (``ReplayBuffer``, iteration ``ITERATION``, the
game's number among the counted games as the task) and one line per examined game to
``counted.jsonl``, so a stopped conversion goes on where it stopped without counting again.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from dlgo.data.counted import CountedRecord, iter_counted
from dlgo.encoders import get_encoder_by_name
from dlgo.gotypes import Player
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer
from dlgo.zero.recorded import move_target, recorded_experience
from dlgo.zero.selfplay import final_targets

__all__ = ["ITERATION", "CountCheck", "check_count", "counted_experience", "convert_counted"]

ITERATION = 1  # the chunks' iteration number (the data folder may hold self-play beside them)
LOG_NAME = "counted.jsonl"


@dataclass(frozen=True)
class CountCheck:
    """Our count of a counted game's last position beside the record's."""

    game_id: str
    recorded: float  # the record's result, + Black won
    ours: float  # our area count with the game's komi, + Black leads
    kept: bool


def check_count(record: CountedRecord, playouts: int, tolerance: float, seed: int = 1):
    """``(CountCheck, dead stones)``: does our count of the last position name the recorded
    winner within ``tolerance`` points of the recorded margin?"""
    from dlgo import deadstones

    counted = deadstones.count(record.game.final_state, playouts, seed)
    ours = counted.result.b - counted.result.w - counted.result.komi
    same_winner = (ours > 0) == (record.black_lead > 0)
    kept = same_winner and abs(ours - record.black_lead) <= tolerance
    return CountCheck(record.game_id, record.black_lead, float(ours), kept), counted.dead_stones()


def counted_experience(
    record: CountedRecord, dead_stones: Iterable, every: int, rng: random.Random
) -> ZeroExperienceBuffer:
    """Every ``every``-th position of ``record`` (module doc) with the count's targets, the dead
    stones ``dead_stones`` removed from its last position."""
    game = record.game
    encoder = get_encoder_by_name("zero", game.board_size[0])
    states = game.states()
    winner = 1 if record.winner == "B" else -1
    planes, policies, movers = [], [], []
    for i in range(rng.randrange(every), len(game.moves), every):
        player, move = game.moves[i]
        state = states[i]
        if move.is_resign or player != state.next_player:
            continue  # a record that lets one side move twice: no position to learn from
        planes.append(encoder.encode(state))
        policies.append(move_target(encoder, move))
        movers.append(1 if player == Player.black else -1)
    return recorded_experience(encoder, planes, policies, movers, winner, final_targets(states[-1], dead_stones))


@dataclass
class CountedReport:
    examined: int = 0
    kept: int = 0
    positions: int = 0
    held_out: int = 0
    resumed: int = 0  # examined by an earlier run


def convert_counted(
    sources: Iterable[str | os.PathLike],
    out: str | os.PathLike,
    games: int,
    *,
    holdout_every: int = 10,
    playouts: int = 400,
    tolerance: float = 3.0,
    every: int = 3,
    min_moves: int = 100,
    seed: int = 1,
    on_game=None,
) -> CountedReport:
    """Examine the first ``games`` counted games of ``sources`` and write the kept ones into
    ``out/train`` and ``out/holdout`` (every ``holdout_every``-th examined game; module doc).
    ``on_game(CountCheck)`` hears of each game examined in this run."""
    out = Path(out)
    train, holdout = ReplayBuffer(out / "train"), ReplayBuffer(out / "holdout")
    log_path = out / LOG_NAME
    examined = set()
    if log_path.exists():
        for line in log_path.read_text().splitlines():
            try:
                examined.add(json.loads(line)["task"])
            except (ValueError, KeyError):
                continue  # a line torn by a stop: that game is examined again
    report = CountedReport(resumed=len(examined))
    for task, record in enumerate(iter_counted(sources, min_moves=min_moves)):
        if task >= games:
            break
        if task in examined:
            continue
        check, dead = check_count(record, playouts, tolerance, seed)
        held = holdout_every > 0 and task % holdout_every == 0
        if check.kept:
            experience = counted_experience(record, dead, every, random.Random(seed * 1_000_003 + task))
            if len(experience):
                target = holdout if held else train
                if target.done_tasks(ITERATION).get(task) is None:
                    target.add(experience, ITERATION, task)
                report.kept += 1
                report.positions += len(experience)
                report.held_out += int(held)
        report.examined += 1
        with log_path.open("a") as f:  # after the chunk: a stop never loses a kept game
            f.write(json.dumps({"task": task, **asdict(check)}) + "\n")
        if on_game is not None:
            on_game(check)
    return report
