"""Monte Carlo tree search with random rollouts (book chapter 4)."""

from dlgo.mcts.mcts import MCTSAgent, MCTSNode

__all__ = ["MCTSAgent", "MCTSNode"]
