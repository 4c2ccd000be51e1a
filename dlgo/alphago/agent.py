"""The AlphaGo search agent (book 13.4): PUCT over policy priors, value network plus rollouts.

    agent = AlphaGoMCTS.from_models("weights/alphago-policy-19x19.keras",
                                    "weights/alphago-value-19x19.keras", num_simulations=800)

The tree is the search wing's (``dlgo.search.PUCTSearch``): selection by ``Q + u`` with
``u = c_u * P * sqrt(N) / (1 + n)`` (book c_u 5), Q the running mean of the leaf values
(``W / n``), values negated at every ply, one new leaf per simulation (the book's code walked a
fixed depth of 50 and expanded every node on the way), the most visited move, and the subtree of
the moves played kept for the next search. Leaves are evaluated by ``AlphaGoEvaluator``:
``lambda * value_net + (1 - lambda) * rollout``, all from the leaf's player to move, in batches
with virtual loss. The book's defects (docs/book-differences.md, 8) are fixed by construction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from dlgo.alphago.evaluator import AlphaGoEvaluator
from dlgo.search.agent import PUCTAgent
from dlgo.search.settings import SearchSettings

__all__ = ["ALPHAGO_SEARCH", "AlphaGoMCTS"]


#: AlphaGo's search (book 13.4): the book's c_u 5, 1,000 simulations, the Python tree (its
#: leaves are rollouts and several networks, which the compiled tree does not evaluate)
ALPHAGO_SEARCH = SearchSettings(rounds=1000, exploration=5.0, batch_size=8, tree="python")


class AlphaGoMCTS(PUCTAgent):
    """AlphaGo-style search on an ``AlphaGoEvaluator``; competitive play only (no noise).
    ``num_simulations`` and ``c_u`` are the book's names of ``settings.rounds`` and
    ``settings.exploration``."""

    def __init__(
        self,
        evaluator: AlphaGoEvaluator,
        num_simulations: int | None = None,
        c_u: float | None = None,
        *,
        settings: SearchSettings = ALPHAGO_SEARCH,
        max_seconds: float | None = None,
        seed: int | None = None,
        **changes: Any,
    ) -> None:
        book = {"rounds": num_simulations, "exploration": c_u}
        settings = settings.replace(**{k: v for k, v in book.items() if v is not None}, **changes)
        super().__init__(evaluator, settings, max_seconds=max_seconds, seed=seed)

    @property
    def num_simulations(self) -> int:
        return self.settings.rounds

    @classmethod
    def from_params(cls, params: Mapping[str, Any], board_size: int) -> AlphaGoMCTS:
        """The ``alphago`` agent kind (``dlgo.agent_registry``): its config table, every key given
        and the model files it needs checked (no value network when ``lambda_value`` is 0); its
        search keys (``rounds``, ``exploration``, ``batch_size``, ``reuse_tree``) become the
        agent's ``SearchSettings``."""
        return cls.from_models(
            params["policy_model"],
            params["value_model"] if params["lambda_value"] > 0 else None,
            board_size=board_size,
            settings=SearchSettings.from_config(params, ALPHAGO_SEARCH),
            lambda_value=float(params["lambda_value"]),
            rollouts=int(params["rollouts"]),
            rollout_policy=str(params["rollout_policy"]),
            rollout_model=params["rollout_model"] or None,
            cache_size=int(params["cache_size"]),
            threads=int(params["threads"]) or None,
            seed=params["seed"],
        )

    @classmethod
    def from_models(
        cls,
        policy_model: str | os.PathLike,
        value_model: str | os.PathLike | None = None,
        *,
        board_size: int | None = None,
        lambda_value: float = 0.5,
        rollouts: int = 1,
        rollout_policy: str = "fast",
        rollout_limit: int | None = None,
        rollout_model: str | os.PathLike | None = None,
        backend: str = "auto",
        cache_size: int = 50_000,
        threads: int | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> AlphaGoMCTS:
        """An agent on saved networks: the (strong) policy network for priors and, unless
        ``value_model`` is None, the value network; random symmetry and a cache for both.
        ``rollout_model``: a trained fast rollout policy (book 13.2), which sets ``rollout_policy``
        to "trained"."""
        from dlgo.inference import BatchEvaluator, load_model

        def evaluator(path, head):
            loaded = load_model(path, heads=[head], board_size=board_size, lazy=True)
            return BatchEvaluator(
                loaded, backend=backend, cache_size=cache_size, symmetry_mode="random", seed=seed, threads=threads
            )

        policy = evaluator(policy_model, "policy")
        value = evaluator(value_model, "value") if value_model else None
        weights = None
        if rollout_model:
            from dlgo.alphago.trained_rollout import load_rollout_weights

            weights, rollout_policy = load_rollout_weights(rollout_model), "trained"
        combined = AlphaGoEvaluator(policy, value, lambda_value, rollouts, rollout_policy, rollout_limit, weights)
        return cls(combined, seed=seed, **kwargs)
