"""The numbers of a game review: every position searched by the analysis library, as ``TurnAnalysis``.

``analyze_game`` is the one place a review gets its numbers from: it hands the positions to a
``dlgo.analysis.Analyzer`` (the analysis engine's library), which searches several at once with
the config's agent for the board size on shared network batches, and turns each of its answers
(KataGo's analysis answer) into a ``TurnAnalysis``.

Views: the answers are asked for from Black's view (``reportAnalysisWinratesAs`` BLACK);
``TurnAnalysis`` keeps the values for the player to move (``winrate``, ``score_lead``) and gives
Black's view too (``black_winrate``, ``black_score_lead``). The answer's ``scoreLead`` is the one
score: where the board's agent has no score head the analysis library estimates it
(``dlgo.analysis.score``, docs/analysis.md, "Scores without a score head") and
``score_estimated`` is set.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dlgo.analysis.analyzer import Analyzer
from dlgo.analysis.options import TurnOptions
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.play.config import Config
from dlgo.play.errors import PlayError
from dlgo.play.game import position_for
from dlgo.sgf import SgfGame
from dlgo.utils import point_from_coords

__all__ = [
    "MAX_CANDIDATES",
    "PV_LENGTH",
    "AnalysisFailed",
    "AnalysisStopped",
    "Candidate",
    "TurnAnalysis",
    "analyze_game",
    "review_positions",
]

MAX_CANDIDATES = 5  # candidates kept per position: the review shows the best, a viewer a few more
PV_LENGTH = 8  # moves kept of each candidate's principal variation
WINDOW = 256  # turns of one game queued at once (the analyser's queue is bounded)

ProgressCallback = Callable[["TurnAnalysis"], None]
_keys = itertools.count()


class AnalysisStopped(Exception):
    """``analyze_game``'s ``stop`` was set before every position was searched."""


class AnalysisFailed(PlayError):
    """The analyser could not analyse a position (its message names the turn)."""


@dataclass(frozen=True)
class Candidate:
    """One move the search considered; ``winrate`` and ``score_lead`` for the player to move."""

    move: Move
    visits: int
    winrate: float
    score_lead: float  # estimated by the analyser when the turn's ``score_estimated``
    prior: float
    pv: tuple[Move, ...]  # starts with ``move``


@dataclass(frozen=True)
class TurnAnalysis:
    """The search of the position at ``turn`` (``turn`` moves played), ``to_move`` to play."""

    turn: int
    to_move: Player
    winrate: float  # the root's, for ``to_move``
    score_lead: float  # points ``to_move`` leads by (the root's mean)
    score_estimated: bool  # True: the agent has no score head; the analyser estimated the leads
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


def _move(text: str) -> Move:
    return Move.pass_turn() if text.strip().lower() == "pass" else Move.play(point_from_coords(text))


def _turn(turn: int, state: GameState, answer: dict[str, Any], estimated: bool) -> TurnAnalysis:
    """The answer (values from Black's view) as a ``TurnAnalysis`` (for the player to move)."""
    to_move = state.next_player
    sign = 1.0 if to_move is Player.black else -1.0

    def winrate(black: float) -> float:
        return float(black) if to_move is Player.black else 1.0 - float(black)

    candidates = []
    for info in sorted(answer.get("moveInfos", ()), key=lambda i: i["order"])[:MAX_CANDIDATES]:
        move = _move(info["move"])
        pv = tuple(_move(m) for m in info.get("pv", ())[:PV_LENGTH])
        candidates.append(
            Candidate(
                move=move,
                visits=int(info["visits"]),
                winrate=winrate(info["winrate"]),
                score_lead=sign * float(info["scoreLead"]),
                prior=float(info["prior"]),
                pv=pv or (move,),
            )
        )
    root = answer["rootInfo"]
    return TurnAnalysis(
        turn=turn,
        to_move=to_move,
        winrate=winrate(root["winrate"]),
        score_lead=sign * float(root["scoreLead"]),
        score_estimated=estimated,
        visits=int(root["visits"]),
        candidates=tuple(candidates),
    )


def analyze_game(
    analyzer_or_config: Analyzer | Config,
    states: Sequence[GameState],
    visits: int,
    progress: ProgressCallback | None = None,
    stop: threading.Event | None = None,
) -> list[TurnAnalysis]:
    """Search every position of ``states`` with ``visits`` visits; one ``TurnAnalysis`` each, in
    order, ``turn`` = the index in ``states``.

    ``states``: positions of one board size, each searched for its ``next_player`` (a review
    passes ``review_positions(game)``: the position before each move, then the final one).
    ``analyzer_or_config``: the ``Analyzer`` that searches (reuse one for many games: its agents
    are built once), or a ``Config`` for an analyser of its own, closed at the end. The positions
    are searched several at once; ``progress`` is called (in this thread) with each analysis as
    it is done, in the order they finish. ``stop``: once set, the searches under way end, the
    others are dropped and ``AnalysisStopped`` is raised.
    Raises ``dlgo.play.errors.UnsupportedSize`` (no agent of the config plays the board),
    ``AgentBuildError``, ``NoAnalysis`` (the board's agent does not search) and
    ``AnalysisFailed`` (the analyser could not analyse a position; the message names it).
    """
    if visits < 1:
        raise ValueError(f"visits must be at least 1, got {visits}")
    if not states:
        return []
    rows, cols = states[0].board.num_rows, states[0].board.num_cols
    if any((s.board.num_rows, s.board.num_cols) != (rows, cols) for s in states):
        raise ValueError("analyze_game: the positions are not all of one board size")
    if isinstance(analyzer_or_config, Analyzer):
        return _analyze(analyzer_or_config, states, visits, progress, stop)
    analyzer = Analyzer(analyzer_or_config)
    try:
        return _analyze(analyzer, states, visits, progress, stop)
    finally:
        analyzer.close(finish=False)


def _analyze(
    analyzer: Analyzer,
    states: Sequence[GameState],
    visits: int,
    progress: ProgressCallback | None,
    stop: threading.Event | None,
) -> list[TurnAnalysis]:
    rows, cols = states[0].board.num_rows, states[0].board.num_cols
    analyzer.check_board(rows, cols)
    options = TurnOptions(max_visits=visits, report_as="BLACK", pv_length=PV_LENGTH - 1)
    key = f"review-{next(_keys)}"
    answers: queue.Queue[tuple[int, dict[str, Any] | str]] = queue.Queue()

    def on_answer(answer: dict[str, Any]) -> None:
        if not answer.get("isDuringSearch"):
            answers.put((int(answer["turnNumber"]), answer))

    def on_error(turn: int, message: str) -> None:
        answers.put((turn, message))

    n = len(states)
    out: list[TurnAnalysis | None] = [None] * n
    submitted = done = 0
    estimated: bool | None = None
    finished = False
    try:
        while done < n:
            if submitted < n and submitted - done <= WINDOW // 2:  # the analyser's queue is bounded
                upto = min(n, done + WINDOW)
                analyzer.submit(key, [(t, states[t]) for t in range(submitted, upto)], options, on_answer, on_error)
                submitted = upto
            if estimated is None:  # the board's agent (built by now, or waited for): a score head?
                _, _, agent = analyzer.pool.agents.get(rows, cols)
                estimated = not getattr(agent, "network_ownership", False)
            if stop is not None and stop.is_set():
                raise AnalysisStopped(f"stopped after {done} of {n} positions")
            try:
                turn, got = answers.get(timeout=0.05)
            except queue.Empty:
                continue
            if stop is not None and stop.is_set():  # a search cut short is no answer
                raise AnalysisStopped(f"stopped after {done} of {n} positions")
            if isinstance(got, str) or "error" in got or "rootInfo" not in got:
                message = got if isinstance(got, str) else got.get("error", "no results")
                analyzer.check_board(rows, cols)  # the board's own error (a failed build), if that is it
                raise AnalysisFailed(f"position {turn} (after {turn} moves) could not be analysed: {message}")
            analysis = _turn(turn, states[turn], got, estimated)
            out[turn] = analysis
            done += 1
            if progress is not None:
                progress(analysis)
        finished = True
    finally:
        if not finished:
            analyzer.terminate(key)
    return [a for a in out if a is not None]
