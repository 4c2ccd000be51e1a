"""A generic PUCT search agent (book 14.2-14.4): the ``SearchAgent`` on ``PUCTSearch``.

    agent = PUCTAgent(evaluator, SearchSettings(rounds=800, exploration=2.0))
    move = agent.select_move(game_state)                               # most visited move (or select_by="lcb")
    result = agent.search(game_state, SearchBudget(max_seconds=1.0))   # for the GTP engine

Competitive mode (the default) plays the most visited move and never adds noise. Self-play
mode (``self_play=True``) mixes Dirichlet noise into the root priors, samples the first
``temperature_moves`` moves of a game from the visit counts (temperature 1) and then plays
greedily; after every search ``last_statistics`` holds the training targets (visit counts over
the ``N*N + 1`` moves and the root value). Resigning and passing are decisions of the caller
(``dlgo.agent.termination``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from dlgo.goboard import GameState, Move
from dlgo.search.base import TREES, ProgressCallback, SearchAgent, SearchBudget, SearchResult
from dlgo.search.puct import Evaluator, PUCTSearch, SearchStatistics
from dlgo.search.settings import SearchSettings

if TYPE_CHECKING:
    from dlgo.search.compiled import CompiledPUCTSearch

__all__ = ["PUCTAgent", "TREES", "compiled_search_supports"]


def compiled_search_supports(evaluator: Evaluator, self_play: bool = False) -> bool:
    """Whether the compiled tree can search on ``evaluator``: a zero-encoder network's
    ``BatchEvaluator`` (with ``encoded_aux`` where the network has ownership and score heads
    whose maps analysis shows; self-play never reads them)."""
    return (
        hasattr(evaluator, "evaluate_encoded")
        and getattr(evaluator, "encoder_name", None) == "zero"
        and (self_play or not getattr(evaluator, "has_aux", False) or hasattr(evaluator, "encoded_aux"))
    )


class PUCTAgent(SearchAgent):
    """PUCT search on any evaluator: a Zero network's ``BatchEvaluator``, AlphaGo's networks plus
    rollouts, or a fake in tests. The Zero and AlphaGo agents are this with their own defaults.

    ``settings``: how it searches (``SearchSettings``: visits per move, the PUCT constant,
    batches, tree reuse, the tree, ...; None: the defaults), with ``changes`` to single settings
    by name or by the book's names (``rounds_per_move``, ``c``): ``PUCTAgent(evaluator,
    rounds_per_move=800, c=2.0)`` is ``PUCTAgent(evaluator, SearchSettings(rounds=800,
    exploration=2.0))``. The tree is "compiled" (numba arrays, ``dlgo.search.compiled``) wherever
    the evaluator supports it (a Zero network's ``BatchEvaluator``), else "python"
    (``ZeroTreeNode`` objects); both search alike (same visits for the same evaluations).
    ``self_play``/``temperature_moves``: self-play mode (above); ``max_seconds``: a clock limit
    for ``select_move``; ``seed``: the search's random numbers (root noise, sampled moves).
    """

    def __init__(
        self,
        evaluator: Evaluator,
        settings: SearchSettings | None = None,
        *,
        self_play: bool = False,
        temperature_moves: int | None = None,
        max_seconds: float | None = None,
        seed: int | None = None,
        **changes: Any,
    ) -> None:
        if settings is not None and not isinstance(settings, SearchSettings):  # the book's positional rounds
            raise TypeError(f"settings must be a SearchSettings, not {settings!r} (visits per move: rounds=...)")
        settings = (settings or SearchSettings()).replace(**changes)
        self.evaluator = evaluator
        self.self_play = self_play
        self.temperature_moves = temperature_moves
        self.max_seconds = max_seconds
        rng = np.random.default_rng(seed)
        if settings.tree == "compiled" and compiled_search_supports(evaluator, self_play):
            from dlgo.search.compiled import CompiledPUCTSearch

            self.tree: PUCTSearch | CompiledPUCTSearch = CompiledPUCTSearch(evaluator, settings, rng)
        else:
            self.tree = PUCTSearch(evaluator, settings, rng)
        self.last_result: SearchResult | None = None

    @property
    def rounds_per_move(self) -> int:
        """The book's name of ``settings.rounds``; setting it changes the agent's budget."""
        return self.settings.rounds

    @rounds_per_move.setter
    def rounds_per_move(self, rounds: int) -> None:
        self.tree.settings = self.settings.replace(rounds=rounds)

    # --- SearchAgent ------------------------------------------------------------------------------
    @property
    def settings(self) -> SearchSettings:
        return self.tree.settings

    @property
    def keeps_tree(self) -> bool:
        return self.settings.reuse_tree

    @property
    def network_ownership(self) -> bool:
        return bool(getattr(self.evaluator, "has_aux", False))

    def default_budget(self) -> SearchBudget:
        return SearchBudget(max_visits=self.settings.rounds, max_seconds=self.max_seconds)

    def search(
        self,
        game_state: GameState,
        budget: SearchBudget,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
    ) -> SearchResult:
        result = self.tree.search(game_state, budget, on_progress, progress_interval, self_play=self.self_play)
        self.last_result = result
        return result

    @property
    def last_statistics(self) -> SearchStatistics | None:
        """Training targets of the last search: visit counts over N*N + 1 moves, root value."""
        return self.tree.last_statistics

    def default_temperature_moves(self, num_points: int) -> int:
        """Moves sampled at temperature 1 in self-play when ``temperature_moves`` is None."""
        return 0

    def temperature(self, game_state: GameState) -> float:
        """1 for the first moves of a self-play game, then 0 (greedy); always 0 in competition."""
        if not self.self_play:
            return 0.0
        board = game_state.board
        limit = self.temperature_moves
        if limit is None:
            limit = self.default_temperature_moves(board.num_rows * board.num_cols)
        return 1.0 if game_state.move_number < limit else 0.0

    def select_move(self, game_state: GameState) -> Move:
        if game_state.is_over():
            return Move.pass_turn()
        result = self.search(game_state, self.default_budget())
        if self.temperature(game_state) > 0:
            move = self.tree.sample_move(1.0)
        else:
            move = result.best.move if result.best is not None else None  # the settings' select_by
        return move if move is not None else Move.pass_turn()

    def clear_tree(self) -> None:
        self.tree.clear()

    def diagnostics(self) -> dict:
        stats = getattr(self.evaluator, "stats", None)
        return {
            "evaluations": self.tree.evaluations,
            "evaluator_calls": self.tree.evaluator_calls,
            **(stats if isinstance(stats, dict) else {}),
        }
