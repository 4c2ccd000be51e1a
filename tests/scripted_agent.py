"""A search agent for tests: always the first legal play, with the win rate the test sets."""

from __future__ import annotations

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.search import CandidateInfo, SearchAgent, SearchBudget, SearchResult


class ScriptedSearch(SearchAgent):
    """Answers the first legal play with ``winrate`` (settable between moves), ``visits`` and, as
    a network's score head would, ``score_lead`` (None: no score)."""

    def __init__(self, winrate: float = 0.5, visits: int = 500, score_lead: float | None = None) -> None:
        self.winrate = winrate
        self.visits = visits
        self.score_lead = score_lead

    def default_budget(self) -> SearchBudget:
        return SearchBudget()  # no visit limit of its own, as the engine's scripted agent types have no rounds

    def select_move(self, game_state: GameState) -> Move:
        return self.search(game_state, SearchBudget()).candidates[0].move

    def search(self, game_state, budget, on_progress=None, progress_interval=0.5) -> SearchResult:
        board = game_state.board
        move = next(
            Move.play(Point(r, c))
            for r in range(1, board.num_rows + 1)
            for c in range(1, board.num_cols + 1)
            if game_state.is_valid_move(Move.play(Point(r, c)))
        )
        cand = CandidateInfo(move=move, visits=self.visits, winrate=self.winrate, score_lead=self.score_lead)
        return SearchResult([cand], visits=self.visits, winrate=self.winrate, elapsed=0.0, score_lead=self.score_lead)
