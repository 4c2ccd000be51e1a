"""One game between two agents in this process (book 9.4.2 ``simulate_game``), as a match record.

The game runner plays it (``dlgo.game_runner``): it ends on two passes (or a resignation), or
at ``max_moves``, and is counted by area with the game's komi (book 9.4.2 uses 7.5). With
``collectors`` (one per colour), each agent's decisions are recorded and given +1 if its colour
won, -1 if it lost (0 for a drawn game with an integer komi). The result is a
``dlgo.match.record.GameRecord``, the record every match of the project writes, so
``dlgo.match.summary`` and its SGF writer take these games as they take GTP duels.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Mapping

from dlgo.agent.base import Agent
from dlgo.game_runner import AgentPlayer, MoveEvent, play_game
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.match.record import GameRecord, winner_result
from dlgo.rl.experience import ExperienceCollector
from dlgo.utils import move_to_text

__all__ = ["simulate_game", "reward_for"]


def reward_for(player: Player, winner: Player | None) -> int:
    return 0 if winner is None else (1 if player == winner else -1)


class _Collecting(AgentPlayer):
    """An agent that records its decisions into its colour's collector: the same agent may
    play both colours, so the collector is switched before each of its moves."""

    def __init__(self, agent: Agent, collectors: Mapping[Player, ExperienceCollector] | None, colour: Player) -> None:
        super().__init__(agent)
        self.collector = None if collectors is None else collectors[colour]

    def select(self, state: GameState, index: int) -> Move | None:
        if self.collector is not None and hasattr(self.agent, "set_collector"):
            self.agent.set_collector(self.collector)
        return self.agent.select_move(state)


def simulate_game(
    black: Agent,
    white: Agent,
    board_size: int,
    *,
    komi: float = 7.5,
    collectors: Mapping[Player, ExperienceCollector] | None = None,
    max_moves: int | None = None,
    index: int = 0,
    labels: tuple[str, str] = ("black", "white"),
) -> GameRecord:
    """Play ``black`` against ``white``; the same agent may play both colours (self-play): its
    collector is switched to the colour to move before each move."""
    limit = max_moves if max_moves is not None else 3 * board_size * board_size
    if collectors is not None:
        for collector in collectors.values():
            collector.begin_episode()
    started = datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()
    began = time.monotonic()
    moves: list[list[str]] = []
    times: list[float] = []

    def record(event: MoveEvent) -> None:
        if not event.move.is_resign:  # the record lists moves played; the resignation is its result
            moves.append(["B" if event.mover == Player.black else "W", move_to_text(event.move)])
            times.append(round(event.seconds, 4))

    players = {
        colour: _Collecting(agent, collectors, colour)
        for colour, agent in ((Player.black, black), (Player.white, white))
    }
    outcome = play_game(
        players[Player.black], players[Player.white], GameState.new_game(board_size, komi=komi),
        max_moves=limit, on_move=record,
    )  # fmt: skip
    winner = outcome.winner
    reason = "move-limit" if outcome.reason == "stopped" else outcome.reason
    if outcome.resigned is not None:
        result = winner_result("B" if winner == Player.black else "W", "resign")
    else:
        result = outcome.result_text
    if collectors is not None:
        for player, collector in collectors.items():
            collector.complete_episode(reward=reward_for(player, winner))
    return GameRecord(
        index=index,
        black=labels[0],
        white=labels[1],
        size=board_size,
        komi=komi,
        moves=moves,
        times=times,
        winner=None if winner is None else ("B" if winner == Player.black else "W"),
        result=result,
        reason=reason,
        started=started,
        duration=round(time.monotonic() - began, 3),
    )
