"""One game runner: every game the library plays in-process goes through :func:`play_game`.

    outcome = play_game(black, white, GameState.new_game(9), max_moves=162,
                        end=EndPolicy(resign=ResignPolicy(threshold=-0.9)), on_move=record)
    outcome.winner, outcome.result_text, outcome.final_state

As KataGo's ``play.cpp`` is one loop for self-play, gating and matches, this is one loop for
Zero self-play and gating (``dlgo.zero``), the search A/B (``dlgo.zero.search_ab``), RL's
simulated games (``dlgo.rl.simulate``) and the rules benchmark (``dlgo.bench``). What a game is
(moves until two passes, a resignation or the move cap, then the count) is decided here, by the
engine's own rules: :class:`dlgo.agent.termination.ResignPolicy` for resigning,
:func:`dlgo.agent.termination.cleanup_move` with the playout count (``dlgo.deadstones``) for
dead stones left when a player would pass, and the area count (every stone alive, or with dead
stones removed). So a change to those rules reaches every loop, and the network that ships
(gating) is chosen by the rules it will play by. Each loop keeps only what differs: what it
records (``on_move``), how its players search (temperature, playout caps: the players), and
what it returns.

A player moves in two steps, because the resign rule sits between them: :meth:`GamePlayer.
evaluate` searches and gives the resign signal, the runner's rule decides whether the player
resigns, and only then :meth:`GamePlayer.select` draws the move. A draw that is never played
would move a random generator the next game still uses (self-play's temperature sampling).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from dlgo.agent.termination import ResignPolicy, cleanup_move
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.scoring import GameResult, compute_game_result

if TYPE_CHECKING:
    from collections.abc import Callable

    from dlgo.agent.base import Agent

__all__ = ["GamePlayer", "AgentPlayer", "EndPolicy", "MoveEvent", "GameOutcome", "play_game", "cleanup_capture"]


class GamePlayer(Protocol):
    """What the runner asks of a player: a search, then a move from it."""

    def evaluate(self, state: GameState, index: int) -> float | None:
        """Think about ``state`` (the ``index``-th move of this game); the resign signal for the
        player to move in the units of the game's :class:`ResignPolicy`, None for none."""
        ...

    def select(self, state: GameState, index: int) -> Move | None:
        """The move after :meth:`evaluate` (a resignation is honoured as one); None: the player has
        nothing to play and the game stops where it is."""
        ...


class AgentPlayer:
    """Any ``dlgo.agent.base.Agent`` as a player: no resign signal, ``select_move`` plays (the
    agent's own resign and pass rules apply inside it)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def evaluate(self, state: GameState, index: int) -> float | None:
        return None

    def select(self, state: GameState, index: int) -> Move | None:
        return self.agent.select_move(state)


@dataclass(frozen=True)
class EndPolicy:
    """How a game ends, the engine's rules configured per loop.

    ``resign``: the resign rule on the players' signals (None: none; ``enabled=False``: the
    game is played out, yet the outcome still says who crossed the threshold first, which is
    how self-play measures false resignations). ``cleanup_playouts`` > 0: a player about to pass
    while the playout count sees dead opponent stones attacks them instead (at most
    ``cleanup_limit`` times a game, None: a quarter of the points), so no dead stone outlasts a
    game counted with every stone alive. ``count_playouts``: 0 counts by area with every stone
    alive (Tromp-Taylor, what the search scores and self-play's targets need); > 0 takes dead
    stones off first (``dlgo.deadstones.final_result``, the referee's count).
    """

    resign: ResignPolicy | None = None
    cleanup_playouts: int = 0
    cleanup_limit: int | None = None
    count_playouts: int = 0

    def cleanups_for(self, state: GameState) -> int:
        if not self.cleanup_playouts:
            return 0
        if self.cleanup_limit is not None:
            return self.cleanup_limit
        return state.board.num_rows * state.board.num_cols // 4


@dataclass(frozen=True)
class MoveEvent:
    """One decision, as ``on_move`` sees it before the move is played.

    ``move``: what is played (``Move.resign()`` for a resignation); ``cleanup``: it replaced the
    player's pass to capture dead stones; ``lost``: the resign rule called the game lost for the
    mover (whether or not resigning is enabled); ``seconds``: the player's thinking time."""

    index: int
    state: GameState
    mover: Player
    signal: float | None
    move: Move
    cleanup: bool = False
    lost: bool = False
    seconds: float = 0.0


@dataclass
class GameOutcome:
    """A finished game: how it ended and its count (computed on first use: a benchmark that
    only times games never counts them)."""

    start: GameState
    final_state: GameState
    moves: list[Move] = field(default_factory=list)  # played, the resignation not among them
    resigned: Player | None = None
    first_lost: Player | None = None  # the first player the resign rule called lost
    stopped: bool = False  # a player had no move (GamePlayer.select gave None)
    cleanup_moves: int = 0
    count_playouts: int = 0

    @property
    def reason(self) -> str:
        """``resign``, ``score`` (two passes), ``move-limit`` or ``stopped``."""
        if self.resigned is not None:
            return "resign"
        if self.final_state.is_over():
            return "score"
        return "stopped" if self.stopped else "move-limit"

    @cached_property
    def counted(self) -> GameResult | None:
        """The area count of the final position; None for a resigned game."""
        if self.resigned is not None:
            return None
        if self.count_playouts > 0:
            from dlgo.deadstones import final_result  # compiled playouts: loaded on first use

            return final_result(self.final_state, self.count_playouts)
        return compute_game_result(self.final_state)

    @property
    def winner(self) -> Player | None:
        """None: a draw."""
        if self.resigned is not None:
            return self.resigned.other
        return self.counted.winner

    @property
    def result_text(self) -> str:
        """SGF's result: ``B+R``, ``W+3.5``, ``0`` for a draw."""
        winner = self.winner
        if winner is None:
            return "0"
        letter = "B" if winner is Player.black else "W"
        return f"{letter}+R" if self.resigned is not None else f"{letter}+{self.counted.winning_margin:g}"


def cleanup_capture(state: GameState, playouts: int) -> Move | None:
    """Instead of a pass, a move that attacks dead opponent stones (a liberty of theirs, the
    engine's ``cleanup_move`` on the playout count); None: no dead stones, the pass stands."""
    from dlgo.deadstones import count  # compiled playouts: loaded on first use

    decision = cleanup_move(state, [], count(state, playouts))
    return None if decision is None else decision.move


def play_game(
    black: GamePlayer,
    white: GamePlayer,
    start: GameState,
    *,
    max_moves: int | None,
    end: EndPolicy = EndPolicy(),
    on_move: Callable[[MoveEvent], None] | None = None,
) -> GameOutcome:
    """Play from ``start`` until two passes, a resignation or ``max_moves`` moves of this game
    (None: no cap). ``on_move`` sees every decision, the resignation too, before it is played.
    The same player object may play both colours (self-play)."""
    players = {Player.black: black, Player.white: white}
    policy = end.resign
    resign_start = policy.first_move_for(start) if policy is not None else 0
    # each player's resign signals, the latest first; None before the rule applies, so a run
    # of lost moves only counts from there
    own_signals: dict[Player, list[float | None]] = {Player.black: [], Player.white: []}
    cleanups_left = end.cleanups_for(start)
    outcome = GameOutcome(start, start, count_playouts=end.count_playouts)
    state = start
    index = 0
    while not state.is_over() and (max_moves is None or index < max_moves):
        mover = state.next_player
        player = players[mover]
        tick = time.monotonic()
        signal = player.evaluate(state, index)
        lost = False
        if policy is not None:
            lost = policy.is_lost(state, index, signal, own_signals[mover])
            own_signals[mover].insert(0, signal if index >= resign_start else None)
            if lost and outcome.first_lost is None:
                outcome.first_lost = mover
        if lost and policy.enabled:
            move: Move | None = Move.resign()
        else:
            move = player.select(state, index)
        if move is None:
            outcome.stopped = True
            break
        cleanup = False
        if move.is_pass and cleanups_left > 0:
            capture = cleanup_capture(state, end.cleanup_playouts)
            if capture is not None:
                move, cleanup, cleanups_left = capture, True, cleanups_left - 1
                outcome.cleanup_moves += 1
        if on_move is not None:
            on_move(MoveEvent(index, state, mover, signal, move, cleanup, lost, time.monotonic() - tick))
        if move.is_resign:
            outcome.resigned = mover
            break
        outcome.moves.append(move)
        state = state.apply_move(move)
        index += 1
    outcome.final_state = state
    return outcome
