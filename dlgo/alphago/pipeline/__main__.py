"""``python -m dlgo.alphago.pipeline STAGE --config FILE``: run one stage of the AlphaGo pipeline
(its earlier stages first, each skipped when done) or ``all`` of them (book chapter 13)."""

from __future__ import annotations

import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from dlgo.alphago.pipeline import STAGES, PipelineConfig  # noqa: E402
from dlgo.alphago.pipeline.stages import StageIncomplete  # noqa: E402
from dlgo.extras import require_extra


def run(config: PipelineConfig, target: str, progress: bool = True) -> dict[str, str]:
    """Run the stages up to ``target`` (``all``: every one); the networks made so far."""
    from dlgo.alphago.pipeline.stages import run_rollout, run_supervised

    last = len(STAGES) if target == "all" else STAGES.index(target) + 1
    wanted = STAGES[:last]
    networks: dict[str, str] = {}
    networks["sl"] = run_supervised(config, progress)["policy"]
    if "rollout" in wanted:
        networks["rollout"] = run_rollout(config, progress)["rollout"]
    if "rl" in wanted:
        from dlgo.alphago.pipeline.rl_stage import run_rl

        networks["rl"] = run_rl(config, networks["sl"], progress)["policy"]
    if "value" in wanted:
        from dlgo.alphago.pipeline.value_stage import run_value

        networks["value"] = run_value(config, networks["rl"], progress)["value"]
    if "search" in wanted:
        from dlgo.alphago.pipeline.search_stage import run_search

        run_search(config, networks, progress)
    return networks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.alphago.pipeline", description=__doc__.split("\n")[0])
    parser.add_argument("stage", choices=[*STAGES, "all"], help="the stage to run (its earlier stages first)")
    parser.add_argument("--config", required=True, help="pipeline config, e.g. configs/train/alphago-9x9.toml")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    require_extra("train", "python -m dlgo.alphago.pipeline")
    try:
        config = PipelineConfig.load(args.config)
        networks = run(config, args.stage, progress=not args.quiet)
    except (StageIncomplete, ValueError, FileNotFoundError) as e:
        print(f"pipeline: {e}", file=sys.stderr)
        return 2
    summary = {"networks": networks}
    for name in STAGES:
        meta = config.root / name / "stage.json"
        if meta.exists():
            data = json.loads(meta.read_text(encoding="utf-8"))
            summary[name] = {"done": data.get("done"), "seconds": data.get("seconds"), **data.get("metrics", {})}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
