"""The networks and configs the installed package carries (``dlgo.shipped``), networks given as
their ONNX export alone, and the wheel installed in a fresh venv outside the checkout."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from dlgo import shipped
from dlgo.inference.files import ModelFileError, check_model_file, load_model, network_file
from dlgo.inference.onnx_cache import DIGEST_KEY, network_digest, onnx_runner
from dlgo.inference.onnx_meta import OnnxFormatError, read_metadata
from dlgo.inference.quantize import RECIPE_KEY, calibration_size, open_int8, recipe

ROOT = Path(__file__).resolve().parent.parent


def test_every_shipped_file_is_a_link_into_the_checkout() -> None:
    """One copy of each file in git: the package's folder holds links that the wheel resolves."""
    files = [p for p in shipped.SHIPPED_DIR.rglob("*") if p.is_file() and p.suffix != ".py"]
    assert files
    for path in files:
        assert path.is_symlink(), path
        assert ROOT in path.resolve().parents and path.resolve().is_file(), path
    assert shipped.installed_from_checkout()
    assert shipped.config_path() == ROOT / "configs" / "engine" / "default.toml"
    assert shipped.config_paths()[0].name == "default.toml"


@pytest.mark.parametrize("onnx", shipped.network_paths(), ids=lambda p: p.name)
def test_committed_exports_match_their_keras_files(onnx: Path) -> None:
    """A network changed without its exports would ship a stale package: the fp32 export and
    the int8 file must carry the .keras file's digest and the current int8 recipe. (Make them
    again with ``python -m gtp_engine --config configs/engine/default.toml --prepare``.)"""
    keras_file = onnx.with_suffix(".keras")
    digest = hashlib.sha256(keras_file.read_bytes()).hexdigest()
    assert read_metadata(onnx)[DIGEST_KEY] == digest, f"{onnx} is not the export of {keras_file}"
    int8 = onnx.with_name(onnx.stem + ".int8.onnx")
    meta = read_metadata(int8)
    assert meta[DIGEST_KEY] == digest
    loaded = load_model(keras_file, lazy=True)
    assert meta[RECIPE_KEY] == recipe("qoperator", calibration_size(loaded))


def test_every_shipped_config_names_only_shipped_networks() -> None:
    """Each config in the package plays with what the package carries: its networks resolve,
    inside the package folder, to an export there, and its opening books to a file there."""
    from dlgo.play.config import book_files, check_book_files, load_config, model_files

    for config_path in shipped.SHIPPED_DIR.joinpath("configs", "engine").glob("*.toml"):
        config = load_config(str(config_path))  # unresolved: the package's own layout
        for dotted, path in model_files(config):
            played = network_file(path)
            assert played.suffix == ".onnx" and played.parent == shipped.SHIPPED_DIR / "weights", (dotted, played)
            check_model_file(path)
        for dotted, _, path in book_files(config):
            assert Path(path).parent == shipped.SHIPPED_DIR / "weights", (dotted, path)
            assert fnmatch.fnmatch(Path(path).name, "book-*.json"), "setup.cfg ships weights/book-*.json"
        check_book_files(config)


def test_onnx_metadata_reader_matches_onnxruntime(tmp_path: Path) -> None:
    import onnxruntime as ort

    for path in shipped.SHIPPED_DIR.joinpath("weights").glob("*.onnx"):
        assert read_metadata(path) == ort.InferenceSession(str(path)).get_modelmeta().custom_metadata_map
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12\xff\xff\xff")
    with pytest.raises(OnnxFormatError):
        read_metadata(bad)


def test_a_network_given_as_its_export_plays_without_keras(tmp_path: Path) -> None:
    """x.keras absent, x.onnx + x.int8.onnx + x.card.json there: the same network, found by
    the .keras name too; asking it for a Keras model is one clear error."""
    source = ROOT / "weights" / "zero-9x9"
    for suffix in (".onnx", ".int8.onnx", ".card.json"):
        shutil.copy(f"{source}{suffix}", tmp_path / f"net{suffix}")
    named = tmp_path / "net.keras"
    assert network_file(named) == tmp_path / "net.onnx"
    loaded = load_model(named, heads=["policy", "value"], board_size=9, lazy=True)
    assert loaded.path == tmp_path / "net.onnx"
    assert network_digest(loaded.path) == network_digest(f"{source}.keras")
    assert onnx_runner(loaded).path == tmp_path / "net.onnx"
    assert open_int8(loaded).path == tmp_path / "net.int8.onnx"
    with pytest.raises(ModelFileError, match="no Keras model"):
        _ = loaded.model
    with pytest.raises(ModelFileError, match="no Keras model"):
        load_model(named)
    (tmp_path / "junk.onnx").write_bytes(b"PK\x03\x04 not onnx")
    (tmp_path / "junk.card.json").write_bytes((tmp_path / "net.card.json").read_bytes())
    with pytest.raises(ModelFileError, match="junk.onnx: not an ONNX model file"):
        check_model_file(tmp_path / "junk.keras")


def test_version_names_the_networks_and_their_files() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gtp_engine", "--version"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("dlgo-gtp ")
    assert lines[1] == f"config: {ROOT / 'configs' / 'engine' / 'default.toml'}"
    nine = next(line for line in lines if line.startswith("network size.9.zero.model: "))
    assert f"{ROOT / 'weights' / 'zero-9x9-10x128.keras'} (sha256 " in nine
    assert nine.endswith(f"plays {ROOT / 'weights' / 'zero-9x9-10x128.int8.onnx'} (int8)")


def _venv_python(folder: Path) -> Path:
    return folder / "bin" / "python"


def _run(argv: list[str], cwd: Path, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``argv`` run outside the checkout's environment (no PYTHONPATH, no active venv)."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in argv], input=stdin, capture_output=True, text=True, timeout=600, cwd=cwd, env=env or clean
    )


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout installed with no extras into a fresh venv outside it (from the
    pip cache, as a bot operator installs it); its folder."""
    work = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"pip wheel failed: {build.stderr[-2000:]}")
    for leftover in [ROOT / "build" / "lib", *ROOT.glob("build/bdist.*")]:  # setuptools' in-tree build folders
        shutil.rmtree(leftover, ignore_errors=True)
    wheel = next(work.glob("*.whl"))
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    install = subprocess.run(
        [str(_venv_python(env_dir)), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if install.returncode != 0:
        pytest.skip(f"the wheel's requirements cannot be installed here: {install.stderr[-1000:]}")
    return env_dir


def test_wheel_in_a_fresh_venv_plays_the_shipped_networks(installed_wheel: Path, tmp_path: Path) -> None:
    """The bot operator's transcript: installed from the wheel, run from another folder, no
    TensorFlow, Keras or Flask in the environment, and the Zero networks play (not MCTS)."""
    python = _venv_python(installed_wheel)
    missing = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util as u; print([m for m in ('tensorflow', 'keras', 'flask', 'h5py') "
            "if u.find_spec(m)])",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert missing.stdout.strip() == "[]"
    script = installed_wheel / "bin" / "dlgo-gtp"
    commands = "name\nboardsize 9\ngomill-describe_engine\ngenmove b\nboardsize 19\ngenmove b\nquit\n"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # nothing from the checkout's caches
    sets = ["zero.rounds=64", "time.default_seconds=0", "size.19.time.default_seconds=0"]
    proc = _run([script, *(f"--set={s}" for s in sets)], tmp_path, commands, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    answers = proc.stdout.split("\n\n")
    assert answers[0] == "= dlgo"
    describe = answers[2]
    site = installed_wheel / "lib"
    assert "agent: zero:" in describe
    assert "config: " in describe and "dlgo/shipped/configs/engine/default.toml" in describe
    assert str(site) in describe and "zero-9x9-10x128.int8.onnx (int8)" in describe
    assert str(ROOT) not in describe
    for answer in (answers[3], answers[5]):
        assert answer.startswith("= ") and answer[2:] not in ("", "pass", "resign"), proc.stdout
    assert "quick move" not in proc.stderr
    version = _run([script, "--version"], tmp_path, env=env)
    assert "zero-13x13.int8.onnx (int8)" in version.stdout  # 13x13 and 19x19 share one file


def test_wheel_plays_the_same_moves_as_the_checkout(installed_wheel: Path, tmp_path: Path) -> None:
    """Seeded, at fixed visits, on one thread: the package and the checkout choose the same moves."""
    sets = [f"--set={s}" for s in ("size.9.zero.rounds=100", "time.default_seconds=0", "size.9.zero.seed=5")]
    sets.append("--set=size.9.zero.threads=1")
    commands = "boardsize 9\nkomi 7\ngenmove b\ngenmove w\ngenmove b\ngenmove w\nquit\n"
    installed = _run([installed_wheel / "bin" / "dlgo-gtp", *sets], tmp_path, commands)
    checkout = _run([sys.executable, "-m", "gtp_engine", *sets], ROOT, commands, env=dict(os.environ))
    assert installed.returncode == checkout.returncode == 0
    assert installed.stdout == checkout.stdout
    assert len([a for a in installed.stdout.split("\n\n") if len(a) > 2]) == 4


def test_wheel_without_extras_names_the_extra_and_refuses_a_cut_network(installed_wheel: Path, tmp_path: Path) -> None:
    """Training or the web page without their extras: one line naming the extra, exit 2. A cut
    network file: one line naming it, exit 2, before any GTP is read."""
    python = _venv_python(installed_wheel)
    for argv, extra in (
        ([python, "-m", "dlgo.train", "supervised"], "train"),
        ([python, "-m", "dlgo.zero.loop", "--config", "x.toml"], "train"),
        ([installed_wheel / "bin" / "dlgo-web"], "web"),
    ):
        proc = _run(argv, tmp_path)
        assert proc.returncode == 2, (argv, proc.stderr[-500:])
        assert f"pip install 'dlgo-engine[{extra}]'" in proc.stderr and "Traceback" not in proc.stderr
    source = ROOT / "weights" / "zero-9x9"
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(Path(f"{source}.onnx").read_bytes()[:300_000])
    shutil.copy(f"{source}.card.json", tmp_path / "cut.card.json")
    proc = _run([installed_wheel / "bin" / "dlgo-gtp", f"--set=size.9.zero.model={cut}"], tmp_path, "name\n")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"size.9.zero.model: {cut}: not a usable ONNX model file" in proc.stderr


def test_wheel_answers_analysis_queries_and_reviews_without_extras(installed_wheel: Path, tmp_path: Path) -> None:
    """KaTrain's and a reviewer's path from the package: ``dlgo-analysis`` answers a query with the
    shipped network, ``dlgo-review`` annotates a game, neither needs an extra."""
    query = (
        '{"id":"q1","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7,"boardXSize":9,'
        '"boardYSize":9,"analyzeTurns":[2],"maxVisits":16,"includeOwnership":true}\n'
    )
    proc = _run([installed_wheel / "bin" / "dlgo-analysis"], tmp_path, query)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["id"] == "q1" and answer["turnNumber"] == 2 and answer["moveInfos"]
    assert len(answer["ownership"]) == 81
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gg];W[cg])", encoding="utf-8")
    proc = _run([installed_wheel / "bin" / "dlgo-review", game, "-o", tmp_path / "out.sgf", "--visits", "8"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "out.sgf").read_text(encoding="utf-8").count("C[") >= 4
