"""``scripts/gpu_lease.sh``: a GPU lease's command, tried before a lease is spent on it.

- ``pack``/``unpack`` in a clone of this repository: the tree that would travel fits the device
  tool's 64 MiB (the committed networks alone are 140 MiB), the networks travel neither as tracked
  nor as untracked files, and ``unpack`` puts git's index and ignore rules back as they were;
- ``train --smoke`` (slow): the four stages end to end on this CPU, each network with its card.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_lease.sh"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a checkout")
    repo = tmp_path_factory.mktemp("lease") / "repo"
    subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(repo)], check=True)
    shutil.copy2(SCRIPT, repo / "scripts" / "gpu_lease.sh")  # the script as in this tree
    return repo


@pytest.fixture
def archives(tmp_path) -> Path:
    data = tmp_path / "data"
    for name in ("kgs", "tom9d"):
        (data / name).mkdir(parents=True)
        (data / name / f"{name}-games.tar.gz").write_bytes(b"\0" * 1024)
    return data


def _run(repo: Path, *args: str, data: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LEASE_WHEELS": "0", "PYTHON": sys.executable}
    if data is not None:
        env["DLGO_DATA"] = str(data)
    return subprocess.run(["bash", "scripts/gpu_lease.sh", *args], cwd=repo, env=env, capture_output=True, text=True)


def test_pack_fits_the_device_tool_and_unpack_puts_everything_back(clone, archives) -> None:
    exclude = clone / ".git" / "info" / "exclude"
    before_exclude = exclude.read_text() if exclude.exists() else ""
    before_index = _git(clone, "ls-files")
    packed = _run(clone, "pack", data=archives)
    assert packed.returncode == 0, packed.stderr
    size = int(re.search(r"the tree that travels: (\d+) MiB \(limit 62\)", packed.stderr).group(1))
    assert 0 < size <= 62
    index = set(_git(clone, "ls-files").split())
    # what the stages read stays: the start network, Pachi's 9x9 games, the self-play, the code
    assert {"weights/zero-19x19.keras", "weights/zero-19x19.card.json", "scripts/gpu_train.sh"} <= index
    assert any(p.startswith("weights/zero-9x9-teacher/pachi-pachi/") for p in index)
    assert any(p.startswith("selfplay/19x19/") for p in index)
    assert "weights/zero-13x13.keras" not in index and "docs/katrain.png" not in index
    assert not [p for p in index if p.startswith("tests/")]
    assert "docs/training.md" in index
    # ...and what left the index is not sent as an untracked file either
    untracked = _git(clone, "ls-files", "--others", "--exclude-standard").split()
    assert not [p for p in untracked if p.startswith(("weights/", "docs/", "tests/", ".lease/"))]
    assert (clone / ".lease" / "archives" / "kgs" / "kgs-games.tar.gz").is_file()
    assert (clone / "weights" / "zero-13x13.keras").is_file()  # the files themselves stay

    # a second pack while packed refuses: the index has the networks' removal staged
    again = _run(clone, "pack", data=archives)
    assert again.returncode == 1 and "staged changes" in again.stderr

    unpacked = _run(clone, "unpack")
    assert unpacked.returncode == 0, unpacked.stderr
    assert _git(clone, "ls-files") == before_index
    assert _git(clone, "status", "--porcelain", "--untracked-files=no") == ""
    assert exclude.read_text().replace("/.lease/\n", "") == before_exclude.replace("/.lease/\n", "")


def test_pack_leaves_the_largest_archive_files_behind_when_the_tree_outgrows_the_limit(clone, archives) -> None:
    with (archives / "tom9d" / "huge.tar.gz").open("wb") as f:
        f.truncate(70 * 2**20)  # sparse: its apparent size counts, as the tool counts bytes sent
    packed = _run(clone, "pack", data=archives)
    try:
        assert packed.returncode == 0, packed.stderr
        assert "left out huge.tar.gz to fit" in packed.stderr
        assert not (clone / ".lease" / "archives" / "tom9d" / "huge.tar.gz").exists()
        assert (clone / ".lease" / "archives" / "tom9d" / "tom9d-games.tar.gz").is_file()
    finally:
        assert _run(clone, "unpack").returncode == 0
    assert _git(clone, "status", "--porcelain", "--untracked-files=no") == ""


def test_pack_names_a_missing_archive(clone, tmp_path) -> None:
    result = _run(clone, "pack", data=tmp_path / "nowhere")
    assert result.returncode == 1
    assert f"{tmp_path / 'nowhere'}/kgs: no such archive folder (set DLGO_DATA)" in result.stderr
    assert _git(clone, "status", "--porcelain", "--untracked-files=no") == ""  # nothing left staged


def test_usage() -> None:
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 2 and result.stderr.startswith("usage: scripts/gpu_lease.sh pack")


@pytest.mark.slow
def test_the_four_stages_run_end_to_end_on_the_cpu(tmp_path) -> None:
    pytest.importorskip("keras")
    from dlgo.data.archives import default_sources
    from dlgo.inference import read_card

    if len(default_sources()) < 2:
        pytest.skip("needs the shared game archives")
    out, run = tmp_path / "out", tmp_path / "run"
    env = {**os.environ, "OUT": str(out), "LEASE_RUN": str(run), "PYTHON": sys.executable}
    result = subprocess.run(
        ["bash", str(SCRIPT), "train", "--smoke"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-3000:]
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "lease.tar.gz",
        "zero-1319-value.keras",
        "zero-19x19-sup.keras",
        "zero-9x9-komi-last.keras",
        "zero-9x9-komi.keras",
        "zero-mixed.keras",
    ]
    for name in names[1:]:
        assert (out / name).stat().st_size < 16 * 2**20  # what the device tool brings back
    assert read_card(run / "net" / "zero-19x19-sup.keras").training["kind"] == "supervised"
    assert "heads value" in read_card(run / "value" / "zero-1319-value.keras").training["kind"]
    nine = read_card(run / "nine-net" / "zero-9x9-komi.keras")
    assert "every layer" in nine.training["kind"] and nine.board_sizes == [9]
    assert "--komi-jitter 1.5" in nine.training["commands"][-1]
    mixed = read_card(run / "mixed-net" / "zero-mixed.keras")
    assert "every layer" in mixed.training["kind"]
    held = mixed.metrics["held_out"]
    assert {"value_mse_9x9", "value_mse_13x13", "value_mse_19x19"} <= set(held)
    with tarfile.open(out / "lease.tar.gz") as tar:
        members = {Path(m.name).name for m in tar.getmembers()}
    assert {"lease.log", "zero-mixed.rounds.jsonl", "zero-9x9-komi.rounds.jsonl", "log.csv"} <= members
    for stage in (1, 9, 2, 3):
        assert f"gpu_lease: stage {stage} done at" in result.stdout
