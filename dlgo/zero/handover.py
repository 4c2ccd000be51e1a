"""What a Zero loop run hands on, and what a fresh run takes up (``dlgo.zero.carry`` is the file).

``export_run`` copies the best generation with a model card of the whole run, and writes the
carry file and the learner beside it; ``take_up_carry`` starts a fresh run's state from them
(generation and iteration counts, resign threshold, learner, generation 0's anchor result);
``seed_carried_anchor`` puts that anchor row into the new run's ``elo.csv``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.zero.carry import Carry, read_carry, write_carry
from dlgo.zero.report import ELO_COLUMNS, read_csv, write_csv

if TYPE_CHECKING:
    from dlgo.zero.training_loop import ZeroLoop

__all__ = ["copy_model", "export_runtimes", "export_run", "take_up_carry", "seed_carried_anchor"]


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


def _anchor_settings(config: Any) -> dict[str, Any]:
    """How an anchor result was played (whatever generations are anchored)."""
    return {k: v for k, v in dataclasses.asdict(config.anchor).items() if k != "every"}


def _card_training(path: Path) -> dict[str, Any]:
    """The ``training`` entry of a model's card ({} when it has none)."""
    from dlgo.inference.card import read_card

    try:
        return dict(read_card(path).training or {})
    except ValueError:
        return {}


def take_up_carry(loop: ZeroLoop, state: dict[str, Any]) -> None:
    """A fresh start from an exported network goes on from its carry file."""
    cfg = loop.config
    if not (cfg.loop.carry_over and cfg.loop.init_model):
        return
    init = cfg.resolve(cfg.loop.init_model)
    carry = read_carry(init, cfg.selfplay.board_size)
    training = _card_training(init)
    if training.get("kind") == "zero self-play":
        state["earlier"] = training  # what trained generation 0, for the exported card
    if carry is None:
        # Without a carry file the card still says how many generations came before.
        if "earlier" in state:
            state["carried"] = {"from": str(init), "generation": int(training.get("generation") or 0)}
        return
    carried = state["carried"] = {
        "from": str(init),
        "generation": carry.generation,
        "iteration": carry.iteration,
        "seconds": carry.seconds,
        "games": carry.games,
        "positions": carry.positions,
    }
    if carry.resign_threshold is not None:
        state["resign_threshold"] = carry.resign_threshold
    if carry.anchor and carry.anchor_settings == _anchor_settings(cfg):
        carried["anchor"] = carry.anchor
    learner = carry.learner_path(init)
    if learner is not None and not (loop.out / "learner.keras").exists():
        shutil.copyfile(learner, loop.out / "learner.keras")
        carried["learner"] = str(learner)
    loop.say(
        f"going on from {init.name}: generation {carry.generation}, iteration {carry.iteration}"
        + (", its learner" if learner is not None else "")
        + (", its anchor result" if "anchor" in carried else "")
    )


def seed_carried_anchor(loop: ZeroLoop) -> None:
    """Generation 0's anchor row from the carry file, when it was played as this run would."""
    row = loop.carried.get("anchor")
    if not row or 0 in loop.state["anchored"]:
        return
    row = {**row, "generation": 0, "iteration": 0}
    write_csv(loop.out / "elo.csv", ELO_COLUMNS, [row, *read_csv(loop.out / "elo.csv")])
    loop.state["anchored"].append(0)


def _machine() -> str:
    """CPU cores, and the GPU when the learner trained on one (Keras on a CUDA PyTorch)."""
    cores = f"{os.cpu_count()} CPU cores"
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return f"{cores}, {torch.cuda.get_device_name(0)}"
    return cores


def export_run(loop: ZeroLoop, target: Path) -> Path:
    """The best generation at ``target`` with a model card of the whole run, and the carry file
    and learner beside it."""
    from dlgo.inference.card import read_card, write_card

    state, carried = loop.state, loop.carried
    copy_model(loop.best_path, target)
    card = read_card(target)
    seconds = {k: round(v / 3600, 2) for k, v in state["seconds"].items() if not k.startswith("_")}
    elo = read_csv(loop.out / "elo.csv")
    card.training = {
        **card.training,
        "kind": "zero self-play",
        "generation": state["generation"] + int(carried.get("generation", 0)),
        # games/positions/iteration (from the candidate's own card): what this network
        # was trained on; run_*: the whole run so far
        "run_iterations": state["iteration"],
        "run_games": loop.replay_games(),
        "run_positions": loop.replay.positions(),
        "compute_hours": seconds,
        "workers": loop.config.loop.workers,
        "machine": _machine(),
        "config": loop.config.to_dict(),
        "commands": state.get("commands", []),
        "warm_start": loop.config.loop.init_model or "random weights",
    }
    if carried:
        card.training["carried"] = {k: v for k, v in carried.items() if k != "anchor"}
    if state["generation"] > 0 and state.get("earlier"):
        card.training["earlier"] = state["earlier"]  # what trained generation 0
    own = next((r for r in elo if int(r["generation"]) == state["generation"]), None)
    card.strength = {
        **card.strength,
        "resign_threshold_value": state["resign_threshold"],
        "resign_threshold_winrate": round(loop.resign_winrate, 4),
        "anchor": own or {},  # the exported generation's own anchor result, if it was anchored
    }
    write_card(target, card)
    _write_carry(loop, target, own)
    return target


def _write_carry(loop: ZeroLoop, target: Path, own_anchor: dict[str, str] | None) -> None:
    state, carried = loop.state, loop.carried
    seconds = dict(carried.get("seconds", {}))
    for phase, value in state["seconds"].items():
        if not phase.startswith("_"):
            seconds[phase] = round(seconds.get(phase, 0.0) + value, 1)
    anchor = own_anchor or (carried.get("anchor") if state["generation"] == 0 else None)
    carry = Carry(
        board_size=loop.config.selfplay.board_size,
        model_sha256="",
        generation=state["generation"] + int(carried.get("generation", 0)),
        iteration=state["iteration"] + int(carried.get("iteration", 0)),
        resign_threshold=float(state["resign_threshold"]),
        seconds=seconds,
        games=loop.replay_games() + int(carried.get("games", 0)),
        positions=loop.replay.positions() + int(carried.get("positions", 0)),
        anchor=dict(anchor) if anchor else None,
        anchor_settings=_anchor_settings(loop.config) if anchor else None,
    )
    path = write_carry(target, carry, loop.out / "learner.keras")
    loop.say(f"carry file {path} (the next run from {target.name} goes on from here)")
