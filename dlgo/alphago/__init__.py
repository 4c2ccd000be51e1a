"""AlphaGo-style search (book chapter 13): policy priors, value network and fast rollouts.

- ``rollout``: compiled rollouts with a capture/atari-escape preference.
- ``evaluator``: ``AlphaGoEvaluator``, leaf value ``lambda * value_net + (1 - lambda) * rollout``.
- ``agent``: ``AlphaGoMCTS``, the SearchAgent (the PUCT search of ``dlgo.search``).

Importing this package loads no Keras or TensorFlow; ``AlphaGoMCTS.from_models`` does.
"""

from dlgo.alphago.agent import AlphaGoMCTS
from dlgo.alphago.evaluator import AlphaGoEvaluator
from dlgo.alphago.rollout import rollout_value

__all__ = ["AlphaGoMCTS", "AlphaGoEvaluator", "rollout_value"]
