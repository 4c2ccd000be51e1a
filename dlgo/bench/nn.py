"""Network inference benchmark: positions per second of the fast runners next to ``model.predict``.

    python -m dlgo.bench nn --model weights/zero.keras
    python -m dlgo.bench nn --build zero --blocks 6 --filters 64 --size 9
    python -m dlgo.bench nn --encoders                # microseconds per encode, every encoder

For each runner and batch size it times the network call alone on encoded random-play
positions (``ms_per_batch``, ``positions_per_second``); ``evaluator`` times the whole
``BatchEvaluator.evaluate`` path (encoding, symmetry bookkeeping and runner; cache off).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from dlgo.goboard import GameState

__all__ = ["bench_nn", "bench_encoders", "sample_states", "seconds_per_call", "BUILDS"]

BUILDS = {  # --build name -> default encoder
    "zero": "zero",
    "book-zero": "zero",
    "alphago-policy": "alphago",
    "small": "sevenplane",
    "medium": "sevenplane",
    "large": "sevenplane",
}


def sample_states(size: int, count: int, seed: int = 1) -> list[GameState]:
    """``count`` positions from seeded random games, spread from the opening to the late middle game."""
    rng = random.Random(seed)
    states: list[GameState] = []
    while len(states) < count:
        state = GameState.new_game(size)
        target = rng.randrange(0, size * size * 3 // 4)
        for _ in range(target):
            moves = [m for m in state.legal_moves() if m.is_play]
            if not moves:
                break
            state = state.apply_move(rng.choice(moves))
        states.append(state)
    return states


def seconds_per_call(fn: Callable[[], object], seconds: float, min_calls: int = 3, warmup: int = 2) -> float:
    """Mean seconds per call of ``fn`` over at least ``min_calls`` calls and about ``seconds``."""
    for _ in range(warmup):
        fn()
    calls = 0
    start = time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if calls >= min_calls and elapsed >= seconds:
            return elapsed / calls


def bench_encoders(sizes: Sequence[int] = (9, 19), count: int = 64, seconds: float = 1.0) -> dict[str, Any]:
    """Microseconds per ``encode`` of every encoder on random-play positions."""
    from dlgo.encoders import ENCODER_NAMES, get_encoder_by_name

    out: dict[str, Any] = {}
    for size in sizes:
        states = sample_states(size, count)
        for name in ENCODER_NAMES:
            encoder = get_encoder_by_name(name, size)

            def run(encoder=encoder, states=states):
                for s in states:
                    encoder.encode(s)

            out.setdefault(name, {})[f"{size}x{size}"] = round(seconds_per_call(run, seconds) / count * 1e6, 1)
    return {"unit": "microseconds per position", "positions": "random play", "encoders": out}


def _build(name: str, encoder, blocks: int, filters: int):
    """A fresh network from the registry (``dlgo.networks``); ``alphago-policy`` is its
    ``alphago`` at the book's 192 filters (13.1): ``--filters`` sizes the Zero network."""
    from dlgo.networks import build_network

    if name == "alphago-policy":
        return build_network("alphago", encoder, filters=192)
    return build_network(name, encoder, blocks=blocks, filters=filters)


def bench_nn(
    model_path: str | None = None,
    build: str | None = None,
    blocks: int = 6,
    filters: int = 64,
    size: int = 9,
    encoder_name: str | None = None,
    batches: Sequence[int] = (1, 8, 32),
    seconds: float = 2.0,
    backends: Sequence[str] = ("onnx", "compiled", "predict"),
    threads: int | None = None,
) -> dict[str, Any]:
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import BatchEvaluator, load_model
    from dlgo.inference.runners import make_runner

    t0 = time.perf_counter()
    if model_path:
        loaded = load_model(model_path)
        model = loaded.model
        encoder = loaded.encoder(size if loaded.card.size_independent or size in loaded.card.board_sizes else None)
        source = {"model": model_path, "card_board_sizes": loaded.card.board_sizes}
    else:
        build = build or "zero"
        encoder = get_encoder_by_name(encoder_name or BUILDS[build], size)
        model = _build(build, encoder, blocks, filters)
        loaded = None
        source = {"build": build, "blocks": blocks, "filters": filters, "weights": "untrained"}
    setup = {"load_or_build_s": round(time.perf_counter() - t0, 2)}
    size = encoder.board_width
    states = sample_states(size, max(batches))
    x = encoder.encode_batch(states)
    result: dict[str, Any] = {
        "benchmark": "nn",
        **source,
        "network": model.name,
        "parameters": int(model.count_params()),
        "encoder": encoder.name(),
        "board_size": size,
        "input_shape": list(x.shape[1:]),
        "encode_us_per_position": round(
            seconds_per_call(lambda: encoder.encode_batch(states), 0.5) / len(states) * 1e6, 1
        ),
        "runners": {},
    }
    best = None
    for backend in backends:
        t0 = time.perf_counter()
        try:
            runner = make_runner(model, backend, threads=threads)
        except Exception as e:  # a runner that cannot be built is reported, not fatal
            result["runners"][backend] = {"error": f"{type(e).__name__}: {e}"}
            continue
        setup[f"{runner.name}_setup_s"] = round(time.perf_counter() - t0, 2)
        timings = {}
        for b in batches:
            xb = x[:b]
            budget = seconds if backend != "predict" else min(seconds, 1.0)
            per_call = seconds_per_call(
                lambda runner=runner, xb=xb: runner(xb), budget, min_calls=3 if backend != "predict" else 2
            )
            timings[str(b)] = {"ms_per_batch": round(per_call * 1e3, 3), "positions_per_second": round(b / per_call, 1)}
        result["runners"][runner.name] = timings
        if backend != "predict" and best is None:
            best = backend
    if best is not None:
        evaluator = BatchEvaluator(
            loaded if loaded is not None else model,
            None if loaded is not None else encoder,
            backend=best,
            cache_size=0,
            threads=threads,
        )
        run = evaluator.evaluate if set(evaluator.heads) == {"policy", "value"} else evaluator.policy
        timings = {}
        for b in batches:
            batch = states[:b]
            per_call = seconds_per_call(lambda batch=batch: run(batch), seconds)
            timings[str(b)] = {"ms_per_batch": round(per_call * 1e3, 3), "positions_per_second": round(b / per_call, 1)}
        result["evaluator"] = {"runner": evaluator.runner.name, "cache": "off", "encoding": "included", **timings}
    result["setup"] = setup
    return result
