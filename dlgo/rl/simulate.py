"""One game between two agents in this process (book 9.4.2 ``simulate_game``), as a match record.

The game ends on two passes (or a resignation), or at ``max_moves``, and is counted by area
with the game's komi (book 9.4.2 uses 7.5). With ``collectors`` (one per colour), each agent's
decisions are recorded and given +1 if its colour won, -1 if it lost (0 for a drawn game with an
integer komi). The result is a ``dlgo.match.record.GameRecord``, the record every match of the
project writes, so ``dlgo.match.summary`` and its SGF writer take these games as they take GTP
duels.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Mapping

from dlgo.agent.base import Agent
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player
from dlgo.match.record import GameRecord, winner_result
from dlgo.rl.experience import ExperienceCollector
from dlgo.scoring import compute_game_result
from dlgo.utils import move_to_text

__all__ = ["simulate_game", "reward_for"]


def reward_for(player: Player, winner: Player | None) -> int:
    return 0 if winner is None else (1 if player == winner else -1)


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
    agents = {Player.black: black, Player.white: white}
    limit = max_moves if max_moves is not None else 3 * board_size * board_size
    if collectors is not None:
        for collector in collectors.values():
            collector.begin_episode()
    started = datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()
    began = time.monotonic()
    state = GameState.new_game(board_size, komi=komi)
    moves: list[list[str]] = []
    times: list[float] = []
    resigned: Player | None = None
    while not state.is_over() and len(moves) < limit:
        player = state.next_player
        agent = agents[player]
        if collectors is not None and hasattr(agent, "set_collector"):
            agent.set_collector(collectors[player])
        tick = time.monotonic()
        move: Move = agent.select_move(state)
        times.append(round(time.monotonic() - tick, 4))
        moves.append(["B" if player == Player.black else "W", move_to_text(move)])
        if move.is_resign:
            resigned = player
            break
        state = state.apply_move(move)
    if resigned is not None:
        winner: Player | None = resigned.other
        reason = "resign"
        colour = "B" if winner == Player.black else "W"
        result = winner_result(colour, "resign")
        moves.pop()  # the record lists moves played; the resignation is its result
        times.pop()
    else:
        counted = compute_game_result(state)
        winner = counted.winner
        reason = "score" if state.is_over() else "move-limit"
        result = "0" if winner is None else f"{'B' if winner == Player.black else 'W'}+{counted.winning_margin:g}"
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
