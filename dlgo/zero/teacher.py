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
network on it:

    # 1. games to learn from: Pachi against itself, and our engine against Pachi
    python -m dlgo.match.duel --engine-cmd "PACHI -t =5000 threads=1" --engine-name pachi-a \\
        --opponent-cmd "PACHI -t =5000 threads=1" --opponent-name pachi-b --no-time-commands \\
        --size 9 --komi 7 --games 1000 --out runs/teacher-pp
    # 2. their positions as replay chunks (every 10th game held out)
    python -m dlgo.zero.teacher convert runs/teacher-pp runs/teacher-gp \\
        --learn-from pachi-a pachi-b pachi-5k --out runs/teacher/data
    # 3. fine-tune the shipped network on them, measured on the held-out games every round
    python -m dlgo.zero.teacher train --data runs/teacher/data --init weights/zero-9x9.keras \\
        --out runs/teacher/net --rounds 8 --steps 200
    # how well networks predict the held-out teacher moves and results
    python -m dlgo.zero.teacher evaluate weights/zero-9x9.keras runs/teacher/net/zero-9x9.keras \\
        --data runs/teacher/data

``train`` keeps a learner checkpoint after every round and goes on from it when run again; the
network it writes (``OUT/`` + the init file's name, with its card) is the round with the lowest
held-out loss (policy cross-entropy on teacher moves + value squared error), not the last one.
``--heads value`` trains the value head alone (trunk and policy frozen: ``TrainerSettings.train_heads``).

``split`` makes the same data folder from a self-play loop's replay folder (every k-th task's
chunk held out), so a network can be fine-tuned on self-play games too: the strength issue's
step 3 fits the 19x19 network's value head to 13x13 self-play this way:

    python -m dlgo.zero.teacher split runs/zero-13x13/replay --out runs/v13/data --holdout-every 8
    python -m dlgo.zero.teacher train --data runs/v13/data --init weights/zero-19x19.keras \
        --out runs/v13/net --heads value --value-q-weight 0.5 --rounds 8 --steps 100 --batch-size 128
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.extras import require_extra
from dlgo.gotypes import Player
from dlgo.match.record import FORFEITS, GameRecord, load_records, replay
from dlgo.utils import point_from_coords
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer, board_size_of, combine_experience
from dlgo.zero.holdout import held_out_loss, holdout_metrics_by_size
from dlgo.zero.recorded import move_target, recorded_experience
from dlgo.zero.selfplay import final_targets

__all__ = [
    "read_match",
    "game_winner",
    "counted_dead_stones",
    "game_experience",
    "convert_matches",
    "main",
]


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
        teacher = record.label("B" if player == Player.black else "W") in teachers
        policies.append(move_target(encoder, move) if teacher else np.zeros(encoder.num_moves(), dtype=np.float32))
        movers.append(1 if player == Player.black else -1)
        state = state.apply_move(move)
    dead = counted_dead_stones(record)
    counted = None if dead is None else final_targets(state, [point_from_coords(v) for v in dead])
    return recorded_experience(encoder, planes, policies, movers, winner, counted)


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


# --- the command line: convert, train, evaluate ----------------------------------------------------


def _load(path: str | Path) -> Any:
    import keras

    import dlgo.networks  # noqa: F401  (registers custom objects)

    if not Path(path).is_file():
        raise SystemExit(f"{path}: no such model")
    return keras.saving.load_model(path, compile=False)


def _convert(args: argparse.Namespace) -> int:
    out = Path(args.out)
    report = convert_matches(
        args.matches, args.learn_from, ReplayBuffer(out / "train"), ReplayBuffer(out / "holdout"), args.holdout_every
    )
    print(
        f"teacher: {report.games} games converted ({report.held_out} held out), {report.positions} positions, "
        f"{report.teacher_moves} teacher moves, {report.counted} counted games; {report.skipped} already there"
    )
    return 0


def _counted(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from dlgo.data.archives import default_sources
    from dlgo.zero.counted import convert_counted

    sources = args.sources or [str(p) for p in default_sources()]
    with tqdm(total=args.games, desc="counting", unit="game", file=sys.stderr) as bar:
        report = convert_counted(
            sources, args.out, args.games, holdout_every=args.holdout_every, playouts=args.playouts,
            tolerance=args.tolerance, every=args.every, min_moves=args.min_moves, seed=args.seed,
            on_game=lambda check: bar.update(),
        )  # fmt: skip
    print(
        f"teacher: {report.examined} counted games examined ({report.resumed} by an earlier run), {report.kept} kept "
        f"({report.held_out} held out), {report.positions} positions, in {args.out}"
    )
    return 0


def split_replay(
    replay: ReplayBuffer, train: ReplayBuffer, holdout: ReplayBuffer, holdout_every: int, iteration_offset: int = 0
) -> tuple[int, int]:
    """Link (or copy) ``replay``'s chunks into ``train`` and ``holdout`` (every ``holdout_every``-th
    task of each iteration held out: whole games, never positions of one game on both sides);
    chunks there already are kept. ``iteration_offset`` is added to each chunk's iteration, so a
    data folder can hold converted games and self-play side by side without their names meeting.
    Returns (train, held-out) chunk counts."""
    counts = [0, 0]
    for chunk in replay.chunks():
        side = 1 if holdout_every > 0 and chunk.task % holdout_every == 0 else 0
        (train, holdout)[side].link(chunk.path, chunk.iteration + iteration_offset, chunk.task, chunk.positions)
        counts[side] += 1
    return counts[0], counts[1]


def _split(args: argparse.Namespace) -> int:
    source = Path(args.replay)
    if not source.is_dir():
        raise SystemExit(f"{source}: no such replay folder")
    out = Path(args.out)
    if args.iteration_offset < 0:
        raise SystemExit(f"--iteration-offset {args.iteration_offset}: must be >= 0")
    trained, held = split_replay(
        ReplayBuffer(source),
        ReplayBuffer(out / "train"),
        ReplayBuffer(out / "holdout"),
        args.holdout_every,
        args.iteration_offset,
    )
    if trained + held == 0:
        raise SystemExit(f"{source}: no experience chunks")
    print(f"teacher: {trained} chunks to train on, {held} held out, in {out}")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    holdout = ReplayBuffer(Path(args.data) / "holdout")
    chunks = holdout.chunks()
    if not chunks:
        raise SystemExit(f"{holdout.root}: no held-out games")
    # all held-out games, then those of each match folder (the chunks' iteration: its number)
    parts = {"all": chunks} | {
        f"match {k}": [c for c in chunks if c.iteration == k] for k in sorted({c.iteration for c in chunks})
    }
    data = {name: _by_size([ZeroExperienceBuffer.load(c.path) for c in group]) for name, group in parts.items()}
    for path in args.models:
        model = _load(path)
        for name, part in data.items():
            m = holdout_metrics_by_size(model, part)
            print(
                f"{path} [{name}]: top-1 {m['top1']:.1%} of {int(m['teacher_moves'])} teacher moves, policy "
                f"cross-entropy {m['policy_xent']:.3f}, value MSE {m['value_mse']:.3f}, bias for Black "
                f"{m['value_bias_black']:+.3f} ({int(m['positions'])} positions)"
                + "".join(
                    f"; {k.removeprefix('value_mse_')} value MSE {v:.3f}"
                    for k, v in m.items()
                    if k.startswith("value_mse_")
                )
            )
    return 0


def _by_size(buffers: list[ZeroExperienceBuffer]) -> dict[int, ZeroExperienceBuffer]:
    """The positions of ``buffers``, one buffer per board size."""
    sizes: dict[int, list[ZeroExperienceBuffer]] = {}
    for b in buffers:
        sizes.setdefault(board_size_of(b), []).append(b)
    return {n: combine_experience(group) for n, group in sorted(sizes.items())}


def _train(args: argparse.Namespace) -> int:
    from dlgo.inference.card import read_card, write_card
    from dlgo.zero.handover import copy_model, export_runtimes
    from dlgo.zero.trainer import TrainerSettings, train_candidate

    data = Path(args.data)
    replay = ReplayBuffer(data / "train")
    holdout = ReplayBuffer(data / "holdout").windows(10**9)  # one buffer per board size
    last = max((c.iteration for c in replay.chunks()), default=-1)
    if last < 0:
        raise SystemExit(f"{data / 'train'}: no converted games (run `convert` or `split` first)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "rounds.jsonl"
    rounds = [json.loads(line) for line in log_path.read_text().splitlines()] if log_path.exists() else []
    if not rounds:
        rounds.append({"round": 0, **holdout_metrics_by_size(_load(args.init), holdout)})
        log_path.write_text(json.dumps(rounds[0]) + "\n")
    network = read_card(args.init).network
    settings = TrainerSettings(
        batch_size=args.batch_size,
        steps_per_iteration=args.steps,
        optimizer="sgd",
        lr=args.lr,
        value_weight=args.value_weight,
        value_q_weight=args.value_q_weight,
        train_heads=tuple(args.heads),
        komi_jitter=args.komi_jitter,
        window_start=10**9,
        window_max=10**9,
        augment=True,
    )
    command = "python -m dlgo.zero.teacher " + " ".join(sys.argv[1:])
    card = {
        "kind": f"fine-tuned on recorded games ({'heads ' + ', '.join(args.heads) if args.heads else 'every layer'}; "
        f"dlgo.zero.teacher, data {args.data})",
        "init": str(args.init),
        "chunks": len(replay.chunks()),  # a game each from `convert`, a self-play task each from `split`
        "positions": replay.positions(),
        "commands": [command],
    }
    for number in range(len(rounds), args.rounds + 1):
        losses = train_candidate(
            replay, last, out / "learner.keras", args.init, out / f"round-{number:02d}.keras", settings,
            seed=args.seed + number, card_fields={"training": {**card, "round": number}}, progress=False,
            aux_heads=args.aux_heads or bool(network.get("aux_heads")),
            global_pooling=bool(network.get("global_pooling")),
        )  # fmt: skip
        row = {"round": number, **holdout_metrics_by_size(_load(out / f"round-{number:02d}.keras"), holdout), **losses}
        rounds.append(row)
        with log_path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        aux = (
            f"; ownership {row['ownership_accuracy']:.1%}, score error {row['score_mae']:.1f} points"
            if "score_mae" in row
            else ""
        )
        sizes = [(k.removeprefix("value_mse_"), v) for k, v in row.items() if k.startswith("value_mse_")]
        aux += "".join(f"; {size} value {v:.3f}" for size, v in sizes)
        print(
            f"round {number}: train policy {losses['policy_loss']:.3f} value {losses['value_loss']:.3f}; held out "
            f"top-1 {row['top1']:.1%} policy {row['policy_xent']:.3f} value {row['value_mse']:.3f} "
            f"(bias for Black {row['value_bias_black']:+.3f}){aux}",
            flush=True,
        )
    best = min(rounds[1:], key=lambda r: held_out_loss(r, args.heads), default=None)
    if best is None:
        return 0
    kept = out / Path(args.init).name
    copy_model(out / f"round-{best['round']:02d}.keras", kept)
    card = read_card(kept)
    held = (
        "top1", "policy_xent", "value_mse", "value_bias_black", "positions", "teacher_moves",
        "ownership_accuracy", "score_mae", "counted_positions",
    )  # fmt: skip
    per_size = tuple(k for k in best if k.startswith(("value_mse_", "top1_")))  # a mixed-size folder's
    card.metrics = {
        "held_out": {k: best[k] for k in (*held, *per_size) if k in best},
        "held_out_before": {k: rounds[0][k] for k in (*held, *per_size) if k in rounds[0]},
    }
    write_card(kept, card)
    export_runtimes(kept, int8=True)  # what the engine's default runtime loads
    shutil.copyfile(log_path, kept.with_suffix(".rounds.jsonl"))
    print(f"teacher: round {best['round']} is the best on the held-out games -> {kept}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dlgo.zero.teacher", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert", help="match folders (dlgo.match.duel) into replay chunks")
    c.add_argument("matches", nargs="+", help="match folders with results.jsonl")
    c.add_argument("--learn-from", nargs="+", required=True, help="player names whose moves are policy targets")
    c.add_argument("--out", required=True, help="data folder (train/ and holdout/ chunks)")
    c.add_argument("--holdout-every", type=int, default=10, help="every k-th game held out (0: none)")
    t = sub.add_parser("train", help="fine-tune a network on converted games")
    t.add_argument("--data", required=True, help="the folder `convert` wrote")
    t.add_argument("--init", required=True, help="the network to start from")
    t.add_argument("--out", required=True, help="run folder (rounds, learner checkpoint, best network)")
    t.add_argument("--rounds", type=int, default=8)
    t.add_argument("--steps", type=int, default=200, help="training steps per round")
    t.add_argument("--batch-size", type=int, default=256)
    t.add_argument("--lr", type=float, default=0.001, help="SGD learning rate (momentum 0.9)")
    t.add_argument("--value-weight", type=float, default=1.0)
    t.add_argument(
        "--value-q-weight",
        type=float,
        default=0.0,
        help="the search's root Q's share of the value target (self-play data)",
    )
    t.add_argument(
        "--heads", nargs="+", default=[], metavar="HEAD", help="train only these heads (e.g. value); default all"
    )
    t.add_argument(
        "--komi-jitter",
        type=float,
        default=0.0,
        metavar="POINTS",
        help="move each counted position's komi by up to this many points, its result with it "
        "(dlgo.zero.komi_jitter; 0: off)",
    )
    t.add_argument("--seed", type=int, default=1)
    t.add_argument(
        "--aux-heads",
        action="store_true",
        help="graft the ownership and score heads onto a network without them (train them with "
        "--heads ownership score)",
    )
    k = sub.add_parser("counted", help="counted human games (SGF archives) into chunks with ownership and score")
    k.add_argument("--sources", nargs="+", default=[], help="archives or folders (default: ../shared/data/kgs, tom9d)")
    k.add_argument("--out", required=True, help="data folder (train/ and holdout/ chunks, counted.jsonl)")
    k.add_argument("--games", type=int, default=1000, help="counted games to examine (the first ones read)")
    k.add_argument("--holdout-every", type=int, default=10, help="every k-th game held out (0: none)")
    k.add_argument("--playouts", type=int, default=400, help="playouts of the dead-stone count")
    k.add_argument("--tolerance", type=float, default=3.0, help="points our count may differ from the record's")
    k.add_argument("--every", type=int, default=3, help="every k-th position of a game")
    k.add_argument("--min-moves", type=int, default=100)
    k.add_argument("--seed", type=int, default=1)
    s = sub.add_parser("split", help="a self-play loop's replay folder into train and held-out chunks")
    s.add_argument("replay", help="the loop's replay folder (RUN/replay)")
    s.add_argument("--out", required=True, help="data folder (train/ and holdout/ chunks)")
    s.add_argument("--holdout-every", type=int, default=8, help="every k-th task's chunk held out (0: none)")
    s.add_argument(
        "--iteration-offset",
        type=int,
        default=0,
        help="added to each chunk's iteration, to mix self-play into a folder of converted games (e.g. 100)",
    )
    e = sub.add_parser("evaluate", help="networks on the held-out games")
    e.add_argument("models", nargs="+")
    e.add_argument("--data", required=True)
    args = p.parse_args(argv)
    require_extra("train", "python -m dlgo.zero.teacher")
    commands = {"convert": _convert, "split": _split, "train": _train, "evaluate": _evaluate, "counted": _counted}
    return commands[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
