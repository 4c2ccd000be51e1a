"""Reinforcement learning from self-play (book chapters 9-12), with the book's names.

- ``dlgo.rl.experience``: ``ExperienceCollector``, ``ExperienceBuffer``, ``combine_experience``,
  ``load_experience``; HDF5 files in the book's layout, read in chunks (book 9.4);
- ``dlgo.rl.policy``: ``PolicyAgent`` and policy-gradient training (REINFORCE, book 10);
- ``dlgo.rl.qlearning``: ``QAgent``, the two-input action-value network, epsilon-greedy (book 11);
- ``dlgo.rl.actor_critic``: ``ACAgent``, policy and value heads, advantages (book 12);
- ``dlgo.rl.value``: ``ValueAgent``, a tanh value network and one-ply lookahead (book 13.3's net);
- ``dlgo.rl.networks``: their networks on the book's trunks; ``dlgo.rl.agents``: make and load;
- ``dlgo.rl.simulate``: one game between two agents; ``dlgo.rl.selfplay``: many, in worker
  processes, resumable; ``dlgo.rl.evaluate``: matches with a binomial test and gating (book 10.3);
- ``dlgo.rl.loop``: the whole cycle for many iterations, resumable (``loop_config``: its TOML
  file; ``loop_report``: its figure and the shipped model's card).

Command line: ``python -m dlgo.rl init | selfplay | train | evaluate | loop | plot | ship`` (docs/rl.md).
Importing this package loads neither Keras nor TensorFlow.
"""

from __future__ import annotations

from dlgo.lazy import lazy_names

_HOME = {
    "ExperienceCollector": "experience",
    "ExperienceBuffer": "experience",
    "combine_experience": "experience",
    "load_experience": "experience",
    "iter_experience": "experience",
    "PolicyAgent": "policy",
    "QAgent": "qlearning",
    "ACAgent": "actor_critic",
    "ValueAgent": "value",
    "new_agent": "agents",
    "load_rl_agent": "agents",
}

__all__ = list(_HOME)


__getattr__ = lazy_names(__name__, {name: f".{module}" for name, module in _HOME.items()})
