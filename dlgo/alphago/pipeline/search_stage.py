"""The AlphaGo search on the trained networks (book 13.4), and its matches.

The engine plays ``configs/engine/alphago-9x9.toml`` (agent ``alphago``: ``AlphaGoMCTS`` with
PUCT over the priors of the supervised policy, as AlphaGo did, leaf values
``lambda * value + (1 - lambda) * rollout`` with rollouts by the trained fast policy), its three
model keys pointed at this run's files. Matches go through the project's duel library
(``dlgo.match``: GTP engines in worker processes, colours alternating, SGFs, the summary with
the binomial p-value; resumable), so nothing of the match code is copied here:

- ``vs-sl/``: against the supervised policy alone (agent ``pg`` playing ``sl-policy.keras``);
- ``vs-zero/``: against the Zero search (``zero_config``) at equal time per move, when
  ``zero_games`` > 0.
"""

from __future__ import annotations

from pathlib import Path

from dlgo.alphago.pipeline.config import PipelineConfig
from dlgo.alphago.pipeline.stages import Stage

__all__ = ["run_search", "alphago_sets"]

PG_CONFIG = "configs/engine/pg-9x9.toml"


def alphago_sets(policy: str, value: str, rollout: str, rounds: int, lambda_value: float) -> tuple[str, ...]:
    """``--set`` overrides that point the alphago engine config at these networks."""
    return (
        f"alphago.policy_model={Path(policy).resolve()}",
        f"alphago.value_model={Path(value).resolve()}",
        f"alphago.rollout_model={Path(rollout).resolve()}",
        f"alphago.rounds={rounds}",
        f"alphago.lambda_value={lambda_value}",
    )


def _match(config: PipelineConfig, out: Path, engine, opponent, games: int, progress: bool) -> dict:
    from dlgo.match import GameRules, MatchSettings, run_match

    rules = GameRules(size=config.board_size, komi=config.komi, seconds_per_move=config.search.seconds_per_move)
    settings = MatchSettings(engine, opponent, games, rules, jobs=config.workers, gnugo_check=False)
    result = run_match(settings, out, progress=progress)
    if result.interrupted:
        raise KeyboardInterrupt
    s = result.summary
    return {key: s.get(key) for key in ("games", "engine_wins", "opponent_wins", "win_rate", "p_value")}


def run_search(config: PipelineConfig, networks: dict[str, str], progress: bool = True) -> dict[str, str]:
    """Matches of the AlphaGo search on ``networks`` (keys sl, rl, value, rollout)."""
    from dlgo.match.players import player_from_text

    s = config.search
    if s.prior not in ("sl", "rl"):
        raise ValueError("search.prior must be 'sl' or 'rl'")
    inputs = {key: Path(path) for key, path in networks.items()}
    inputs["engine_config"] = Path(s.engine_config)
    stage = Stage(config, "search", inputs)
    if (outputs := stage.done()) is not None:
        return outputs
    stage.begin()
    sets = alphago_sets(networks[s.prior], networks["value"], networks["rollout"], s.rounds, s.lambda_value)
    size = (f"engine.board_size={config.board_size}",)
    alphago = player_from_text(s.engine_config, label="alphago", sets=sets + size)
    metrics = {}
    if s.games:
        sl = player_from_text(PG_CONFIG, label="sl-policy", sets=(f"pg.model={Path(networks['sl']).resolve()}",) + size)
        metrics["vs_sl_policy"] = _match(config, stage.dir / "vs-sl", alphago, sl, s.games, progress)
    if s.zero_games:
        equal = player_from_text(s.engine_config, label="alphago", sets=sets[:3] + ("alphago.rounds=100000",) + size)
        zero = player_from_text(s.zero_config, label="zero", sets=("zero.rounds=100000",) + size)
        metrics["vs_zero_equal_time"] = _match(config, stage.dir / "vs-zero", equal, zero, s.zero_games, progress)
    return stage.finish({}, metrics)
