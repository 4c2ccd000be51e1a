#!/usr/bin/env bash
# Supervised 19x19 training on a CUDA machine (book chapter 7's trainer at GPU scale): Keras 3 on
# JAX, bfloat16 compute, a 10x128 zero network, the learning-rate curve fitted to the minutes
# given (--fit-to-time). Checkpoints, state.json, log.csv, curves.png and model.keras (float32,
# what the CPU engine loads) go to OUT after every epoch. Run it again with the same OUT to go on
# from the last checkpoint; later options override the defaults below.
#
#   scripts/gpu_train.sh OUT MINUTES [trainer options]
#   scripts/gpu_train.sh runs/gpu-10x128 45 --data runs/data-all19 -j 16      # all 87,000 games
#   scripts/gpu_train.sh runs/gpu-10x128 30 --epochs 60                       # go on, stretched
#
# Needs keras, sgfmill and a CUDA JAX (or KERAS_BACKEND=torch with a CUDA PyTorch); PYTHON
# names the interpreter (default python3). docs/training.md, "On a GPU", has the measured run.
set -euo pipefail
out=${1:?usage: scripts/gpu_train.sh OUT MINUTES [trainer options]}
minutes=${2:?usage: scripts/gpu_train.sh OUT MINUTES [trainer options]}
shift 2
cd "$(dirname "$0")/.."
export KERAS_BACKEND=${KERAS_BACKEND:-jax}
export PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
if [[ -f "$out/state.json" ]]; then
    exec "$python" -m dlgo.train supervised --out "$out" --resume --max-minutes "$minutes" "$@"
fi
exec "$python" -m dlgo.train supervised --out "$out" \
    --encoder zero --network zero --blocks 10 --filters 128 --size 19 --games 0 --test-games 400 \
    --epochs 1000 --steps-per-epoch 1000 --batch-size 512 --lr 2e-3 --lr-schedule cosine \
    --lr-min 1e-5 --warmup-steps 500 --value-weight 0.25 --val-positions 8192 \
    --max-minutes "$minutes" --fit-to-time --mixed-precision "$@"
