"""Self-play games of a Zero agent (book 14.3; Silver et al. 2017, Methods; KataGo's playout cap randomization).

    game = play_game(agent, SelfPlaySettings(board_size=9), rng, resign_allowed=True)
    game.experience      # ZeroExperienceBuffer: planes, visit distributions, results
    game.sgf             # the record

Every move is searched; a fraction ``full_search_fraction`` of the moves get the full search
(``full_visits``, Dirichlet noise at the root) and only those become policy targets; the
others get a fast search (``fast_visits``, no noise) that just moves the game on. That is
KataGo's playout cap randomization: many more games (value targets) for the same compute.
With ``root_search = "gumbel"`` the full searches are Gumbel root searches with sequential
halving instead (``dlgo.search.gumbel``): the move played is the search's own draw and the
policy target its improved policy, better than visit counts at a few hundred visits.
A share ``corner_start_fraction`` of the games starts from a corner position instead of the
empty board (``dlgo.zero.starts``): a local fight on an open board, as in a set-up problem.

The first ``temperature_moves`` moves are sampled from the visit counts (temperature 1), the
rest are the most visited move. A game ends with two passes (scored by area with komi, every
stone on the board counted alive, which is what the search scores too; with
``cleanup_playouts`` a player does not pass while the playout count sees dead opponent stones,
but attacks them, ``cleanup_capture``), at ``max_moves``
(scored the same way), or by resignation: a player resigns when ``max(root value, value of
the best move)`` stays below ``resign_threshold`` for ``resign_consecutive`` of its moves
after ``resign_min_move`` (``dlgo.agent.termination.ResignPolicy``, the rule the GTP engine
follows too, in value units here). A share of games (``resign_allowed=False``) is played out anyway:
they measure how often resigning would have thrown a won game away, and the lowest value the
eventual winner went through calibrates the threshold (``calibrate_resign_threshold``).

A game ended by two passes also leaves KataGo's auxiliary targets (``final_targets``): the final
owner of every point and the final score, from the view of the player to move at each recorded
position. Resigned and capped games have none (mask 0), as KataGo trains ownership only on
finished games.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from dlgo.agent.termination import ResignPolicy
from dlgo.encoders import get_encoder_by_name
from dlgo.game_runner import EndPolicy, MoveEvent
from dlgo.game_runner import cleanup_capture as runner_cleanup_capture
from dlgo.game_runner import play_game as run_game
from dlgo.geometry import BLACK, WHITE
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.scoring import area_ownership, compute_game_result
from dlgo.search import SearchBudget
from dlgo.search.gumbel import gumbel_search
from dlgo.search.settings import SearchSettings
from dlgo.search.zero_agent import ZeroAgent, default_temperature_moves
from dlgo.sgf import write_game
from dlgo.zero.experience import ZeroExperienceBuffer
from dlgo.zero.starts import corner_start

__all__ = [
    "SELFPLAY_SEARCH",
    "SelfPlaySettings",
    "SelfPlayGame",
    "play_game",
    "calibrate_resign_threshold",
    "winner_low_value",
    "final_targets",
]


#: self-play's search when a config names none: the engine's defaults with 8 leaves a batch, not 16
SELFPLAY_SEARCH = SearchSettings(batch_size=8)


@dataclass(frozen=True)
class SelfPlaySettings:
    board_size: int = 9
    komi: float = 7.0
    full_visits: int = 160
    fast_visits: int = 32
    full_search_fraction: float = 0.25
    temperature_moves: int = 0  # 0: AlphaGo Zero's 30 moves scaled by the board's area
    max_moves: int = 0  # 0: twice the board's points
    resign_threshold: float = -0.9  # in value units, [-1, 1]; -1 never resigns
    resign_consecutive: int = 2
    resign_min_move: int = 0  # 0: a quarter of the board's points
    # how every move is searched (its visits: full_visits and fast_visits; config keys
    # exploration, alias c_puct, and batch_size); gating searches the same way
    search: SearchSettings = SELFPLAY_SEARCH
    runtime: str = "fp32"  # the network's runtime in self-play and gating: "fp32" or "int8"
    root_search: str = "puct"  # full searches: "puct" (Dirichlet noise, visit targets) or "gumbel"
    gumbel_considered: int = 16  # moves the Gumbel root search starts from (sequential halving)
    corner_start_fraction: float = 0.0  # share of games started from a corner position (dlgo.zero.starts)
    cleanup_playouts: int = 0  # > 0: dead stones left at the end are captured first (see end_of_game_move)
    # a game's komi: komi plus a whole number of points drawn evenly from [-komi_spread, komi_spread]
    # (KataGo varies komi so that the value learns what the komi plane says; 0: always komi)
    komi_spread: int = 0

    def __post_init__(self) -> None:
        if self.komi_spread < 0:
            raise ValueError("komi_spread must be >= 0 (0: every game at komi)")
        if not 0 < self.full_search_fraction <= 1:
            raise ValueError("full_search_fraction must be in (0, 1]")
        if self.root_search not in ("puct", "gumbel"):
            raise ValueError(f"root_search must be puct or gumbel, not {self.root_search!r}")
        if self.cleanup_playouts < 0:
            raise ValueError("cleanup_playouts must be >= 0 (0: off)")
        if not 0 <= self.corner_start_fraction <= 1:
            raise ValueError("corner_start_fraction must be in [0, 1]")
        if self.gumbel_considered < 1:
            raise ValueError("gumbel_considered must be at least 1")
        if self.runtime not in ("fp32", "int8"):
            raise ValueError(f"runtime must be fp32 or int8, not {self.runtime!r}")
        if self.full_visits < 1 or self.fast_visits < 1:
            raise ValueError("visits must be at least 1")
        if self.resign_consecutive < 1:
            raise ValueError("resign_consecutive must be at least 1")

    @property
    def points(self) -> int:
        return self.board_size * self.board_size

    def agent_search(self) -> SearchSettings:
        """The self-play agent's settings: ``search`` at ``full_visits`` per move."""
        return self.search.replace(rounds=self.full_visits)

    def move_limit(self) -> int:
        return self.max_moves or 2 * self.points

    def temperature_limit(self) -> int:
        return self.temperature_moves or default_temperature_moves(self.points)

    def resign_policy(self) -> ResignPolicy:
        """The resign rule in value units (``resign_min_move`` 0: a quarter of the points)."""
        return ResignPolicy(
            threshold=self.resign_threshold,
            min_move=self.resign_min_move or None,
            consecutive_moves=self.resign_consecutive,
        )

    def game_komi(self, rng: np.random.Generator) -> float:
        """The komi of one game (``komi_spread``)."""
        if self.komi_spread == 0:
            return self.komi
        return self.komi + int(rng.integers(-self.komi_spread, self.komi_spread + 1))

    def resign_start(self) -> int:
        return self.resign_policy().first_move_for(GameState.new_game(self.board_size, komi=self.komi))


@dataclass
class SelfPlayGame:
    """One finished self-play game and what it leaves for training."""

    experience: ZeroExperienceBuffer
    moves: list[str]  # GTP vertices, "pass"
    winner: int  # +1 black, -1 white, 0 jigo
    result: str  # SGF result, e.g. "B+R", "W+3"
    resigned: bool
    resign_allowed: bool
    # the lowest resign signal the eventual winner went through (games played out only)
    winner_low: float | None
    # in a game played out: whether a player crossed the resign threshold, and whether that
    # player then won (a resignation that would have thrown a won game away)
    would_resign: bool = False
    false_resign: bool = False
    full_searches: int = 0
    visits: int = 0
    seconds: float = 0.0
    sgf: str = ""
    values: list[float] = field(default_factory=list)  # resign signal of every move, mover's view
    corner_start: bool = False  # started from a corner position (dlgo.zero.starts), not the empty board
    cleanup_moves: int = 0  # passes replaced by an attack on dead stones (cleanup_capture)
    komi: float = 7.0  # the game's komi (``SelfPlaySettings.komi_spread`` varies it)

    def summary(self) -> dict:
        return {
            "moves": len(self.moves),
            "positions": len(self.experience),
            "winner": {1: "B", -1: "W", 0: "0"}[self.winner],
            "result": self.result,
            "resigned": self.resigned,
            "resign_allowed": self.resign_allowed,
            "winner_low": None if self.winner_low is None else round(self.winner_low, 4),
            "would_resign": self.would_resign,
            "false_resign": self.false_resign,
            "full_searches": self.full_searches,
            "visits": self.visits,
            "seconds": round(self.seconds, 3),
            "corner_start": self.corner_start,
            "cleanup_moves": self.cleanup_moves,
            "komi": self.komi,
        }


def _vertex(move: Move) -> str:
    if move.is_pass:
        return "pass"
    cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
    return f"{cols[move.point.col - 1]}{move.point.row}"


def final_targets(state: GameState, dead_stones: Iterable[Point] = ()) -> tuple[np.ndarray, float]:
    """Black's view of a finished game: the owner of every point (int8 ``[N*N]`` in the
    encoders' order, +1 black, -1 white, 0 neither: stones and the empty regions they alone
    surround, as the area count has it, after removing ``dead_stones``) and black's area minus
    white's minus komi."""
    board = state.board
    geo = board.geometry
    dead_stones = list(dead_stones)
    owner = area_ownership(board, dead_stones)
    grid = np.zeros(board.num_rows * board.num_cols, dtype=np.int8)
    for idx in geo.on_board:
        point = geo.points[idx]
        grid[board.num_cols * (point.row - 1) + point.col - 1] = {BLACK: 1, WHITE: -1}.get(owner[idx], 0)
    counted = compute_game_result(state, dead_stones)
    return grid, float(counted.b - counted.w - counted.komi)


def movers_aux_targets(
    movers: list[int], counted: tuple[np.ndarray, float] | None, points: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``final_targets`` (Black's view; None: the game was not counted) as each recorded
    position's ownership, score and aux mask, from the view of its player to move (+1 black)."""
    movers_arr = np.array(movers, dtype=np.int8)
    ownership, score = counted if counted is not None else (np.zeros(points, dtype=np.int8), 0.0)
    mask = np.full(len(movers_arr), 1.0 if counted is not None else 0.0, dtype=np.float32)
    return movers_arr[:, None] * ownership[None, :], movers_arr.astype(np.float32) * score, mask


def winner_low_value(values: list[float], movers: list[int], winner: int, start: int, consecutive: int) -> float | None:
    """The lowest resign signal of the winner: the minimum, over its moves from ``start`` on,
    of the highest value among its last ``consecutive`` moves (what the streak rule compares)."""
    if winner == 0:
        return None
    own = [v for i, (v, m) in enumerate(zip(values, movers)) if m == winner and i >= start]
    if len(own) < consecutive:
        return None
    return min(max(own[i - consecutive + 1 : i + 1]) for i in range(consecutive - 1, len(own)))


def calibrate_resign_threshold(winner_lows: list[float], false_positive_rate: float = 0.05) -> float:
    """The thesis' rule: the threshold at which only ``false_positive_rate`` of the games'
    winners would have resigned (the 5th percentile of their lowest values), in value units."""
    if not winner_lows:
        raise ValueError("no games played out to calibrate on")
    return float(np.percentile(np.asarray(winner_lows, dtype=np.float64), 100 * false_positive_rate))


def cleanup_capture(state: GameState, playouts: int) -> Move | None:
    """Instead of a pass, a move that attacks dead opponent stones; None: the pass stands.

    Self-play scores a game by area with every stone alive (Tromp-Taylor), so a group both
    players take for alive counts as alive, even where a count with dead stones removed (GNU
    Go's, the referee's) calls it dead: the value and ownership heads then learn that such groups
    live, and the engine rated a one-eyed group alive until GNU Go captured it. So a player about
    to pass while the playout count (``dlgo.deadstones``) finds dead opponent stones attacks
    them (a liberty of theirs), and the opponent's search answers. Both passes are checked, the
    first one too, so neither side's dead stones outlast the game. The game runner does it
    (``dlgo.game_runner.EndPolicy.cleanup_playouts``); this is its rule, kept here by name.
    """
    return runner_cleanup_capture(state, playouts)


class SelfPlayPlayer:
    """The Zero agent as a self-play player (``dlgo.game_runner.GamePlayer``): a full search
    (noise, a policy target) on a share ``full_search_fraction`` of the moves, a fast one
    otherwise (KataGo's playout cap randomization), temperature 1 for the first moves.

    ``last_full`` and ``statistics`` describe the search of the latest move, for the recording."""

    def __init__(self, agent: ZeroAgent, settings: SelfPlaySettings, rng: np.random.Generator) -> None:
        self.agent = agent
        self.settings = settings
        self.rng = rng
        self.last_full = False
        self.statistics = None
        self._chosen: Move | None = None  # the Gumbel search's own move

    def evaluate(self, state: GameState, index: int) -> float | None:
        s, tree = self.settings, self.agent.tree
        self.last_full = full = bool(self.rng.random() < s.full_search_fraction)
        self._chosen = None
        if full and s.root_search == "gumbel":
            self._chosen = gumbel_search(tree, state, s.full_visits, s.gumbel_considered, self.rng).move
        else:
            tree.search(state, SearchBudget(max_visits=s.full_visits if full else s.fast_visits), self_play=full)
        self.statistics = stats = tree.last_statistics
        return None if stats is None else max(stats.root_value, stats.best_value)

    def select(self, state: GameState, index: int) -> Move | None:
        if self.statistics is None:
            return None  # no search statistics: the game stops here
        if self._chosen is not None:  # drawn already: the Gumbel draw is its exploration
            move = self._chosen
        elif index < self.settings.temperature_limit():
            move = self.agent.tree.sample_move(1.0)
        else:
            move = self.agent.tree.most_visited()
        return move if move is not None else Move.pass_turn()


def play_game(
    agent: ZeroAgent,
    settings: SelfPlaySettings,
    rng: np.random.Generator,
    resign_allowed: bool = True,
    names: tuple[str, str] = ("dlgo-zero", "dlgo-zero"),
) -> SelfPlayGame:
    """Play one self-play game with ``agent`` (its search, in self-play mode on full searches)
    on the game runner (``dlgo.game_runner``); this keeps what self-play records."""
    started = time.monotonic()
    size = settings.board_size
    encoder = get_encoder_by_name("zero", size)
    agent.clear_tree()
    corner = settings.corner_start_fraction > 0 and rng.random() < settings.corner_start_fraction
    komi = settings.game_komi(rng)
    if corner:
        start = corner_start(agent.evaluator, size, komi, rng)
    else:
        start = GameState.new_game(size, komi=komi)
    planes: list[np.ndarray] = []
    policies: list[np.ndarray] = []
    recorded_movers: list[int] = []
    root_values: list[float] = []  # the full searches' Q for the player to move: a second value target
    values: list[float] = []
    movers: list[int] = []
    moves: list[str] = []
    resign_policy = dataclasses.replace(settings.resign_policy(), enabled=resign_allowed)
    resign_start = resign_policy.first_move_for(start)
    player = SelfPlayPlayer(agent, settings, rng)
    visits = 0

    def record(event: MoveEvent) -> None:
        nonlocal visits
        stats = player.statistics
        mover = 1 if event.mover is Player.black else -1
        visits += stats.new_visits
        # a full search's target is a position to learn from, unless a cleanup capture
        # replaced the pass it chose
        if player.last_full and not event.cleanup:
            planes.append(encoder.encode(event.state))
            policies.append(stats.training_target())
            recorded_movers.append(mover)
            root_values.append(stats.root_value)
        values.append(event.signal)
        movers.append(mover)
        if not event.move.is_resign:
            moves.append(_vertex(event.move))

    end = EndPolicy(resign=resign_policy, cleanup_playouts=settings.cleanup_playouts)
    outcome = run_game(player, player, start, max_moves=settings.move_limit(), end=end, on_move=record)
    state = outcome.final_state
    resigner = None if outcome.resigned is None else (1 if outcome.resigned is Player.black else -1)
    first_crossing = None if outcome.first_lost is None else (1 if outcome.first_lost is Player.black else -1)
    full_searches = len(planes)
    cleanup_moves = outcome.cleanup_moves
    w = outcome.winner
    winner = 0 if w is None else (1 if w is Player.black else -1)
    result = outcome.result_text
    rewards = np.array([winner * m for m in recorded_movers], dtype=np.float32)
    rows = encoder.shape()
    counted = final_targets(state) if resigner is None and state.is_over() else None  # resigned/capped: none
    ownership, score, mask = movers_aux_targets(recorded_movers, counted, encoder.num_points())
    experience = ZeroExperienceBuffer(
        np.array(planes, dtype=np.float16).reshape(-1, *rows),
        np.array(policies, dtype=np.float32).reshape(-1, encoder.num_moves()),
        rewards,
        ownership=ownership,
        score=score,
        aux_mask=mask,
        root_values=np.array(root_values, dtype=np.float32),
    )
    low = None
    if not resign_allowed:
        low = winner_low_value(values, movers, winner, resign_start, settings.resign_consecutive)
    sgf = write_game(state, black_name=names[0], white_name=names[1], result=result, komi=komi)
    return SelfPlayGame(
        experience=experience,
        moves=moves,
        winner=winner,
        result=result,
        resigned=resigner is not None,
        resign_allowed=resign_allowed,
        winner_low=low,
        would_resign=first_crossing is not None,
        false_resign=first_crossing is not None and first_crossing == winner,
        full_searches=full_searches,
        visits=visits,
        seconds=time.monotonic() - started,
        sgf=sgf,
        cleanup_moves=cleanup_moves,
        values=values,
        corner_start=corner,
        komi=komi,
    )
