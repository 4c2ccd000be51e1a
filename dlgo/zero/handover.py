"""What a Zero loop run hands on, and what a fresh run takes up (``dlgo.zero.carry`` is the file).

``export_run`` copies the best generation with a model card of the whole run, and writes the
carry file and the learner beside it; ``take_up_carry`` gives a fresh run's first state fields
from them (generation and iteration counts, resign threshold, learner, generation 0's anchor
result); ``seed_carried_anchor`` puts that anchor row into the new run's ``elo.csv``. None of
them sees the loop: each gets the paths and state fields it reads, and the loop writes its state.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.zero.carry import Carry, read_carry, write_carry
from dlgo.zero.report import ELO_COLUMNS, read_csv, write_csv

if TYPE_CHECKING:
    from dlgo.zero.loop_config import AnchorSettings, LoopConfig

__all__ = ["ExportContext", "copy_model", "export_runtimes", "export_run", "take_up_carry", "seed_carried_anchor"]


@dataclass(frozen=True)
class ExportContext:
    """What an export reads: the run's config and folder, and its state's counts."""

    config: LoopConfig  # the card keeps all of it
    out: Path  # the run folder: elo.csv, learner.keras
    best: Path
    generation: int
    iteration: int
    resign_threshold: float
    resign_winrate: float
    seconds: dict[str, float]  # each phase's total (keys with "_" are the loop's marks)
    commands: list[str]
    carried: dict[str, Any]  # what this run took up from an earlier one
    earlier: dict[str, Any] | None  # what trained generation 0 (its card's training entry)
    games: int  # the replay's
    positions: int
    say: Callable[[str], None]


def copy_model(src: Path, dst: Path) -> None:
    """A model with its card and ONNX exports (the card last: a model without it is unusable)."""
    from dlgo.inference.card import card_path

    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(dst.stem + ".tmp.keras")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)
    for suffix in (".onnx", ".int8.onnx"):  # stamped with the model's hash: valid for the copy
        beside = src.with_name(src.stem + suffix)
        if beside.is_file():
            shutil.copyfile(beside, dst.with_name(dst.stem + suffix))
    shutil.copyfile(card_path(src), card_path(dst))


def export_runtimes(path: Path, int8: bool = False) -> None:
    """The ONNX export next to the model, once, so workers need not each export it: stamped with
    the model's hash (``dlgo.inference.onnx_cache``), so they load it without Keras or TensorFlow;
    with ``int8`` also its int8 model (``dlgo.inference.quantize``), for self-play and gating on
    the int8 runtime."""
    from dlgo.inference import load_model
    from dlgo.inference.onnx_cache import onnx_runner

    try:
        loaded = load_model(path)
        if onnx_runner(loaded) is None:
            print(f"dlgo: no ONNX export of {path}", file=sys.stderr)
        elif int8:
            from dlgo.inference.quantize import ensure_int8

            ensure_int8(loaded)
    except Exception as e:  # workers fall back on exporting (or quantizing) themselves
        print(f"dlgo: no ONNX export of {path} ({e})", file=sys.stderr)


def _anchor_settings(anchor: AnchorSettings) -> dict[str, Any]:
    """How an anchor result was played (whatever generations are anchored)."""
    return {k: v for k, v in dataclasses.asdict(anchor).items() if k != "every"}


def _card_training(path: Path) -> dict[str, Any]:
    """The ``training`` entry of a model's card ({} when it has none)."""
    from dlgo.inference.card import read_card

    try:
        return dict(read_card(path).training or {})
    except ValueError:
        return {}


def take_up_carry(
    init: Path, board_size: int, anchor: AnchorSettings, learner: Path, say: Callable[[str], None]
) -> dict[str, Any]:
    """The first state fields of a fresh run from the exported network ``init``: ``earlier``,
    ``carried`` and ``resign_threshold``, as far as its card and carry file give them. Copies the
    carried learner to ``learner`` unless one is there."""
    fields: dict[str, Any] = {}
    carry = read_carry(init, board_size)
    training = _card_training(init)
    if training.get("kind") == "zero self-play":
        fields["earlier"] = training  # what trained generation 0, for the exported card
    if carry is None:
        # Without a carry file the card still says how many generations came before.
        if "earlier" in fields:
            fields["carried"] = {"from": str(init), "generation": int(training.get("generation") or 0)}
        return fields
    carried = fields["carried"] = {
        "from": str(init),
        "generation": carry.generation,
        "iteration": carry.iteration,
        "seconds": carry.seconds,
        "games": carry.games,
        "positions": carry.positions,
    }
    if carry.resign_threshold is not None:
        fields["resign_threshold"] = carry.resign_threshold
    if carry.anchor and carry.anchor_settings == _anchor_settings(anchor):
        carried["anchor"] = carry.anchor
    source = carry.learner_path(init)
    if source is not None and not learner.exists():
        shutil.copyfile(source, learner)
        carried["learner"] = str(source)
    say(
        f"going on from {init.name}: generation {carry.generation}, iteration {carry.iteration}"
        + (", its learner" if source is not None else "")
        + (", its anchor result" if "anchor" in carried else "")
    )
    return fields


def seed_carried_anchor(out: Path, carried: dict[str, Any], anchored: Sequence[int]) -> bool:
    """Generation 0's anchor row from the carry file into ``out/elo.csv``, when it was played as
    this run would and generation 0 is not anchored yet; True when written (0 is anchored now)."""
    row = carried.get("anchor")
    if not row or 0 in anchored:
        return False
    row = {**row, "generation": 0, "iteration": 0}
    write_csv(out / "elo.csv", ELO_COLUMNS, [row, *read_csv(out / "elo.csv")])
    return True


def _machine() -> str:
    """CPU cores, and the GPU when the learner trained on one (Keras on a CUDA PyTorch)."""
    cores = f"{os.cpu_count()} CPU cores"
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return f"{cores}, {torch.cuda.get_device_name(0)}"
    return cores


def export_run(ctx: ExportContext, target: Path) -> Path:
    """The best generation at ``target`` with a model card of the whole run, and the carry file
    and learner beside it."""
    from dlgo.inference.card import read_card, write_card

    carried, config = ctx.carried, ctx.config
    copy_model(ctx.best, target)
    card = read_card(target)
    seconds = {k: round(v / 3600, 2) for k, v in ctx.seconds.items() if not k.startswith("_")}
    elo = read_csv(ctx.out / "elo.csv")
    card.training = {
        **card.training,
        "kind": "zero self-play",
        "generation": ctx.generation + int(carried.get("generation", 0)),
        # games/positions/iteration (from the candidate's own card): what this network
        # was trained on; run_*: the whole run so far
        "run_iterations": ctx.iteration,
        "run_games": ctx.games,
        "run_positions": ctx.positions,
        "compute_hours": seconds,
        "workers": config.loop.workers,
        "machine": _machine(),
        "config": config.to_dict(),
        "commands": ctx.commands,
        "warm_start": config.loop.init_model or "random weights",
    }
    if carried:
        card.training["carried"] = {k: v for k, v in carried.items() if k != "anchor"}
    if ctx.generation > 0 and ctx.earlier:
        card.training["earlier"] = ctx.earlier  # what trained generation 0
    own = next((r for r in elo if int(r["generation"]) == ctx.generation), None)
    card.strength = {
        **card.strength,
        "resign_threshold_value": ctx.resign_threshold,
        "resign_threshold_winrate": round(ctx.resign_winrate, 4),
        "anchor": own or {},  # the exported generation's own anchor result, if it was anchored
    }
    write_card(target, card)
    _write_carry(ctx, target, own)
    return target


def _write_carry(ctx: ExportContext, target: Path, own_anchor: dict[str, str] | None) -> None:
    carried = ctx.carried
    seconds = dict(carried.get("seconds", {}))
    for phase, value in ctx.seconds.items():
        if not phase.startswith("_"):
            seconds[phase] = round(seconds.get(phase, 0.0) + value, 1)
    anchor = own_anchor or (carried.get("anchor") if ctx.generation == 0 else None)
    carry = Carry(
        board_size=ctx.config.selfplay.board_size,
        model_sha256="",
        generation=ctx.generation + int(carried.get("generation", 0)),
        iteration=ctx.iteration + int(carried.get("iteration", 0)),
        resign_threshold=float(ctx.resign_threshold),
        seconds=seconds,
        games=ctx.games + int(carried.get("games", 0)),
        positions=ctx.positions + int(carried.get("positions", 0)),
        anchor=dict(anchor) if anchor else None,
        anchor_settings=_anchor_settings(ctx.config.anchor) if anchor else None,
    )
    path = write_carry(target, carry, ctx.out / "learner.keras")
    ctx.say(f"carry file {path} (the next run from {target.name} goes on from here)")
