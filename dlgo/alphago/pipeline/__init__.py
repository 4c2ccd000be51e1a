"""The AlphaGo training pipeline (book chapter 13), one command per stage and one for all:

    python -m dlgo.alphago.pipeline supervised|rollout|rl|value|search|all --config configs/train/alphago-9x9.toml

1. ``supervised`` (book 13.1): expert games, then the 13-layer policy network (``stages``);
2. ``rollout`` (book 13.2): the fast linear rollout policy on the same games (``stages``);
3. ``rl`` (book 13.3): policy gradient against a pool of earlier versions (``rl_stage``);
4. ``value`` (book 13.3): one position per RL self-play game, tanh value network (``value_stage``);
5. ``search`` (book 13.4): the AlphaGo search on the trained networks, matches (``search_stage``).

Every stage is resumable and skipped when its outputs exist for the same inputs and settings
(``stages.Stage``). Board size is a setting of the config; docs/rl.md has the run times.
"""

from dlgo.alphago.pipeline.config import PipelineConfig

__all__ = ["PipelineConfig", "STAGES"]

STAGES = ("supervised", "rollout", "rl", "value", "search")
