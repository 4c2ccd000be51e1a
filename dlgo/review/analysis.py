"""The numbers of a game review: one search per position, as ``TurnAnalysis``.

``analyze_game`` is the one place a review gets its numbers from. Today it searches the
positions one after another with the board's agent of a ``PlaySession`` (the play layer: the
config's agent for the board size, built once and kept); a batching analyser that searches many
positions at once on shared network batches can take its place behind the same signature.

Views: a search reports values for the player to move at its root. ``TurnAnalysis`` keeps them
so (``winrate``, ``score_lead``) and gives Black's view too (``black_winrate``,
``black_score_lead``), as KataGo's analysis engine reports ``rootInfo`` from one side
(docs/Analysis_Engine.md, ``reportAnalysisWinratesAs``). Where the agent has no score head the
leads are estimated from win rates (``dlgo.review.estimate``) and ``score_estimated`` is set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.play.config import Config
from dlgo.play.game import position_for
from dlgo.play.session import PlaySession
from dlgo.review.estimate import lead_from_winrate
from dlgo.search import SearchBudget, SearchResult
from dlgo.sgf import SgfGame

__all__ = [
    "MAX_CANDIDATES",
    "PV_LENGTH",
    "AnalysisStopped",
    "Candidate",
    "TurnAnalysis",
    "analyze_game",
    "review_positions",
]

MAX_CANDIDATES = 5  # candidates kept per position: the review shows the best, a viewer a few more
PV_LENGTH = 8  # moves kept of each candidate's principal variation

ProgressCallback = Callable[["TurnAnalysis"], None]


class AnalysisStopped(Exception):
    """``analyze_game``'s ``stop`` was set before every position was searched."""


@dataclass(frozen=True)
class Candidate:
    """One move the search considered; ``winrate`` and ``score_lead`` for the player to move."""

    move: Move
    visits: int
    winrate: float
    score_lead: float  # estimated from ``winrate`` when the turn's ``score_estimated``
    prior: float
    pv: tuple[Move, ...]  # starts with ``move``


@dataclass(frozen=True)
class TurnAnalysis:
    """The search of the position at ``turn`` (``turn`` moves played), ``to_move`` to play."""

    turn: int
    to_move: Player
    winrate: float  # the root's, for ``to_move``
    score_lead: float  # points ``to_move`` leads by (the root's mean)
    score_estimated: bool  # True: ``score_lead`` and the candidates' come from win rates
    visits: int
    candidates: tuple[Candidate, ...]  # best first, at most MAX_CANDIDATES

    @property
    def black_winrate(self) -> float:
        return self.winrate if self.to_move is Player.black else 1.0 - self.winrate

    @property
    def black_score_lead(self) -> float:
        return self.score_lead if self.to_move is Player.black else -self.score_lead

    def winrate_for(self, player: Player) -> float:
        return self.winrate if player is self.to_move else 1.0 - self.winrate

    def score_lead_for(self, player: Player) -> float:
        return self.score_lead if player is self.to_move else -self.score_lead

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def best_move(self) -> Move | None:
        return self.candidates[0].move if self.candidates else None

    @property
    def pv(self) -> tuple[Move, ...]:
        """The best move's principal variation (empty when the search expanded no move)."""
        return self.candidates[0].pv if self.candidates else ()


def review_positions(game: SgfGame, komi: float | None = None) -> list[GameState]:
    """What a review searches: the position before each move with that move's player to move
    (a record may have a colour move twice), then the final position.

    A position right after a pass is searched as a game that goes on (a node with no move after
    it, as ``position_for`` makes for a finished game): else the search could end the game at
    once by passing back, and a finished search game is counted with every stone on the board
    alive (Tromp-Taylor), which in a human game with dead stones left on the board is not the
    game's count, so passes near the end of a record would swing by the whole board.

    ``komi``: what the searches count with, when not the record's (a handicap game under area
    scoring gives White points for the stones on top: ``dlgo.handicap.handicap_compensation``).
    """
    states = _with_komi(game.states(), komi)
    players = [player for player, _ in game.moves] + [states[-1].next_player]
    return [_going_on(state, player) for state, player in zip(states, players, strict=True)]


def _going_on(state: GameState, player: Player) -> GameState:
    if state.last_move is not None and state.last_move.is_pass:
        return GameState(state.board, player, state, None, state.komi)
    return position_for(state, player)


def _with_komi(states: list[GameState], komi: float | None) -> list[GameState]:
    """``states`` (one history, each after the one before) with ``komi``: the last one's
    history rebuilt once and the others found on it (``with_komi`` on each would rebuild the
    history once per state)."""
    if komi is None or states[-1].komi == komi:
        return states
    renewed: dict[int, GameState] = {}
    old: GameState | None = states[-1]
    new: GameState | None = states[-1].with_komi(komi)
    while old is not None and new is not None:
        renewed[id(old)] = new
        old, new = old.previous_state, new.previous_state
    return [renewed[id(s)] for s in states]


def _turn(turn: int, state: GameState, result: SearchResult) -> TurnAnalysis:
    rows, cols = state.board.num_rows, state.board.num_cols
    estimated = result.score_lead is None

    def lead(winrate: float, score: float | None) -> float:
        return lead_from_winrate(winrate, rows, cols) if estimated or score is None else float(score)

    candidates = tuple(
        Candidate(
            move=c.move,
            visits=int(c.visits),
            winrate=float(c.winrate),
            score_lead=lead(c.winrate, c.score_lead),
            prior=float(c.prior),
            pv=tuple(c.pv[:PV_LENGTH]) if c.pv else (c.move,),
        )
        for c in result.candidates[:MAX_CANDIDATES]
    )
    return TurnAnalysis(
        turn=turn,
        to_move=state.next_player,
        winrate=float(result.winrate),
        score_lead=lead(result.winrate, result.score_lead),
        score_estimated=estimated,
        visits=int(result.visits),
        candidates=candidates,
    )


def analyze_game(
    session_or_config: PlaySession | Config,
    states: Sequence[GameState],
    visits: int,
    progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
) -> list[TurnAnalysis]:
    """Search every position of ``states`` with ``visits`` visits; one ``TurnAnalysis`` each, in
    order, ``turn`` = the index in ``states``.

    ``states``: positions of one board size, each searched for its ``next_player`` (a review
    passes ``review_positions(game)``: the position before each move, then the final one).
    ``session_or_config``: the ``PlaySession`` whose agents search (its game is set to the
    board size; reuse one session for many games, its agents are built once), or a ``Config``
    for a session of its own. ``progress`` is called with each analysis as it is done.
    ``stop``: once set, the search under way ends and ``AnalysisStopped`` is raised.
    Raises ``dlgo.play.errors.UnsupportedSize`` (no agent of the config plays the board),
    ``AgentBuildError`` and ``NoAnalysis`` (the board's agent does not search).
    """
    if visits < 1:
        raise ValueError(f"visits must be at least 1, got {visits}")
    if not states:
        return []
    rows, cols = states[0].board.num_rows, states[0].board.num_cols
    if any((s.board.num_rows, s.board.num_cols) != (rows, cols) for s in states):
        raise ValueError("analyze_game: the positions are not all of one board size")
    session = session_or_config if isinstance(session_or_config, PlaySession) else PlaySession(session_or_config)
    if (session.game.rows, session.game.cols) != (rows, cols):
        session.game.clear(rows, cols)
    agent = session.searching_agent()
    out: list[TurnAnalysis] = []
    for turn, state in enumerate(states):
        if stop is not None and stop.is_set():
            raise AnalysisStopped(f"stopped after {turn} of {len(states)} positions")
        result = agent.search(state, SearchBudget(max_visits=visits, stop=stop, banks_time=False))
        if stop is not None and stop.is_set():  # a search cut short is no answer
            raise AnalysisStopped(f"stopped after {turn} of {len(states)} positions")
        analysis = _turn(turn, state, result)
        out.append(analysis)
        if progress is not None:
            progress(analysis)
    return out
