"""The one-folder binary (scripts/build_binary.sh): built, copied away from the checkout, run with
a PATH that has no Python, and played against GNU Go under a 2-second byo-yomi. Slow (it builds
a play-only venv and freezes it: a few minutes): ``scripts/run_tests.sh -m slow``."""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from dlgo.match.players import command_player, find_gnugo, gnugo_player
from dlgo.match.referee import GameRules, play_game
from dlgo.match.referee_clock import ClockSettings

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.gnugo]


@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed")
def test_binary_plays_outside_the_checkout_without_python(tmp_path: Path) -> None:
    build = subprocess.run(["bash", "scripts/build_binary.sh"], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stderr[-3000:]
    tarball = next((ROOT / "dist").glob("dlgo-gtp-*-linux-*.tar.gz"))
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path / "opt", filter="data")
    binary = tmp_path / "opt" / "dlgo-gtp" / "dlgo-gtp"
    home = tmp_path / "home"
    home.mkdir()
    env = ["env", "-i", f"HOME={home}", "PATH=/nonexistent"]
    assert shutil.which("python3", path="/nonexistent") is None
    version = subprocess.run([*env, str(binary), "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0, version.stderr
    assert f"plays {tmp_path / 'opt'}" in version.stdout and "zero-9x9-10x128.int8.onnx (int8)" in version.stdout
    prepare = subprocess.run([*env, str(binary), "--prepare"], capture_output=True, text=True, timeout=600)
    assert prepare.returncode == 0, prepare.stderr[-2000:]
    rules = GameRules(size=9, komi=7.0, clock=ClockSettings(0, 2, 1))  # 2 s a move, as byo-yomi
    logs = tmp_path / "logs"  # both players' stderr, for a failure's story
    record = play_game(command_player([*env, str(binary)], "binary"), gnugo_player(5), rules, log_dir=logs)
    stderr = "".join(p.read_text(errors="replace")[-1500:] for p in sorted(logs.glob("*.log")))
    assert record.fault is None, f"{record.reason}: {record.detail}\n{stderr}"
    assert record.result, record.reason
