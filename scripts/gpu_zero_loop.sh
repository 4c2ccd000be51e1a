#!/usr/bin/env bash
# The AlphaGo Zero loop (book chapter 14) on a CUDA machine: the learner trains on the GPU under
# Keras 3 on PyTorch, self-play runs on every core but one with ONNX Runtime (int8), and each new
# generation is exported to ONNX through PyTorch (Keras' JAX export needs TensorFlow, which such
# images often lack). Runs MINUTES, stops cleanly (SIGTERM a minute past MINUTES at the latest),
# then exports the working generation with its learner and carry file to the folder EXPORT, ready
# to be copied to weights/zero-9x9-loop/ so the next run, on a GPU or on the CPU, goes on from it.
#
#   scripts/gpu_zero_loop.sh MINUTES EXPORT [loop options]
#   scripts/gpu_zero_loop.sh 8 /tmp/gen --set selfplay.games_per_iteration=600 --set train.steps_per_iteration=200
#
# Needs keras, sgfmill, numba, onnx, onnxruntime and a CUDA PyTorch; PYTHON names the interpreter
# (default python3), CONFIG the loop's config (default configs/train/zero-train-9x9-aux.toml).
# Without GNU Go on the PATH the anchor games are off. docs/zero-training.md, "On a GPU".
set -euo pipefail
usage="usage: scripts/gpu_zero_loop.sh MINUTES EXPORT [loop options]"
minutes=${1:?$usage}
export_dir=${2:?$usage}
shift 2
export_dir=$(mkdir -p "$export_dir" && cd "$export_dir" && pwd)
cd "$(dirname "$0")/.."
export KERAS_BACKEND=${KERAS_BACKEND:-torch}
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
config=${CONFIG:-configs/train/zero-train-9x9-aux.toml}
cores=$(nproc)
workers=$((cores > 1 ? cores - 1 : 1))
extra=()
command -v gnugo >/dev/null || extra=(--set anchor.games=0)
stop_after=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 + 60 }')
status=0
timeout -s TERM -k 60 "$stop_after" "$python" -m dlgo.zero.loop --config "$config" --workers "$workers" \
    --max-minutes "$minutes" --no-progress "${extra[@]}" "$@" || status=$?
"$python" -m dlgo.zero.loop --config "$config" "${extra[@]}" "$@" --export "$export_dir/zero-9x9.keras"
"$python" -m dlgo.zero.loop --config "$config" "${extra[@]}" "$@" --status
exit $((status == 130 || status == 124 ? 0 : status))
