"""Training networks: ``python -m dlgo.train supervised ...`` (book chapter 7).

- ``supervised``: ``SupervisedConfig`` and ``train_supervised`` (checkpoints, resume, validation
  on held-out games, CSV log and plot, learning-rate schedule).
- ``optimizers``: how a network is compiled (its networks come from ``dlgo.networks``);
  ``schedule``: learning-rate schedules; ``plot``: the curves.

Importing this package does not import Keras; training does.
"""

from __future__ import annotations

from dlgo.train.supervised import SupervisedConfig, TrainingError, train_supervised

__all__ = ["SupervisedConfig", "TrainingError", "train_supervised"]
