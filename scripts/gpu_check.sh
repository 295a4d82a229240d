#!/usr/bin/env bash
# Issue 26's checks on a GPU machine, as one bounded script, run in the packed build there:
#   bash .gpu/on-device bash scripts/gpu_check.sh        (../shared/gpu/README.md)
# on-device starts CUDA MPS first (unless NO_MPS=1); this script runs
#   1. compute-sanitizer's leak check (every process of the run) on ./mlp, ./ring --n_gpus 2,
#      ./train --strategy fsdp and ./train --strategy nccl --n_gpus 1: 0 bytes leaked each;
#   2. the test binary with DPS_TEST_DEVICE=cuda, with MPS;
#   3. the same without MPS (it stops the daemon on-device started), time allowing;
# and writes what it saw under $OUT (or /tmp/out): leaks.txt, tests-mps.txt, tests-no-mps.txt,
# and summary.txt, one line per check.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
summary=$out/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
lim() { local s=$1; shift; timeout -k 3 "$s" "$@"; }

say "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1); commit $(git rev-parse --short HEAD 2>/dev/null || echo '(a packed build)')"
say "mps: $([ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] && echo running || echo off)"

leak() { # leak NAME COMMAND...: compute-sanitizer's leak check over every process of the run
    local name=$1; shift
    local log
    log=$(lim 180 compute-sanitizer --tool memcheck --leak-check full --target-processes all \
        --error-exitcode 9 "$@" 2>&1)
    local st=$?
    printf '== %s: %s (exit %d)\n%s\n' "$name" "$*" "$st" "$log" >> "$out/leaks.txt"
    local bytes
    bytes=$(grep -o 'LEAK SUMMARY: [0-9,]* bytes' <<<"$log" | grep -o '[0-9,]*' | tr -d , |
        awk '{ s += $1 } END { print s + 0 }')
    say "leak check, $name: exit $st, $bytes bytes leaked, $(grep -c 'ERROR SUMMARY: 0 errors' <<<"$log") processes with 0 errors"
}
leak mlp ./mlp --device cuda --epochs 1 --train_size 1024 --quiet
leak ring2 ./ring --n_gpus 2 --device cuda --epochs 1 --train_size 512 --quiet
leak fsdp ./train --strategy fsdp --n_gpus 2 --device cuda --epochs 1 --train_size 512 --quiet
leak nccl1 ./train --strategy nccl --n_gpus 1 --device cuda --epochs 1 --train_size 512 --quiet

tests() { # tests NAME: the test binary on cuda
    DPS_TEST_DEVICE=cuda lim "${TESTS_S:-240}" build/tests/book -j"${JOBS:-12}" --timeout 120 \
        --short-filename > "$out/tests-$1.txt" 2>&1
    local st=$?
    say "tests, $1: exit $st; $(grep -h 'Synthesis' "$out/tests-$1.txt" | tail -1)"
    grep -h '^\[FAIL\]' "$out/tests-$1.txt" | head -20 | tee -a "$summary"
}
tests mps
if [ -n "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && command -v nvidia-cuda-mps-control >/dev/null; then
    echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
    sleep 1
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
fi
tests no-mps
