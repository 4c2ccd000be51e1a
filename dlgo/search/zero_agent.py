"""The AlphaGo Zero agent (book 14.2-14.4): PUCT search on one policy/value network.

    agent = ZeroAgent.from_model("weights/zero-19x19.keras", settings=SearchSettings(rounds=800))
    move = agent.select_move(game_state)                 # most visited move
    result = agent.search(game_state, SearchBudget(max_seconds=1.0))   # for the GTP engine

The search itself is ``dlgo.search.PUCTAgent``; this adds the Zero network (``from_model``), the
``zero`` config table (``from_params``: the engine's agent kind, ``dlgo.agent_registry``) and
AlphaGo Zero's self-play default: the first 30 moves (scaled to the board's area) sampled at
temperature 1. It plays in the engine and in the Zero training loop (``dlgo.zero``), and
imports nothing of the training wing: ``from_model`` loads no Keras or TensorFlow when an ONNX
export of the model is there (``dlgo.inference.onnx_cache``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dlgo.search.agent import PUCTAgent
from dlgo.search.settings import SearchSettings

if TYPE_CHECKING:
    from dlgo.inference import LoadedModel

__all__ = ["ZeroAgent", "default_temperature_moves"]


def default_temperature_moves(num_points: int) -> int:
    """Moves sampled at temperature 1 in self-play: AlphaGo Zero's 30 on 361 points, scaled by area."""
    return max(1, round(30 * num_points / 361))


# the network's keys of the ``zero`` table (the search's are ``SearchSettings``'): ``from_model``'s arguments
_LOAD_KEYS: dict[str, type] = {"cache_size": int, "threads": int, "runtime": str}


class ZeroAgent(PUCTAgent):
    """PUCT search on a Zero network's ``dlgo.inference.BatchEvaluator`` (or a fake); the
    parameters are ``PUCTAgent``'s (a ``SearchSettings`` and single changes to it)."""

    def default_temperature_moves(self, num_points: int) -> int:
        return default_temperature_moves(num_points)

    @classmethod
    def from_params(
        cls, params: Mapping[str, Any], board_size: int, *, evaluator: Any = None, **extra: Any
    ) -> ZeroAgent:
        """The agent for a table of the ``zero`` config keys (``dlgo.agent_registry`` fills in
        defaults and aliases, checks the model file and gives ``seed`` -1 as None): the one place
        those keys become a ``ZeroAgent``; the search keys become its ``SearchSettings`` (a
        missing one keeps its default). ``evaluator``: search on this one instead of loading
        ``params["model"]``; ``extra``: further ``PUCTAgent`` arguments (``self_play``, single
        settings such as ``early_stop``)."""
        settings = SearchSettings.from_config(params)
        seed = params.get("seed", -1)
        seed = None if seed is None or seed < 0 else int(seed)
        if evaluator is not None:
            return cls(evaluator, settings, seed=seed, **extra)
        loading = {key: kind(params[key]) for key, kind in _LOAD_KEYS.items() if key in params}
        loading["threads"] = loading.get("threads") or None  # 0: all cores
        return cls.from_model(params["model"], board_size=board_size, seed=seed, settings=settings, **loading, **extra)

    @classmethod
    def from_model(
        cls,
        model: str | os.PathLike | LoadedModel,
        *,
        board_size: int | None = None,
        backend: str = "auto",
        cache_size: int = 50_000,
        threads: int | None = None,
        seed: int | None = None,
        runtime: str = "fp32",
        **kwargs: Any,
    ) -> ZeroAgent:
        """An agent on a saved Zero network (``.keras`` + card with policy and value heads),
        evaluated in a random one of the 8 symmetries with a position cache. ``board_size``: the
        size to play, checked against the model (a fixed-size network plays only its own).
        ``runtime``: "fp32" or "int8" (``BatchEvaluator``'s). ``kwargs``: ``PUCTAgent``'s
        (``settings``, single settings, ``self_play``, ...)."""
        from dlgo.inference import BatchEvaluator, load_model

        if isinstance(model, str | os.PathLike):
            loaded = load_model(model, heads=["policy", "value"], board_size=board_size, lazy=True)
        else:
            loaded = model
        if loaded.card.encoder != "zero":
            raise ValueError(f"{loaded.path}: a Zero agent needs a 'zero' encoder network, not {loaded.card.encoder!r}")
        evaluator = BatchEvaluator(
            loaded,
            backend=backend,
            cache_size=cache_size,
            symmetry_mode="random",
            seed=seed,
            threads=threads,
            runtime=runtime,
        )
        return cls(evaluator, seed=seed, **kwargs)
