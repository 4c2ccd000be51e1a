"""Start-up checks, run as a user would: the engine and the training loop as subprocesses.

A config that is not UTF-8 or not TOML, and every model file a config names that is unset,
missing, unreadable or damaged (a cut ``.keras`` zip, a missing card), is one stderr line naming
the file and the key, exit status 2, no traceback, nothing on stdout; never "File not found"
from Keras for a file that is there.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dlgo.inference.files import ModelFileError, check_model_file, load_model
from dlgo.play.config import load_config, model_files

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "weights" / "zero-9x9.keras"

pytestmark = pytest.mark.skipif(not WEIGHTS.is_file(), reason="the shipped weights/zero-9x9.keras is missing")


def _model(folder: Path, name: str = "net") -> Path:
    """A copy of the shipped 9x9 network with its card."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.keras"
    shutil.copyfile(WEIGHTS, path)
    shutil.copyfile(WEIGHTS.with_name("zero-9x9.card.json"), folder / f"{name}.card.json")
    return path


def _truncated(folder: Path) -> Path:
    path = _model(folder, "cut")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a download or copy that stopped half way
    return path


def _damaged(folder: Path) -> Path:
    """The zip directory intact, one byte of the weights changed: only the CRC tells."""
    path = _model(folder, "flipped")
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("model.weights.h5")
    data = bytearray(path.read_bytes())
    middle = info.header_offset + 100 + info.compress_size // 2
    data[middle] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def _without_weights(folder: Path) -> Path:
    path = _model(folder, "hollow")
    with zipfile.ZipFile(WEIGHTS) as src, zipfile.ZipFile(path, "w") as dst:
        for name in ("metadata.json", "config.json"):
            dst.writestr(name, src.read(name))
    return path


def _without_card(folder: Path) -> Path:
    path = _model(folder, "nocard")
    (folder / "nocard.card.json").unlink()
    return path


def _engine(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gtp_engine", *args], input=b"name\n", capture_output=True, timeout=120, cwd=ROOT
    )


def _one_line_exit_2(proc: subprocess.CompletedProcess, *words: str) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, err
    assert proc.stdout == b""
    assert "Traceback" not in err and "File not found" not in err
    lines = err.strip().split("\n")
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


# --- config files that are not UTF-8 or not TOML ---------------------------------------------------


def test_engine_config_not_utf8_is_one_line(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('[engine]\nname = "Café"\n'.encode("latin-1"))
    line = _one_line_exit_2(_engine("--config", str(bad)), str(bad), "UTF-8", "line 2")
    assert line.startswith("dlgo-gtp: config error: ")


def test_engine_config_with_byte_order_mark_loads(tmp_path):
    good = tmp_path / "bom.toml"
    good.write_bytes(b"\xef\xbb\xbf" + b'[engine]\nname = "bom"\n')
    assert load_config(str(good)).get("engine.name") == "bom"


def test_engine_config_too_big_is_refused_without_reading_it_all(tmp_path):
    proc = _engine("--config", "/dev/zero")
    _one_line_exit_2(proc, "/dev/zero", "not a config")


def _loop(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dlgo.zero.loop", "--config", str(config), "--status"],
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )


def test_training_loop_config_not_utf8_or_not_toml_is_one_line(tmp_path):
    bad = tmp_path / "loop.toml"
    bad.write_bytes(b'[loop]\nout = "r\xe9sum\xe9"\n')
    _one_line_exit_2(_loop(bad), str(bad), "UTF-8")
    bad.write_text("[loop\nworkers = 1\n")
    _one_line_exit_2(_loop(bad), str(bad), "not valid TOML")


def test_training_loop_checks_its_init_model(tmp_path):
    cut = _truncated(tmp_path / "m")
    config = tmp_path / "loop.toml"
    config.write_text(f'[loop]\nout = "{tmp_path / "run"}"\ninit_model = "{cut}"\n')
    _one_line_exit_2(_loop(config), str(config), "loop.init_model", str(cut), "truncated")


# --- model files named by the engine's config ------------------------------------------------------


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda d: d / "absent.keras", ["absent.keras", "not found"]),
        (lambda d: d, ["not a regular file"]),
        (_truncated, ["cut.keras", "truncated"]),
        (_damaged, ["flipped.keras", "model.weights.h5 is damaged"]),
        (_without_weights, ["hollow.keras", "lacks model.weights.h5"]),
        (_without_card, ["nocard.card.json", "model card missing"]),
    ],
    ids=["missing", "directory", "truncated", "damaged", "no-weights", "no-card"],
)
def test_engine_refuses_a_bad_model_file_at_start_up(tmp_path, make, words):
    bad = make(tmp_path / "models")
    (tmp_path / "models").mkdir(exist_ok=True)
    proc = _engine("--config", "configs/engine/default.toml", "--set", f'size.9.zero.model="{bad}"')
    _one_line_exit_2(proc, "configs/engine/default.toml", "size.9.zero.model", *words)


def test_engine_names_the_key_of_a_bad_model_in_a_config_file(tmp_path):
    cut = _truncated(tmp_path)
    config = tmp_path / "two.toml"
    good = _model(tmp_path / "ok")
    config.write_text(
        f'agent = "zero"\n[zero]\nmodel = "{good}"\n[size.13]\nagent = "predict"\n[size.13.predict]\nmodel = "{cut}"\n'
    )
    _one_line_exit_2(_engine("--config", str(config)), str(config), "size.13.predict.model", "truncated")
    # Without --config the engine plays configs/engine/default.toml: alphago plays the sizes it leaves.
    _one_line_exit_2(
        _engine("--set", "agent=alphago"), "configs/engine/default.toml", "alphago.policy_model is not set"
    )


def test_engine_starts_when_every_model_is_good(tmp_path):
    proc = _engine("--config", "configs/engine/default.toml")
    assert proc.returncode == 0 and proc.stdout == b"= dlgo\n\n", proc.stderr


def test_model_files_lists_each_agent_in_play_with_its_key():
    config = load_config(str(ROOT / "configs" / "engine" / "default.toml"))
    keys = dict(model_files(config))
    assert sorted(keys) == [
        "size.13.zero.model",
        "size.19.handicap.zero.model",
        "size.19.zero.model",
        "size.9.zero.model",
    ]
    assert keys["size.9.zero.model"] == str(WEIGHTS.with_name("zero-9x9-10x128.keras"))
    assert keys["size.19.handicap.zero.model"] == str(WEIGHTS.with_name("zero-19x19-aux.keras"))  # handicap games
    # the top-level agent plays the sizes without their own; alphago's value net only when used
    config = load_config(None, ["agent=alphago", "alphago.policy_model=p.keras", "alphago.lambda_value=0"])
    assert [k for k, _ in model_files(config)] == ["alphago.policy_model"]
    config = load_config(None, ["agent=zero", "zero.model=a.keras", "size.9.zero.model=b.keras"])
    assert [k for k, _ in model_files(config)] == ["zero.model", "size.9.zero.model"]


def test_load_model_says_what_is_wrong_with_a_cut_file_not_file_not_found(tmp_path):
    cut = _truncated(tmp_path)
    with pytest.raises(ModelFileError, match="truncated") as info:
        load_model(cut)
    assert "File not found" not in str(info.value)
    assert check_model_file(_model(tmp_path / "fine")).encoder == "zero"


@pytest.mark.parametrize("building", [True, False])
def test_the_engine_exits_at_once_while_an_agent_is_still_being_built(building):
    """After the last answer, a build still running in the background (numba compiling on a cold
    cache) is not waited for nor torn down under: the process ends at once with its status."""
    program = (
        "import threading, time, sys\n"
        "from dlgo.play.process import exit_status\n"
        "from dlgo.play.agents import AGENT_BUILD_THREAD\n"
        f"if {building}:\n"
        "    threading.Thread(target=time.sleep, args=(60,), name=AGENT_BUILD_THREAD, daemon=True).start()\n"
        "status = exit_status(3)\n"
        "print('returned', status, flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    if building:
        assert done.returncode == 3 and "returned" not in done.stdout
    else:
        assert done.returncode == 0 and done.stdout.strip() == "returned 3"
