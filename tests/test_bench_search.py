"""``python -m dlgo.bench search`` answers in one JSON object: the fp32 and int8 networks' positions/s
next to the search's visits/s and their ratios (the keys README.md documents). Figures are not
judged here (no timed assertions); the keys, their consistency and the runtime choice are."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

keras = pytest.importorskip("keras")
if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tf2onnx") is None:
    pytest.skip("onnxruntime or tf2onnx missing", allow_module_level=True)

from dlgo.bench.search import bench_search, cpu_facts, default_runtime  # noqa: E402
from dlgo.encoders import get_encoder_by_name  # noqa: E402
from dlgo.inference import save_model  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

ROW_KEYS = {
    "visits",
    "seconds",
    "visits_per_second",
    "network_positions_per_second",
    "network_ms_per_batch",
    "network_fp32_positions_per_second",
    "network_int8_positions_per_second",
    "ratio_to_network",
    "ratio_to_fp32_network",
    "evaluation_ratio_to_network",
    "ratio_to_evaluator",
    "evaluations_per_second",
    "mean_batch",
    "cache_hits",
    "best",
}


@pytest.fixture
def tiny_model(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    encoder = get_encoder_by_name("zero", 9)
    keras.utils.set_random_seed(3)
    path = tmp_path / "tiny.keras"
    save_model(zero_model(encoder.num_planes, blocks=1, filters=8), path, encoder, [9])
    return str(path)


@pytest.mark.parametrize("runtime", ["int8", "fp32"])
def test_one_run_reports_both_networks_and_the_ratios(tiny_model, runtime):
    out = bench_search("zero", tiny_model, size=9, batch_size=4, seconds=0.4, slices=2, runtime=runtime)
    json.dumps(out)  # plain JSON
    assert out["runtime"] == runtime
    assert out["runners"] == {"fp32": "onnxruntime", "int8": "onnxruntime-int8"}
    assert out["runner"] == out["runners"][runtime]
    for row in out["search"].values():
        assert set(row) == ROW_KEYS
        assert row["network_positions_per_second"] == row[f"network_{runtime}_positions_per_second"]
        vps = row["visits_per_second"]
        assert row["ratio_to_network"] == pytest.approx(vps / row["network_positions_per_second"], abs=2e-3)
        assert row["ratio_to_fp32_network"] == pytest.approx(vps / row["network_fp32_positions_per_second"], abs=2e-3)
        assert row["visits"] > 1
    rows = out["search"].values()
    worst = min(min(r["ratio_to_network"], r["evaluation_ratio_to_network"]) for r in rows)
    assert out["ratio_to_network_min"] == worst
    assert out["ratio_to_fp32_network_min"] == min(r["ratio_to_fp32_network"] for r in rows)
    assert out["goals"]["ratio_to_fp32_network"] == 2.5
    assert out["goals"]["ratio_to_network_met"] == (out["ratio_to_network_min"] >= 0.9)


def test_default_runtime_follows_the_engine_config(tmp_path):
    config = tmp_path / "engine.toml"
    config.write_text('[zero]\nruntime = "fp32"\n[size.9.zero]\nruntime = "int8"\n')
    assert default_runtime(9, config) == "int8"
    assert default_runtime(19, config) == "fp32"
    assert default_runtime(9) in ("fp32", "int8")  # the shipped default config


def test_cpu_facts_name_the_speed_flags():
    facts = cpu_facts()
    assert set(facts) == {"model", "flags", "load_average"}
    assert all(isinstance(flag, str) for flag in facts["flags"])


def test_the_default_network_and_batch_are_the_engine_configs(tmp_path):
    from dlgo.bench.search import default_zero

    config = tmp_path / "configs" / "engine.toml"
    config.parent.mkdir()
    config.write_text('[zero]\nbatch_size = 8\n[size.9.zero]\nmodel = "../w/nine.keras"\nbatch_size = 4\n')
    nine, nineteen = default_zero(9, config), default_zero(19, config)
    assert nine["model"] == str((tmp_path / "w" / "nine.keras").resolve()) and nine["batch_size"] == 4
    assert nineteen["model"] == "" and nineteen["batch_size"] == 8
    shipped = default_zero(9)  # configs/engine/default.toml names the 9x9 network it plays
    assert shipped["model"].endswith(".keras") and Path(shipped["model"]).is_file()
