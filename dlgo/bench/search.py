"""Search benchmark: visits per second next to the network's own batched throughput, in one run.

    python -m dlgo.bench search --agent zero --size 9       # the network default.toml plays 9x9 with
    python -m dlgo.bench search --agent zero --size 19      # weights/zero-19x19.keras
    python -m dlgo.bench search --agent zero --model weights/zero-9x9.keras --size 9 --runtime int8
    python -m dlgo.bench search --agent zero --build zero --blocks 6 --filters 64 --size 9
    python -m dlgo.bench search --agent alphago --build alphago --filters 64 --size 9

The search runs on the **default runtime**: ``--runtime``, else the ``zero.runtime`` the default
engine config gives this board size (``configs/engine/default.toml``); its network and batch size
are the config's too unless ``--model``/``--build`` and ``--batch-size`` say otherwise. In one run it measures

- ``network``: the runners alone (ONNX Runtime) on encoded positions at the search's batch size,
  both the fp32 model and (for a model file) its int8 model, whatever the default is;
- ``evaluator``: ``BatchEvaluator.evaluate`` at that batch size with the cache cleared before
  every call (encoding and symmetries included);
- ``search``: visits per second of a fresh search (empty cache) from the empty board and from a
  middle-game position, ``--seconds`` each, early stop off.

Each position runs in 10 slices; before each slice every network is timed for a quarter second,
so all figures see the same machine even when other work comes and goes. Per position:
``ratio_to_network`` = visits/s over the default runtime's positions/s (the search keeps its own
network busy when it is close to 1), ``ratio_to_fp32_network`` = visits/s over the fp32
network's positions/s (what quantization and the search together gain over the plain network).
Visits that end in a finished game (scored without the network) and cache hits can push a ratio
above 1, so ``evaluation_ratio_to_network`` (positions sent to the evaluator per second, over the
default network) is reported too; ``ratio_to_network_min`` is the worst of both figures over both
positions, ``ratio_to_fp32_network_min`` the worst ``ratio_to_fp32_network``. The README lists
every key. For ``alphago`` the "network" is the policy plus the value network, and the evaluator
adds the rollouts (fp32 only).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from dlgo.bench.nn import sample_states, seconds_per_call
from dlgo.goboard import GameState
from dlgo.utils import move_to_text

__all__ = ["bench_search", "default_zero", "default_runtime", "cpu_facts", "NETWORK_RATIO_GOAL", "FP32_RATIO_GOALS"]

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = ROOT / "configs" / "engine" / "default.toml"
NETWORK_RATIO_GOAL = 0.9  # the search at 0.9 of its own network's throughput
FP32_RATIO_GOALS = {9: 2.5, 19: 2.0}  # search over the fp32 network: what int8 and the search must gain


def _zero_evaluator(model_path, build, blocks, filters, size, backend, threads, seed, runtime):
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import BatchEvaluator, load_model

    if model_path:
        loaded = load_model(model_path, heads=["policy", "value"])
        source = {"model": model_path, "network": loaded.model.name, "parameters": int(loaded.model.count_params())}
        ev = BatchEvaluator(
            loaded, backend=backend, symmetry_mode="random", seed=seed, threads=threads, runtime=runtime
        )
        # The networks timed next to the search: fp32 and int8 whichever the default is.
        runners = {runtime: ev.runner}
        for rt in ("fp32", "int8"):
            if rt != runtime:
                runners[rt] = BatchEvaluator(loaded, backend=backend, threads=threads, runtime=rt).runner
    else:
        from dlgo.networks import build_network

        encoder = get_encoder_by_name("zero", size)
        model = build_network("zero", encoder, blocks=blocks, filters=filters)
        source = {"build": build or "zero", "blocks": blocks, "filters": filters, "weights": "untrained"}
        source["parameters"] = int(model.count_params())
        ev = BatchEvaluator(model, encoder, backend=backend, symmetry_mode="random", seed=seed, threads=threads)
        runners = {"fp32": ev.runner}  # no model file: no int8 model
    return ev, [ev], source, runners


def _alphago_evaluator(policy_path, value_path, filters, size, backend, threads, seed):
    from dlgo.alphago import AlphaGoEvaluator
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import BatchEvaluator, load_model

    if policy_path:
        policy = BatchEvaluator(load_model(policy_path, heads=["policy"]), backend=backend, threads=threads)
        value = BatchEvaluator(load_model(value_path, heads=["value"]), backend=backend, threads=threads)
        source = {"policy_model": policy_path, "value_model": value_path}
    else:
        from dlgo.networks import build_network

        enc_p = get_encoder_by_name("alphago", size)
        enc_v = get_encoder_by_name("alphago_value", size)
        policy = BatchEvaluator(
            build_network("alphago", enc_p, filters=filters),
            enc_p,
            backend=backend,
            symmetry_mode="random",
            threads=threads,
        )
        value = BatchEvaluator(
            build_network("alphago-value", enc_v, filters=filters),
            enc_v,
            backend=backend,
            symmetry_mode="random",
            threads=threads,
        )
        source = {"build": "alphago", "filters": filters, "weights": "untrained"}
    return AlphaGoEvaluator(policy, value), [policy, value], source


def _clear(evaluators) -> None:
    for ev in evaluators:
        ev.clear_cache()


def _midgame(size: int, seed: int) -> GameState:
    """A position about a third into a seeded random game."""
    import random

    rng = random.Random(seed)
    state = GameState.new_game(size)
    for _ in range(size * size // 3):
        moves = [m for m in state.legal_moves() if m.is_play]
        state = state.apply_move(rng.choice(moves))
    return state


def default_zero(size: int, config: str | os.PathLike | None = None) -> dict[str, Any]:
    """What the default engine config plays ``size`` with (``[size.N.zero]`` over ``[zero]``):
    ``model`` (a path resolved from the config's folder; "" for none), ``runtime`` and
    ``batch_size``."""
    from dlgo.agent_registry import zero_params
    from dlgo.tomlfile import read_toml

    path = Path(config or DEFAULT_CONFIG)
    params = zero_params(read_toml(path), size)
    model = str(params.get("model") or "")
    return {
        "model": str((path.parent / model).resolve()) if model else "",
        "runtime": str(params["runtime"]),
        "batch_size": int(params["batch_size"]),
    }


def default_runtime(size: int, config: str | os.PathLike | None = None) -> str:
    """The Zero runtime the default engine config plays ``size`` with (``[size.N.zero]`` over ``[zero]``)."""
    return str(default_zero(size, config)["runtime"])


def bench_search(
    agent: str = "zero",
    model_path: str | None = None,
    build: str | None = None,
    blocks: int = 6,
    filters: int = 64,
    size: int = 9,
    batch_size: int | None = None,
    seconds: float = 10.0,
    backend: str = "auto",
    threads: int | None = None,
    seed: int = 1,
    value_model: str | None = None,
    pipeline: bool = True,
    slices: int = 10,
    runtime: str | None = None,
    tree: str = "compiled",
) -> dict[str, Any]:
    from dlgo.agent_registry import build_agent
    from dlgo.search import SearchBudget

    t0 = time.perf_counter()
    if agent == "zero":
        played = default_zero(size)  # the network, runtime and batch the engine plays this size with
        if not model_path and not build:
            model_path = played["model"] or str(ROOT / "weights" / f"zero-{size}x{size}.keras")
        runtime = runtime or played["runtime"]
        batch_size = batch_size or played["batch_size"]
        evaluator, networks, source, runners = _zero_evaluator(
            model_path, build, blocks, filters, size, backend, threads, seed, runtime
        )
    elif agent == "alphago":
        runtime = "fp32"
        evaluator, networks, source = _alphago_evaluator(model_path, value_model, filters, size, backend, threads, seed)
        runners = {"fp32": None}  # the policy and value networks together
    else:
        raise ValueError(f"unknown agent {agent!r}: zero or alphago")
    batch_size = batch_size or 16
    setup_s = time.perf_counter() - t0

    states = sample_states(size, batch_size, seed)
    encoded = [(ev.runner, ev.encoder_for(size).encode_batch(states)) for ev in networks]

    def network_call(runner) -> None:
        if runner is None:
            for own, x in encoded:
                own(x)
        else:
            runner(encoded[0][1])

    def evaluator_call() -> None:
        _clear(networks)
        evaluator.evaluate(states)

    evaluator_s = seconds_per_call(evaluator_call, min(2.0, seconds / 4))

    # Both searches run as the Zero agent's PUCT on this evaluator, with AlphaGo's c_u for alphago.
    exploration = 5.0 if agent == "alphago" else 2.0
    params = {"exploration": exploration, "batch_size": batch_size, "reuse_tree": True, "seed": seed, "tree": tree}
    search_agent = build_agent("zero", params, size, evaluator=evaluator, early_stop=False, pipeline=pipeline)
    search_agent.search(GameState.new_game(size), SearchBudget(max_visits=2 * batch_size))  # warm-up
    for runner in runners.values():
        network_call(runner)
    out: dict[str, Any] = {
        "benchmark": "search",
        "agent": agent,
        **source,
        "board_size": size,
        "batch_size": batch_size,
        "pipeline": pipeline,
        "tree": type(search_agent.tree).__name__,
        "runtime": runtime,
        "runner": networks[0].runner.name,
        "runners": {rt: (r.name if r is not None else networks[0].runner.name) for rt, r in runners.items()},
        "method": f"{slices} slices of network timing and search, interleaved",
        "evaluator": {
            "ms_per_batch": round(evaluator_s * 1e3, 3),
            "positions_per_second": round(batch_size / evaluator_s, 1),
            "includes": "encoding, symmetries" + (", rollouts" if agent == "alphago" else ""),
        },
        "search": {},
    }
    for label, position in (("empty_board", GameState.new_game(size)), ("midgame", _midgame(size, seed))):
        out["search"][label] = _search_position(
            search_agent, position, networks, runners, runtime, network_call, seconds, slices, batch_size, evaluator_s
        )
    rows = out["search"].values()
    worst = min(min(v["ratio_to_network"], v["evaluation_ratio_to_network"]) for v in rows)
    out["ratio_to_network_min"] = worst
    out["ratio_to_fp32_network_min"] = min(v["ratio_to_fp32_network"] for v in rows)
    out["within_70_percent"] = worst >= 0.7
    fp32_goal = FP32_RATIO_GOALS.get(size)
    out["goals"] = {
        "ratio_to_network": NETWORK_RATIO_GOAL,
        "ratio_to_network_met": worst >= NETWORK_RATIO_GOAL,
        "ratio_to_fp32_network": fp32_goal,
        "ratio_to_fp32_network_met": None if fp32_goal is None else out["ratio_to_fp32_network_min"] >= fp32_goal,
    }
    out["setup_s"] = round(setup_s, 2)
    out["cpu"] = cpu_facts()
    return out


_SPEED_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8", "amx_tile")


def cpu_facts() -> dict[str, Any]:
    """The CPU model, the flags that decide int8 / bf16 speed, and the load average (Linux)."""
    facts: dict[str, Any] = {"model": None, "flags": [], "load_average": None}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and facts["model"] is None:
                    facts["model"] = value.strip()
                elif key.strip() == "flags":
                    have = set(value.split())
                    facts["flags"] = [flag for flag in _SPEED_FLAGS if flag in have]
                    break
    except OSError:
        pass
    if hasattr(os, "getloadavg"):
        facts["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return facts


def _search_position(
    search_agent, position, networks, runners, runtime, network_call, seconds, slices, batch_size, evaluator_s
) -> dict[str, Any]:
    """One position's row: ``slices`` rounds of (every network a quarter second, then the search)."""
    from dlgo.search import SearchBudget

    _clear(networks)
    tree = search_agent.tree
    tree.clear()
    evals0, calls0 = tree.evaluations, tree.evaluator_calls
    hits0 = sum(ev.hits for ev in networks)
    network_time = dict.fromkeys(runners, 0.0)
    network_batches = dict.fromkeys(runners, 0)
    search_time = 0.0
    result = None
    for _ in range(slices):
        # Networks and search take turns, so a machine whose load changes affects all alike.
        for rt, runner in runners.items():
            t = time.perf_counter()
            while time.perf_counter() - t < 0.25:
                network_call(runner)
                network_batches[rt] += 1
            network_time[rt] += time.perf_counter() - t
        t = time.perf_counter()
        result = search_agent.search(position, SearchBudget(max_seconds=seconds / slices))
        search_time += time.perf_counter() - t
    evals = tree.evaluations - evals0
    calls = max(1, tree.evaluator_calls - calls0)
    pps = {rt: network_batches[rt] * batch_size / network_time[rt] for rt in runners}
    vps = result.visits / search_time
    row: dict[str, Any] = {
        "visits": result.visits,
        "seconds": round(search_time, 3),
        "visits_per_second": round(vps, 1),
        "network_positions_per_second": round(pps[runtime], 1),
        "network_ms_per_batch": round(network_time[runtime] / network_batches[runtime] * 1e3, 3),
    }
    for rt in runners:
        row[f"network_{rt}_positions_per_second"] = round(pps[rt], 1)
    row.update(
        {
            "ratio_to_network": round(vps / pps[runtime], 3),
            "ratio_to_fp32_network": round(vps / pps["fp32"], 3),
            "evaluation_ratio_to_network": round(evals / search_time / pps[runtime], 3),
            "ratio_to_evaluator": round(vps * evaluator_s / batch_size, 3),
            "evaluations_per_second": round(evals / search_time, 1),
            "mean_batch": round(evals / calls, 2),
            "cache_hits": sum(ev.hits for ev in networks) - hits0,
            "best": move_to_text(result.best.move) if result.best else None,
        }
    )
    return row
