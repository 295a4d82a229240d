#!/usr/bin/env bash
# The README's "What has run on a GPU", written from the CSV files of a GPU run
# (book/data/*_SUFFIX.csv, made by scripts/import_gpu_run.sh), so that it says what the files
# say: make test fails when the README's part between its markers differs from this output.
#
#   scripts/gpu_facts.sh [SUFFIX]       (default h100)
set -euo pipefail
sfx=${1:-h100}
d=book/data
for f in gpu_runs gpu_tests gpu_sanitizer mlp_vs_torch handshake allreduce_n2 allreduce_n4; do
    [ -f "$d/${f}_$sfx.csv" ] || { echo "gpu_facts: no $d/${f}_$sfx.csv" >&2; exit 2; }
done
# The machine line of the runs: the GPU, the host, the day and the commit.
line=$(head -1 "$d/gpu_runs_$sfx.csv")
gpu=$(sed -n 's/^# machine: \([^;]*; [^;]*; [^;]*\); \([0-9-]*\), commit.*/\1/p' <<<"$line")
day=$(sed -n 's/^# machine: [^;]*; [^;]*; [^;]*; \([0-9-]*\), commit.*/\1/p' <<<"$line")
commit=$(sed -n 's/.*commit \([0-9a-f]*\).*/\1/p' <<<"$line")
[ -n "$gpu" ] && [ -n "$day" ] && [ -n "$commit" ] || { echo "gpu_facts: cannot read the machine line: $line" >&2; exit 2; }
rows() { grep -v '^#' "$1" | tail -n +2; }

echo "**What has run on a GPU.** Once, on $day, at commit $commit: $gpu. The figures below are"
echo "\`book/data/*_$sfx.csv\`, imported from the run's logs by \`scripts/import_gpu_run.sh\`;"
echo "this part of the README is written from them by \`scripts/gpu_facts.sh\`."
echo
echo "| command | ranks | exit | loss | train acc | test acc |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
rows "$d/gpu_runs_$sfx.csv" | awk -F, '
    function pct(x) { return x == "" ? "" : sprintf("%.2f%%", 100 * x) }
    { printf "| `%s` | %s | %s | %s | %s | %s |\n", $2, $3, $4, ($4 == 0 ? $5 : "refused"),
             pct($6), pct($7) }'
echo
echo "That host's CPU did not run the same commands, so there is no CPU column: another"
echo "machine's CPU run would differ in its last digits for reasons of its own (chapter 1, \"How"
echo "much the machine changes the numbers\")."
echo
rows "$d/gpu_runs_$sfx.csv" | awk -F, '
    $3 == 2 && $4 == 0 && $1 != "param_server" { n++; seen[$5] = 1; if (n == 1) first = $5 }
    END { k = 0; for (x in seen) k++
          if (k == 1) printf "The %d strategies run on two ranks with the ring'"'"'s arithmetic end with the same loss, %s.\n", n, first
          else printf "The %d strategies run on two ranks end with %d different losses.\n", n, k }'
rows "$d/gpu_tests_$sfx.csv" | awk -F, '{
    printf "The test binary with `DPS_TEST_DEVICE=cuda` (MPS %s): %d tests, %d passed, %d failed: eight computed a one-device reference in the test'"'"'s process and then forked ranks, which died at their first CUDA call, and one found that `--strategy direct`'"'"'s banner claimed reads of the peers'"'"' memory while the channel ring ran.\n", $2, $3, $4, $5 }'
rows "$d/gpu_sanitizer_$sfx.csv" | awk -F, '
    $1 == "leak_check" { printf "compute-sanitizer'"'"'s leak check of `%s`: %.0f MiB leaked (cuBLAS'"'"'s handle, never destroyed);", $2, $4 / 1048576 }
    $1 == "racecheck"  { printf " racecheck of `%s`: %d hazards;", $2, $3 }
    $1 == "memcheck"   { printf " memcheck of `%s`: %d errors.\n", $2, $3 }'
echo
echo "| \`./mlp\` beside PyTorch eager, same GPU | ./mlp (samples/s) | PyTorch (samples/s) | ours / PyTorch |"
echo "| --- | ---: | ---: | ---: |"
rows "$d/mlp_vs_torch_$sfx.csv" | awk -F, '{
    printf "| hidden %s, batch %s | %d | %d | %.2f |\n", $2, $3, $4, $5, $4 / $5 }'
echo
rows "$d/handshake_$sfx.csv" | awk -F, '
    { us[$1] = $3 }
    END { printf "Two processes on the one GPU, one way, 8 bytes: a CUDA-IPC copy and a host flag took %s us without CUDA MPS and %s us with it; `./pingpong`, %s us and %s us.\n",
          us["ipc_flag"], us["ipc_flag_mps"], us["pingpong"], us["pingpong_mps"] }'
for n in 2 4; do
    rows "$d/allreduce_n${n}_$sfx.csv" | awk -F, -v n="$n" '
        $3 + 0 > best { best = $3 + 0; at = $1; mem = $9 + 0 }
        END { printf "`./allreduce_bench --n_gpus %d --device cuda` with MPS (the channel ring: no GPU windows yet): at best %.1f GB/s of bus bandwidth (%s B), where a copy of the same bytes ran at %.1f GB/s.\n",
              n, best, at, mem }'
done
echo
echo "Never run on a GPU: \`--strategy nccl\` with more than one GPU (one GPU allows one rank),"
echo "CUDA IPC between two GPUs, and everything changed since commit $commit: the launcher's"
echo "refusal to fork a process that has opened CUDA, the tests' one-device references in a"
echo "child of their own, closing the device (cuBLAS's handle destroyed, buffers counted), the"
echo "banner's word on ranks that share a GPU and on MPS, \`--strategy direct\`'s banner, chapter"
echo "8's windows in GPU memory (one-shot, two-shot and the direct ring on a GPU), the"
echo "training set resident on the GPU, the non-blocking streams (the rank's, and chapter 6's"
echo "communication thread's own), the pinned upload of the step's indices, the bias"
echo "gradient in tiles, and a layer's forward in one cuBLASLt product (the bias and ReLU"
echo "epilogues). The CPU checks what it can of these (\`make test"
echo "DEVICE=twin\` opens the CPU as CUDA is opened, so that a fork after it is refused as it"
echo "fails on a GPU, and its copies and reductions wait for a sync as a GPU's do); the rest"
echo "waits for the next GPU."
