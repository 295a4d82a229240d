#!/usr/bin/env bash
# Turn the logs of a GPU run into the book's CSV files, so that the README and the book draw
# their GPU figures from files in the repository (book/data/*_SUFFIX.csv), each headed by the
# machine it was measured on.
#
#   scripts/import_gpu_run.sh LOGDIR SUFFIX      e.g. ../shared/gpu/2026-11-26 h100
#
# LOGDIR holds the logs of one contact with a GPU machine: run1-log.txt (the programs, every
# strategy, ./mlp beside PyTorch, ./pingpong, the sanitizers and the tests, without MPS),
# limits-no-mps.txt (shared/gpu/limits.cu), allreduce-mps-n2.txt and allreduce-mps-n4.txt
# (./allreduce_bench with MPS) and README.md (the figures of the runs with MPS whose raw logs
# were not kept). Missing files are said and skipped. The files written:
#   gpu_runs_SUFFIX.csv       each program and strategy run: ranks, exit status, final figures
#   gpu_tests_SUFFIX.csv      the test binary's synthesis
#   gpu_sanitizer_SUFFIX.csv  compute-sanitizer's leak check, racecheck and memcheck
#   mlp_vs_torch_SUFFIX.csv   ./mlp against PyTorch eager on the same GPU, samples/s
#   pingpong_SUFFIX.csv       ./pingpong between two ranks on the one GPU, without MPS
#   handshake_SUFFIX.csv      one-way time of the smallest message, with and without MPS
#   gpu_copy_SUFFIX.csv       a device-to-device copy and a peer read through CUDA IPC
#   gpu_floors_SUFFIX.csv     a kernel launch and its wait, an event's wait, CUDA's start
#   allreduce_n2_SUFFIX.csv, allreduce_n4_SUFFIX.csv   ./allreduce_bench, with MPS
#   gpu_kernels_SUFFIX.csv    Nsight Compute's time of a few kernels, ours and PyTorch's
set -euo pipefail
dir=${1:?usage: scripts/import_gpu_run.sh LOGDIR SUFFIX}
sfx=${2:?usage: scripts/import_gpu_run.sh LOGDIR SUFFIX}
out=book/data
log=$dir/run1-log.txt
[ -f "$log" ] || { echo "import_gpu_run: no $log" >&2; exit 2; }

# The machine line: the GPU and driver (nvidia-smi's line), the CUDA and OS of the run's log.
gpu=$(awk -F', ' '/^== env/ {getline; print $1 ", driver " $2 ", " $3; exit}' "$log")
cuda=$(grep -o 'cuda_[0-9]*\.[0-9]*' "$log" | head -1 | sed 's/cuda_/CUDA /')
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"/\1/p' "$log" | head -1)
cpu=$(sed -n 's/^# machine: \([^,]*\), \([0-9]* cores\).*/\1, \2/p' "$dir"/allreduce-mps-n2.txt 2>/dev/null | head -1)
day=$(basename "$dir")
at=$(grep -o 'at [0-9a-f]\{7,\}' "$dir/README.md" 2>/dev/null | head -1 | cut -c4-)
machine="# machine: $gpu; $cuda; host $cpu, $os; $day${at:+, commit $at}"

# gpu_runs: each command's figures: the last epoch line of a run that prints them (./mlp and
# ./ring, each followed in the log by a reference run whose final line is kept beside), else
# the final line of a --quiet run; a refused run has its exit status and no figures.
{
    echo "$machine; without MPS; from $(basename "$log")"
    echo "run,command,ranks,exit,loss,train_acc,test_acc,ref_command,ref_loss,ref_train_acc,ref_test_acc"
    awk '
    function row(key, cmd, ranks, refcmd) { k = key; c = cmd; n = ranks; rc = refcmd; want = 1; f = ""; r = "" }
    function pct(x) { sub(/%/, "", x); return sprintf("%.4f", x / 100) }
    /^== one device: .\/mlp/          { row("mlp", "./mlp --device cuda --epochs 3", 1, "./mlp --device cpu --epochs 3") }
    /^== .\/ring --n_gpus 4 on cuda/  { row("ring4", "./ring --n_gpus 4 --device cuda --epochs 3", 4, "./mlp --batch_size 256 --epochs 3") }
    /^== every strategy/             { strategies = 1 }
    /^== speed/                      { strategies = 0 }
    /^-- [a-z_0-9]+$/ && strategies  { row($2, "./train --strategy " $2 " --n_gpus 2 --device cuda --epochs 2", 2, "") }
    /^-- adamw fsdp 4 ranks/ { row("fsdp_adamw4", "./train --strategy fsdp --optimizer adamw --n_gpus 4 --device cuda (the rest was not logged)", 4, "") }
    /^-- nccl 1 rank/        { row("nccl1", "./train --strategy nccl --n_gpus 1 --device cuda --epochs 2", 1, "") }
    /^-- nccl 2 ranks/       { row("nccl2", "./train --strategy nccl --n_gpus 2 --device cuda --epochs 2", 2, "") }
    want && /^epoch [0-9]+\/[0-9]+ / { f = $4 "," pct($6) "," pct($8) }
    want && /^final: loss/ { if (f == "") f = $3 "," $5 "," $7; else r = $3 "," $5 "," $7 }
    want && /^\[exit [0-9]+\]/ {
        st = $2; sub(/\]/, "", st)
        if (rc != "" && r == "" && st == 0) { first = st; next }  /* the reference runs next */
        print k "," c "," n "," (rc != "" ? first : st) "," (f == "" ? ",," : f) "," rc "," (r == "" ? ",," : r)
        want = 0
    }' "$log"
} > "$out/gpu_runs_$sfx.csv"

# gpu_sanitizer: compute-sanitizer's summaries, in the order run1-log.txt ran them: the leak
# check of ./mlp, racecheck of ./mlp, memcheck of an FSDP run with AdamW (its README).
{
    echo "$machine; compute-sanitizer, without MPS; from $(basename "$log")"
    echo "check,program,errors,leaked_bytes"
    awk '/^== compute-sanitizer/ { on = 1 } !on { next }
        /LEAK SUMMARY:/ { leaked = $4 }
        /RACECHECK SUMMARY:/ { print "racecheck,./mlp --device cuda," $4 ",0"; leaked = "" }
        /ERROR SUMMARY:/ {
            if (leaked != "") print "leak_check,./mlp --device cuda," $4 "," leaked
            else print "memcheck,./train --strategy fsdp --optimizer adamw --device cuda," $4 ",0"
            leaked = "" }
        /^\[----\]/ { exit }' "$log"
} > "$out/gpu_sanitizer_$sfx.csv"

# gpu_tests: the synthesis of the test binary.
{
    echo "$machine; DPS_TEST_DEVICE=cuda build/tests/book -j12, without MPS; from $(basename "$log")"
    echo "run,mps,tested,passing,failing,crashing"
    awk '/Synthesis: Tested:/ { gsub(/\|/, ""); print "1,off," $4 "," $6 "," $8 "," $10; exit }' "$log"
} > "$out/gpu_tests_$sfx.csv"

# mlp_vs_torch: the samples/s of the third epoch of ./mlp, and PyTorch's line, per case.
{
    echo "$machine; ./mlp --device cuda (3rd epoch) and shared/gpu/torch_mlp.py (PyTorch eager), same GPU; from $(basename "$log")"
    echo "case,hidden,batch,mlp,pytorch"
    awk '
    /^-- hidden [0-9,]+ batch [0-9]+$/ { h = $3; b = $5 }
    /^epoch 3\/3/ && h { for (i = 1; i <= NF; i++) if ($i == "samples/s") m = $(i - 1) }
    /^torch .* samples\/s/ && h {
        for (i = 1; i <= NF; i++) if ($i == "samples/s") t = $(i - 1)
        key = h; gsub(/,/, "x", key); print key "x" b "," key "," b "," m "," t; h = "" }' "$log"
} > "$out/mlp_vs_torch_$sfx.csv"

# pingpong: the table of ./pingpong --n_gpus 2 --device cuda.
{
    echo "$machine; ./pingpong --n_gpus 2 --device cuda, two ranks on the one GPU through CUDA IPC, without MPS; from $(basename "$log")"
    echo "size,oneway_us,oneway_gbps,sendrecv_us,sendrecv_gbps,wrong"
    awk '/^# pingpong:/ { on = 1 } on && /^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$/ {
        print $1 "," $2 "," $3 "," $4 "," $5 "," $6 } on && /alpha-beta/ { exit }' "$log"
} > "$out/pingpong_$sfx.csv"

# handshake: the smallest message one way, without MPS (measured here) and with it (the
# figures of the README of the run, whose logs were not kept).
{
    echo "$machine; one way, 8 B, between two processes on one GPU"
    echo "case,mps,us,source"
    [ -f "$dir/limits-no-mps.txt" ] && awk '/one-way via IPC copy/ { on = 1; next }
        on && $1 == 8 { print "ipc_flag,off," $2 ",limits-no-mps.txt (a CUDA-IPC copy and a host flag)"; exit }' "$dir/limits-no-mps.txt"
    awk -F, 'NR > 2 && $1 == 8 { print "pingpong,off," $2 ",run1-log.txt (./pingpong)"; exit }' "$out/pingpong_$sfx.csv"
    if [ -f "$dir/README.md" ]; then
        v=$(grep -o 'With MPS: raw [0-9.]* us' "$dir/README.md" | grep -o '[0-9.]*' | head -1)
        [ -n "$v" ] && echo "ipc_flag_mps,on,$v,README.md (runs 3-4; raw log not kept)"
        v=$(grep -o 'our pingpong [0-9.]* us + n' "$dir/README.md" | grep -o '[0-9.]*' | head -1)
        [ -n "$v" ] && echo "pingpong_mps,on,$v,README.md (runs 3-4; raw log not kept)"
    fi
} > "$out/handshake_$sfx.csv"

# gpu_copy: limits.cu's copy within the GPU and read from a peer process.
if [ -f "$dir/limits-no-mps.txt" ]; then
    {
        echo "$machine; shared/gpu/limits.cu: cudaMemcpy device to device, and a read of a peer process's buffer through CUDA IPC (bytes counted once)"
        echo "size,d2d_us,d2d_gbps,peer_us,peer_gbps"
        awk '/d2d copy/ { on = 1; next } /one-way via IPC/ { exit }
            on && NF == 5 && $1 ~ /^[0-9]+$/ { print $1 "," $2 "," $3 "," $4 "," $5 }' "$dir/limits-no-mps.txt"
    } > "$out/gpu_copy_$sfx.csv"
    {
        echo "$machine; shared/gpu/limits.cu, one process"
        echo "what,us"
        awk '/^# launch \+ stream sync:/ { print "launch_sync," $6 }
             /^# event record \+ sync:/   { print "event_sync," $6 }
             /^# cuda init/               { print "cuda_init," $4 * 1000 }' "$dir/limits-no-mps.txt"
    } > "$out/gpu_floors_$sfx.csv"
else
    echo "import_gpu_run: no limits-no-mps.txt: gpu_copy_$sfx.csv not written" >&2
fi

# allreduce: ./allreduce_bench's rows, the contenders that ran.
for n in 2 4; do
    f=$dir/allreduce-mps-n$n.txt
    [ -f "$f" ] || { echo "import_gpu_run: no $f" >&2; continue; }
    {
        echo "$machine; $n ranks on the one GPU, with MPS; ./allreduce_bench --device cuda; from $(basename "$f")"
        echo "size,ours_us,ours_busbw,ring_us,ring_busbw,ps_us,ps_busbw,memcpy_us,memcpy_bw,wrong"
        awk '$1 ~ /^[0-9]+$/ && NF >= 16 { print $1 "," $2 "," $3 "," $4 "," $5 "," $8 "," $9 "," $14 "," $15 "," $16 }' "$f"
    } > "$out/allreduce_n${n}_$sfx.csv"
done
# kernels: Nsight Compute's times of ./mlp's and PyTorch's kernels at the 4096 shape
# (ncu-mlp-vs-torch-4096.txt): microseconds each, for the bias gradient (ours, and PyTorch's
# column reduction) and the ReLU's backward.
f=$dir/ncu-mlp-vs-torch-4096.txt
if [ -f "$f" ]; then
    {
        echo "$machine; ncu, gpu__time_duration, ./mlp --device cuda --hidden 4096,4096 --batch_size 1024 and PyTorch eager at the same shape; from $(basename "$f")"
        echo "kernel,us_each"
        awk '/ us each / { for (i = 1; i < NF; i++) if ($i == "each") { k = $(i + 1); if (k == "void") k = $(i + 2); break }
               us = $(i - 2) }
             k ~ /^bias_backward_kernel/ && !b++ { print "ours/bias_backward," us }
             k ~ /^relu_backward_kernel/ && !r++ { print "ours/relu_backward," us }
             k ~ /^native::reduce_kernel/ && !t++ { print "torch/reduce," us }' "$f"
    } > "$out/gpu_kernels_$sfx.csv"
else
    echo "import_gpu_run: no $f: gpu_kernels_$sfx.csv not written" >&2
fi
echo "import_gpu_run: $(ls "$out"/*_"$sfx".csv | wc -l) files in $out from $dir"
