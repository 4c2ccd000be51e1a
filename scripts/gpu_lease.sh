#!/usr/bin/env bash
# One GPU lease in one command: the strength issue's lever 7, ready before a machine is lent.
#
# A lease is 15 minutes of one H100 or H200, all tries together, and its image has JAX and
# PyTorch but neither Keras nor sgfmill; the tree that travels is limited to 64 MiB, while the
# committed networks alone are 140 MiB. So the work is split in three:
#
#   scripts/gpu_lease.sh pack [PYTHON_VERSION]   # here, before: .lease/ (wheels, archives, the
#                                                # start network); the networks leave git's index
#   device run: command "bash scripts/gpu_lease.sh train 9", carry [".lease"], timeout_s 600
#   scripts/gpu_lease.sh unpack [FILES_AT]       # here, after: the index back; the networks that
#                                                # came back into runs/lease/
#
# `train MINUTES` runs four stages, each writing its network as soon as it is done (what is
# finished comes back even if a later stage runs out of time):
#   1. supervised (book chapter 7) on the shared human 19x19 games, every layer of the 10x128,
#      starting from weights/zero-19x19.keras: more games and more passes than its 7-minute run
#      (scripts/gpu_train.sh; the time left after the other stages is this stage's);
#   9. the 9x9 network (weights/zero-9x9-10x128.keras) every layer on Pachi's 9x9 games and the 9x9
#      self-play, the counted games' komi varied: a 9x9 network that reads half a point of komi
#      takes some thousands of such steps (docs/zero-training.md, "Komi varied after the game"),
#      hours of the CPU; LEASE_NINE seconds (120);
#   2. the value head fitted to the committed 13x13 and 19x19 self-play (selfplay/), the recipe of
#      weights/zero-13x13.keras, the network 13x13 and 19x19 play;
#   3. one network for every size: every layer fine-tuned on the mixture of Pachi's 9x9 games
#      (weights/zero-9x9-teacher/) and the 9x9, 13x13 and 19x19 self-play, the recipe of
#      weights/zero-9x9-10x128.keras on all three sizes.
# $OUT (the device tool's folder; runs/lease-out elsewhere) receives zero-19x19-sup.keras,
# zero-9x9-komi.keras (and its last round, zero-9x9-komi-last.keras), zero-1319-value.keras,
# zero-mixed.keras and lease.tar.gz (cards, logs, rounds, held-out
# figures). Their measure is played on the CPU afterwards (docs/training.md, "A GPU lease").
#
# `train --smoke` runs the same stages in a couple of minutes on a CPU (a few games and steps):
# the test that the lease's command works before a lease is spent on it.
set -euo pipefail
usage="usage: scripts/gpu_lease.sh pack [PYTHON_VERSION] | train MINUTES | train --smoke | unpack [FILES_AT]"
cd "$(dirname "$0")/.."
lease=.lease
# What stays in git's index for the lease: the code, the self-play games, Pachi's 9x9 games and
# the start network (everything else in weights/ and the pictures of docs/ leave it until unpack).
keep_weights=(weights/zero-19x19.keras weights/zero-19x19.card.json weights/zero-9x9-10x128.keras
    weights/zero-9x9-10x128.card.json weights/zero-9x9-teacher)
exclude_begin="# gpu_lease: the networks stay here (scripts/gpu_lease.sh unpack removes these lines)"
exclude_end="# gpu_lease: end"
left_out=(weights docs tests) # what the device needs none of, or only the part kept below
limit_mib=62 # the tool's 64 MiB, less a margin for what a run writes beside the tree

say() { echo "gpu_lease: $*" >&2; }

travelling_mib() {
    # what the device tool sends: tracked files (as the index has them), untracked ones git does
    # not ignore, and the carried .lease/, in MiB
    local tracked leased
    tracked=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
    leased=$(du -sb "$lease" 2>/dev/null | cut -f1 || echo 0)
    echo $(((tracked + ${leased:-0}) / 1048576))
}

pack() {
    local pyver=${1:-3.12}
    if ! git diff --cached --quiet; then
        say "the index has staged changes: commit or unstage them first (unpack restores the index from HEAD)"
        exit 1
    fi
    mkdir -p "$lease/whl" "$lease/archives"
    grep -qx "/$lease/" .git/info/exclude 2>/dev/null || echo "/$lease/" >>.git/info/exclude
    # no venv needed: a session lent a GPU packs before its set-up has run
    local python=${PYTHON:-.venv/bin/python}
    [[ -x "$python" ]] || python=python3
    # Keras (the version trained and tested here) and what the image lacks of its needs; sgfmill
    # reads the archives. The platforms are the device tool's (manylinux, x86-64). LEASE_WHEELS=0
    # keeps the wheels already there (offline, and the tests).
    if [[ "${LEASE_WHEELS:-1}" != 0 ]]; then
        local keras_version
        keras_version=$("$python" -c 'import keras; print(keras.__version__)' 2>/dev/null || echo 3.15.1)
        rm -f "$lease"/whl/*.whl
        "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version "$pyver" \
            --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
            -d "$lease/whl" "keras==$keras_version" namex optree sgfmill
    fi
    local data=${DLGO_DATA:-../shared/data}
    for archive in kgs tom9d; do
        if [[ ! -d "$data/$archive" ]]; then
            say "$data/$archive: no such archive folder (set DLGO_DATA)"
            exit 1
        fi
        rm -rf "${lease:?}/archives/$archive"
        cp -r "$data/$archive" "$lease/archives/$archive"
    done
    # The networks leave the index (the files stay here) and are ignored meanwhile, so that they
    # travel neither as tracked nor as untracked files; unpack puts both back.
    git rm -r -q --cached "${left_out[@]}" -- >/dev/null
    git reset -q HEAD -- "${keep_weights[@]}" docs/*.md
    if ! grep -qx "$exclude_begin" .git/info/exclude; then
        {
            echo "$exclude_begin"
            printf '/%s/\n' "${left_out[@]}"
            echo "$exclude_end"
        } >>.git/info/exclude
    fi
    # The self-play grows from session to session: when the tree outgrows the limit, the largest
    # archive files stay behind (stage 1 then has fewer games to draw from).
    local size file
    size=$(travelling_mib)
    while ((size > limit_mib)); do
        file=$(find "$lease/archives" -type f -printf '%s %p\n' | sort -rn | head -1 | cut -d' ' -f2-)
        if [[ -z "$file" ]]; then
            say "too large for the device tool ($size MiB) even without the archives: run unpack"
            exit 1
        fi
        rm -f "$file"
        say "left out $(basename "$file") to fit"
        size=$(travelling_mib)
    done
    say "the tree that travels: $size MiB (limit $limit_mib); $(ls "$lease"/whl | wc -l) wheels for Python $pyver"
    say "ready: run the device with command \"bash scripts/gpu_lease.sh train 9\", carry [\"$lease\"], timeout_s 600;"
    say "then scripts/gpu_lease.sh unpack FILES_AT (never commit before unpack: the index lacks weights/)"
}

unpack() {
    git reset -q HEAD -- "${left_out[@]}"
    sed -i "\|^$exclude_begin\$|,\|^$exclude_end\$|d" .git/info/exclude
    say "the index is back as HEAD has it for ${left_out[*]}"
    local from=${1:-}
    if [[ -n "$from" ]]; then
        mkdir -p runs/lease
        cp -v "$from"/* runs/lease/ >&2
        if [[ -f runs/lease/lease.tar.gz ]]; then
            tar -xzf runs/lease/lease.tar.gz -C runs/lease
        fi
        say "the networks that came back are in runs/lease/; measure them as docs/training.md says"
    fi
}

train() {
    local minutes=${1:?$usage}
    local smoke=0
    if [[ "$minutes" == --smoke ]]; then
        smoke=1
        minutes=20 # a deadline only: the CPU takes about 10 minutes
    fi
    local out=${OUT:-runs/lease-out}
    local run=${LEASE_RUN:-runs/lease}
    mkdir -p "$out" "$run"
    out=$(cd "$out" && pwd)
    local log="$run/lease.log"
    exec > >(tee -a "$log") 2>&1
    local started=$SECONDS
    export PYTHONUNBUFFERED=1
    local python=${PYTHON:-python3}
    if [[ -d "$lease/whl" ]] && compgen -G "$lease/whl/*.whl" >/dev/null && ! "$python" -c 'import keras' 2>/dev/null; then
        "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
            "$lease"/whl/*.whl
        export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}
    else
        export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
    fi
    if ((smoke == 0)); then
        export KERAS_BACKEND=${KERAS_BACKEND:-jax}
        command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
    fi
    "$python" -c 'import keras, sys; print("gpu_lease: Python", sys.version.split()[0], "Keras", keras.__version__, "on", keras.backend.backend())'
    local sources=("$lease/archives/kgs" "$lease/archives/tom9d")
    [[ -d "${sources[0]}" ]] || sources=("${DLGO_DATA:-../shared/data}/kgs" "${DLGO_DATA:-../shared/data}/tom9d")
    local jobs
    jobs=$(nproc)
    # Helpers and the data job stay off the GPU: JAX takes most of its memory in each process.
    copy_net() { # a network with its card (dlgo.zero.handover.copy_model)
        JAX_PLATFORMS=cpu "$python" -c 'import sys; from pathlib import Path; from dlgo.zero.handover import copy_model
copy_model(Path(sys.argv[1]), Path(sys.argv[2]))' "$1" "$2"
    }

    local deadline=$((started + minutes * 60))
    # seconds a stage may take: up to the deadline, less 40 s to keep its best round when stopped
    left() { echo $((deadline - SECONDS - 40 > 10 ? deadline - SECONDS - 40 : 10)); }
    keep_best() { # a stopped `teacher train`: its best finished round (--rounds 0 trains none)
        "$python" -m dlgo.zero.teacher train --data "$1" --init "$2" --out "$3" --rounds 0 >/dev/null 2>&1 || true
    }

    # The data of stages 9, 2 and 3 is made on one core meanwhile: stage 1's training runs on the GPU.
    local offset folder t=weights/zero-9x9-teacher
    local k=("$t"/pachi20k-pachi20k-*)
    rm -rf "$run/mix1319" "$run/mixed" "$run/nine"
    (
        export JAX_PLATFORMS=cpu
        offset=1000
        for folder in selfplay/13x13/*/ selfplay/19x19/*/; do
            "$python" -m dlgo.zero.teacher split "$folder" --out "$run/mix1319" --holdout-every 8 --iteration-offset $offset
            offset=$((offset + 1000))
        done
        # Pachi's 9x9 games: the 20,000-playout ones twice, as weights/zero-9x9-10x128.keras had them
        "$python" -m dlgo.zero.teacher convert "$t/pachi-pachi" "$t/pachi-pachi-2a" "$t/pachi-pachi-2b" "${k[@]}" \
            "${k[@]}" --learn-from pachi-a pachi-b pachi20k-a pachi20k-b --out "$run/nine"
        offset=1000
        for folder in selfplay/9x9/*/; do
            "$python" -m dlgo.zero.teacher split "$folder" --out "$run/nine" --holdout-every 8 --iteration-offset $offset
            offset=$((offset + 1000))
        done
        cp -r "$run/nine" "$run/mixed" # every size: the 9x9 data and the other sizes' self-play
        for folder in selfplay/13x13/*/ selfplay/19x19/*/; do
            "$python" -m dlgo.zero.teacher split "$folder" --out "$run/mixed" --holdout-every 8 --iteration-offset $offset
            offset=$((offset + 1000))
        done
    ) >"$run/data.log" 2>&1 &
    local data_pid=$!

    # 1. supervised on the human games: the time not kept for the other stages
    if ((smoke)); then
        "$python" -m dlgo.train supervised --out "$run/sup" --encoder zero --network zero --size 19 --blocks 10 \
            --filters 128 --init weights/zero-19x19.keras --sources "${sources[@]}" --data "$run/data19" \
            --games 24 --test-games 8 --epochs 2 --steps-per-epoch 3 --batch-size 32 --val-positions 64 \
            --warmup-steps 1 --lr 1e-3 --value-weight 0.25 -j "$jobs" --max-minutes 1
    else
        local sup_minutes
        sup_minutes=$(awk -v m="$minutes" -v r="${LEASE_RESERVE:-5.5}" 'BEGIN { v = m - r; printf "%.1f", v < 1 ? 1 : v }')
        PYTHON=$python bash scripts/gpu_train.sh "$run/sup" "$sup_minutes" --init weights/zero-19x19.keras \
            --sources "${sources[@]}" --data "$run/data19" --games "${LEASE_GAMES:-40000}" -j "$jobs" --lr 1e-3 \
            --warmup-steps 200
    fi
    copy_net "$run/sup/model.keras" "$run/net/zero-19x19-sup.keras"
    cp "$run/net/zero-19x19-sup.keras" "$out/"
    say "stage 1 done at $((SECONDS - started)) s"
    wait "$data_pid" || say "making the data of stages 9, 2 and 3 failed ($run/data.log)"
    cat "$run/data.log"
    say "data of stages 9, 2 and 3 ready at $((SECONDS - started)) s"

    # 9. the 9x9 network, every layer, komi varied; SGD 0.005 learnt the komi about twice as fast a
    # step as 0.001 and played level with the shipped network after 600 steps (docs/zero-training.md)
    local steps9=500 rounds9=20 nine_seconds=${LEASE_NINE:-120}
    ((smoke)) && steps9=2 rounds9=1 nine_seconds=600
    copy_net weights/zero-9x9-10x128.keras "$run/net/zero-9x9-komi.keras"
    local nine_limit=$(($(left) < nine_seconds ? $(left) : nine_seconds))
    if timeout -s INT "$nine_limit" "$python" -m dlgo.zero.teacher train --data "$run/nine" \
        --init "$run/net/zero-9x9-komi.keras" --out "$run/nine-net" --rounds $rounds9 --steps $steps9 \
        --batch-size 256 --lr 0.005 --komi-jitter 1.5; then
        say "stage 9 done at $((SECONDS - started)) s"
    else
        say "stage 9 stopped at $((SECONDS - started)) s (its time, or an error above)"
        keep_best "$run/nine" "$run/net/zero-9x9-komi.keras" "$run/nine-net"
    fi
    cp "$run/nine-net/zero-9x9-komi.keras" "$out/" 2>/dev/null || true
    # the best round is the best at the games' own komi, which reading the komi does not lower: the
    # last round, with the most komi-varied steps, comes back too (both measured by komi_sensitivity)
    local last
    last=$(find "$run/nine-net" -name 'round-*.keras' 2>/dev/null | sort | tail -1 || true)
    [[ -n "$last" ]] && cp "$last" "$out/zero-9x9-komi-last.keras"

    # 2. the value head on 13x13 and 19x19 self-play (the recipe of weights/zero-13x13.keras);
    # each stage stops at the deadline, keeping its best round so far
    local steps2=150 rounds2=3 steps3=400 rounds3=2
    ((smoke)) && steps2=2 rounds2=1 steps3=2 rounds3=1
    copy_net "$run/net/zero-19x19-sup.keras" "$run/net/zero-1319-value.keras"
    if timeout -s INT "$(left)" "$python" -m dlgo.zero.teacher train --data "$run/mix1319" \
        --init "$run/net/zero-1319-value.keras" --out "$run/value" --heads value --value-q-weight 0.5 \
        --rounds $rounds2 --steps $steps2 --batch-size 128 --lr 0.005; then
        cp "$run/value/zero-1319-value.keras" "$out/"
        say "stage 2 done at $((SECONDS - started)) s"

        # 3. every layer on every size: Pachi's 9x9 games and the self-play of the three sizes, the
        # counted games' komi varied (the 9x9 network ignores komi: docs/zero-training.md, "Komi varied
        # after the game")
        copy_net "$run/value/zero-1319-value.keras" "$run/net/zero-mixed.keras"
        if timeout -s INT "$(left)" "$python" -m dlgo.zero.teacher train --data "$run/mixed" \
            --init "$run/net/zero-mixed.keras" --out "$run/mixed-net" --rounds $rounds3 --steps $steps3 \
            --batch-size 256 --lr 0.001 --komi-jitter 1.5; then
            cp "$run/mixed-net/zero-mixed.keras" "$out/"
            say "stage 3 done at $((SECONDS - started)) s"
        else
            say "stage 3 stopped at $((SECONDS - started)) s (the deadline, or an error above)"
            keep_best "$run/mixed" "$run/net/zero-mixed.keras" "$run/mixed-net"
            cp "$run/mixed-net/zero-mixed.keras" "$out/" 2>/dev/null || true
        fi
    else
        say "stage 2 stopped at $((SECONDS - started)) s (the deadline, or an error above)"
        keep_best "$run/mix1319" "$run/net/zero-1319-value.keras" "$run/value"
        cp "$run/value/zero-1319-value.keras" "$out/" 2>/dev/null || true
    fi

    tar -czf "$out/lease.tar.gz" --ignore-failed-read "$log" "$run"/data.log "$run"/net/*.card.json \
        "$run"/value/*.card.json "$run"/value/*.rounds.jsonl "$run"/mixed-net/*.card.json \
        "$run"/nine-net/*.card.json "$run"/nine-net/*.rounds.jsonl \
        "$run"/mixed-net/*.rounds.jsonl "$run"/sup/state.json "$run"/sup/log.csv "$run"/sup/curves.png 2>/dev/null || true
    say "done in $((SECONDS - started)) s: $(ls "$out" | tr '\n' ' ')"
}

case "${1:-}" in
pack) shift && pack "$@" ;;
unpack) shift && unpack "$@" ;;
train) shift && train "$@" ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
