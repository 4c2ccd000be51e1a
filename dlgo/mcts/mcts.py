"""Monte Carlo tree search with random rollouts (book 4.5), rollouts in compiled code.

Each round descends the tree with UCT ``w + c * sqrt(ln N / n)``, adds one child for a move
not tried yet (picked uniformly at random), plays one random game from it with the compiled
kernel and records the winner along the path. Candidate moves of a node are the legal plays that
do not fill the mover's own eye, plus pass; superko is checked exactly when a child is added.

End of game (``dlgo.agent.termination``, the rules the GTP engine follows too): passes when the
opponent has passed and we win the count with dead stones removed, never on a lucky pass of a
small search, and resigns below a win-rate threshold after a minimum number of moves (as White
in a handicap game on a lower threshold and later). The agent keeps no memory of its earlier
moves, so one lost search is enough to resign (``consecutive_moves=1``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from typing import Any

from dlgo.agent.termination import ResignPolicy, clear_pass_or_best_play, wins_count
from dlgo.goboard import GameState, Move
from dlgo.playout import board_array, kernel
from dlgo.search import (
    CandidateInfo,
    ProgressCallback,
    SearchAgent,
    SearchBudget,
    SearchResult,
    lower_confidence_bound,
)

__all__ = ["MCTSNode", "MCTSAgent"]

PASS = -1


class MCTSNode:
    """A tree node. ``wins`` count for the player who made ``move`` (the parent's mover)."""

    __slots__ = ("game_state", "parent", "move", "children", "unvisited", "wins", "visits", "terminal_winner")

    def __init__(self, game_state: GameState, parent: MCTSNode | None = None, move: Move | None = None):
        self.game_state = game_state
        self.parent = parent
        self.move = move
        self.children: list[MCTSNode] = []
        self.wins = 0.0
        self.visits = 0
        # Untried moves are listed on the first expansion: most leaves are never expanded.
        self.unvisited: list[int] | None = None
        if game_state.is_over():
            self.unvisited = []
            w = game_state.winner()
            self.terminal_winner = 0 if w is None else w.value
        else:
            self.terminal_winner = -1

    def can_add_child(self) -> bool:
        if self.unvisited is None:
            state = self.game_state
            board = state.board
            cands = kernel.candidate_moves(
                board_array(state),
                board.geometry.width,
                state.next_player.value,
                state.ko_point,
            ).tolist()
            cands.append(PASS)
            random.shuffle(cands)
            self.unvisited = cands
        return bool(self.unvisited)

    def winning_frac(self) -> float:
        return self.wins / self.visits if self.visits else 0.0

    def is_terminal(self) -> bool:
        return self.terminal_winner >= 0

    def add_random_child(self) -> MCTSNode | None:
        """Pop untried moves until one is fully legal (superko); None if none is left."""
        state = self.game_state
        board = state.board
        color = state.next_player.value
        while self.can_add_child():
            idx = self.unvisited.pop()
            if idx == PASS:
                move = Move.pass_turn()
            elif state.violates_superko_at(color, idx):
                continue
            else:
                move = Move.play(board.geometry.points[idx])
            child = MCTSNode(state.apply_move(move), self, move)
            self.children.append(child)
            return child
        return None


class MCTSAgent(SearchAgent):
    """The book's MCTS agent (``num_rounds``, ``temperature`` = UCT c), with a clock and analysis.

    ``select_by``: ``"visits"`` (robust child) or ``"winrate"`` (the book's choice).
    """

    def __init__(
        self,
        num_rounds: int = 2000,
        temperature: float = 1.5,
        select_by: str = "visits",
        max_seconds: float | None = None,
        resign_threshold: float = 0.1,
        resign_min_move: int | None = None,
        handicap_resign_threshold: float = 0.02,
        handicap_resign_min_move: int | None = None,
        pass_playouts: int = 400,
        seed: int | None = None,
    ) -> None:
        if select_by not in ("visits", "winrate"):
            raise ValueError("select_by must be 'visits' or 'winrate'")
        self.num_rounds = num_rounds
        self.temperature = temperature
        self.select_by = select_by
        self.max_seconds = max_seconds
        self.resign_policy = ResignPolicy(
            threshold=resign_threshold,
            min_move=resign_min_move,
            handicap_threshold=handicap_resign_threshold,
            handicap_min_move=handicap_resign_min_move,
            consecutive_moves=1,
        )
        self.pass_playouts = pass_playouts
        self.last_result: SearchResult | None = None
        if seed is not None:
            random.seed(seed)
            kernel.seed(seed)

    @classmethod
    def from_params(cls, params: Mapping[str, Any], board_size: int) -> MCTSAgent:
        """The ``mcts`` agent kind (``dlgo.agent_registry``): its config table, every key given."""
        return cls(
            num_rounds=int(params["rounds"]),
            temperature=float(params["exploration"]),
            select_by=str(params["select_by"]),
            seed=params["seed"],
        )

    def default_budget(self) -> SearchBudget:
        return SearchBudget(max_visits=self.num_rounds, max_seconds=self.max_seconds)

    # --- the search -----------------------------------------------------------------------
    def select_child(self, node: MCTSNode) -> MCTSNode:
        log_n = math.log(node.visits)
        c = self.temperature
        best, best_score = node.children[0], -1.0
        for child in node.children:
            n = child.visits
            score = child.wins / n + c * math.sqrt(log_n / n)
            if score > best_score:
                best, best_score = child, score
        return best

    def _rollout(self, node: MCTSNode) -> int:
        if node.terminal_winner >= 0:
            return node.terminal_winner
        state = node.game_state
        board = state.board
        winner, _ = kernel.playout(
            board_array(state),
            board.geometry.width,
            state.next_player.value,
            state.ko_point,
            float(state.komi),
            3 * board.num_rows * board.num_cols + 50,
        )
        return winner

    def _round(self, root: MCTSNode) -> None:
        node = root
        while node.terminal_winner < 0 and not node.can_add_child() and node.children:
            node = self.select_child(node)
        if node.terminal_winner < 0 and node.can_add_child():
            child = node.add_random_child()
            if child is not None:
                node = child
        winner = self._rollout(node)
        while node is not None:
            node.visits += 1
            mover = node.game_state.next_player.other.value
            if winner == mover:
                node.wins += 1.0
            elif winner == 0:
                node.wins += 0.5
            node = node.parent

    def search(
        self,
        game_state: GameState,
        budget: SearchBudget,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
    ) -> SearchResult:
        root = MCTSNode(game_state)
        next_report = progress_interval
        rounds = 0
        while True:
            # Check the clock every few rounds: a round takes tens of microseconds.
            if rounds % 16 == 0 and budget.exhausted(rounds):
                break
            if budget.max_visits is not None and rounds >= budget.max_visits:
                break
            if root.terminal_winner >= 0 or (not root.can_add_child() and not root.children):
                break
            self._round(root)
            rounds += 1
            if on_progress is not None and rounds % 16 == 0 and budget.elapsed() >= next_report:
                next_report = budget.elapsed() + progress_interval
                on_progress(self._result(root, budget.elapsed()))
        result = self._result(root, budget.elapsed())
        self.last_result = result
        return result

    def _result(self, root: MCTSNode, elapsed: float) -> SearchResult:
        children = [c for c in root.children if c.visits > 0]
        if self.select_by == "visits":
            children.sort(key=lambda c: (c.visits, c.winning_frac()), reverse=True)
        else:
            children.sort(key=lambda c: (c.winning_frac(), c.visits), reverse=True)
        total = max(1, sum(c.visits for c in children))
        candidates = []
        for child in children:
            pv = [child.move]
            node = child
            while node.children:
                node = max(node.children, key=lambda c: c.visits)
                pv.append(node.move)
            candidates.append(
                CandidateInfo(
                    move=child.move,
                    visits=child.visits,
                    winrate=child.winning_frac(),
                    prior=child.visits / total,
                    lcb=lower_confidence_bound(child.wins, child.visits),
                    pv=pv,
                )
            )
        # Root value for the player to move = share of the root's rollouts its children won.
        root_wr = sum(c.wins for c in children) / total if children else 0.5
        return SearchResult(candidates=candidates, visits=root.visits, winrate=root_wr, elapsed=elapsed)

    # --- the decision (dlgo.agent.termination) ------------------------------------------
    def select_move(self, game_state: GameState) -> Move:
        if game_state.is_over():
            return Move.pass_turn()
        last = game_state.last_move
        opponent_passed = last is not None and last.is_pass
        if opponent_passed and wins_count(game_state, self.pass_playouts):
            return Move.pass_turn()
        result = self.search(game_state, self.default_budget())
        candidates = result.candidates
        if opponent_passed:
            # A pass now ends the game with a lost count: play on whatever the search says.
            candidates = [c for c in candidates if not c.move.is_pass]
        if not candidates:
            return Move.pass_turn()
        best = candidates[0]
        if best.move.is_pass:
            best = clear_pass_or_best_play(candidates, result.visits)
        if self._should_resign(game_state, best.winrate):
            return Move.resign()
        return best.move

    def _should_resign(self, game_state: GameState, winrate: float) -> bool:
        return self.resign_policy.should_resign(game_state, game_state.move_number, winrate)


def timed_rounds(agent: MCTSAgent, game_state: GameState, rounds: int) -> float:
    """Rounds per second of one search (used by the benchmark)."""
    start = time.perf_counter()
    agent.search(game_state, SearchBudget(max_visits=rounds))
    return rounds / (time.perf_counter() - start)
