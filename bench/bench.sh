#!/bin/bash
# make bench: every measured figure of the book, as CSV files in book/data/ (first line: the
# machine), in parts: chapter 1's accuracies, their spread across build variants, GEMMs
# and start-up; chapter 2's transport;
# chapter 3's server; the all-reduce tables at N = 2 and 4; the ring's collectives; chapter
# 5's programs; chapter 6's overlap; chapter 7's ring against ZeRO-1 and its stages; chapter
# 8's choices measured against copies built without them; samples/s per strategy at N = 1,
# 2, 4; ./mlp beside PyTorch and ./train beside DDP; the timelines of chapters 6 and 7; and
# appendix B's fault trials; chapter 9's test hosts and chapter 10's gradient compression beside
# DDP's hooks, and its census of the gradient against half's range; chapter 11's tensor
# parallelism and grid beside data parallelism. BENCH_PARTS="collectives
# train" records only those parts (the list is ALL_PARTS below), so that one table can be
# recorded again alone; BENCH_OUT=DIR writes the files elsewhere.
set -u
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-book/data}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
  PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe # Open MPI 4, and 5 (PRRTE)
status=0
machine="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -sr), $(date -u +%F)"
ITERS=${BENCH_ITERS:-20}
# Debian's python3-torch belongs to Debian's python, which a pyenv or venv may shadow
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
MAX=${BENCH_MAX:-256M}
ALL_PARTS="accuracy spread single startup pingpong ps allreduce collectives programs overlap zero stages ablations crossovers train mlp ddp timelines faults hosts compress compress_model compress_noise half_range tensor gpu"
PARTS=${BENCH_PARTS:-$ALL_PARTS}

# Chapter 1's spread: ./mlp's and ./ring's last epoch in every build variant of
# scripts/matrix.sh (another compiler, no OpenBLAS, other BLAS kernels, 1 and 8 cores...),
# the sample runs only, without the variants' suites (make matrix runs those).
part_spread() {
  echo "bench: the spread of chapter 1's figures across the build variants"
  SPREAD_OUT="$out/spread.csv" scripts/matrix.sh --spread || status=1
  echo
}

part_allreduce() {
  for n in 2 4; do
    echo "bench: all-reduce, $n ranks"
    ./allreduce_bench --n_gpus "$n" -b 4K -e "$MAX" -f 4 -n "$ITERS" -w 5 \
      --csv "$out/allreduce_n$n.csv" || status=1
    cp "$out/allreduce_n$n.csv" "$out/direct_n$n.csv" # chapter 8 plots the same run
    echo
  done
}

# A CSV on stdin as aligned columns (column(1) is not on every Debian).
show() { awk -F, '{ printf "%-14s", $1; for (i = 2; i <= NF; i++) printf " %14s", $i; print "" }'; }

# The median of the numbers on stdin, one a line (mawk has no asort).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# The samples/s and ms per step of a --log's median epoch after the first (by samples/s,
# the lower middle as median() takes it), the statistic bench/torch_mlp.py prints for PyTorch.
epoch_median() {
  awk -F, 'NR > 2 { print $6, $7 }' "$1" | sort -g | awk '{ v[NR] = $0 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# timeline REGEX FILE: the seconds and the per cent, summed, of the phases of a program's
# "time:" line (data 0.011 s (1.1%) | compute ...) whose names match REGEX; "- -" if none.
timeline() {
  awk -F'|' -v re="^($1)$" '/^time:/ { for (i = 1; i <= NF; i++) {
      v = $i; sub(/^ *(time: )?/, "", v); n = v; sub(/ [0-9.]+ s .*/, "", n)
      if (n !~ re) continue
      x = v; sub(/^[^0-9]*/, "", x); sub(/ s .*/, "", x); p = v; sub(/.*\(/, "", p); sub(/%.*/, "", p)
      ts += x; tp += p; hit = 1 } }
    END { if (hit) printf "%.3f %.1f\n", ts, tp; else print "- -" }' "$2"
}

# A copy of this tree built with other flags, for the measurements of what a choice of the
# code buys (OpenBLAS, a yield, a push): variant NAME OPT [make arguments...] builds it in
# build/variants/NAME (tar keeps the files' times, so a second build remakes only what changed).
variant() {
  local dir=build/variants/$1 opt=$2; shift 2
  mkdir -p "$dir"
  if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$dir"
  else # an unpacked handout: everything but what the builds made
    tar -cf - --exclude=./build --exclude=./book/book.pdf . | tar -xf - -C "$dir"
    (cd "$dir" && rm -f $(sed -n 's/^PROGRAMS *:= *//p' Makefile))
  fi
  make -C "$dir" -s NO_CUDA=1 OPT="$opt" "$@" >"$dir.log" 2>&1 ||
    { echo "bench: the variant $dir did not build: $(tail -1 "$dir.log")"; status=1; return 1; }
}

# Chapter 1's default run (./mlp, 3 epochs) with OpenBLAS and with the plain-C GEMM (a copy
# built with NO_BLAS=1): samples/s and ms per step of the last epoch, and the shares of the
# "time:" line's phases; three alternating rounds, medians.
part_single() {
  local dir round k log row csv="$out/single.csv"
  dir=$(mktemp -d)
  variant plain "-O3" NO_BLAS=1 mlp || { rm -rf "$dir"; return; }
  local progs=(./mlp build/variants/plain/mlp) names=(openblas plain)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      log=$dir/log
      if "${progs[$k]}" --epochs 3 --device cpu --log "$log" > "$log.out" 2>&1; then
        row=$(tail -1 "$log")
        echo "$(echo "$row" | cut -d, -f6) $(echo "$row" | cut -d, -f7) $(for ph in data compute update eval; do
          timeline "$ph" "$log.out" | cut -d' ' -f2; done | paste -sd' ')" >> "$dir/$k"
      else
        echo "bench: ${progs[$k]} failed: $(tail -1 "$log.out")"; status=1
      fi
    done
  done
  { printf '# machine: %s; ./mlp --epochs 3 (the last epoch; shares of the whole run), medians of 3 rounds\n' "$machine"
    echo "gemm,samples_per_s,step_ms,data_pct,compute_pct,update_pct,eval_pct"
    for k in 0 1; do
      [ -s "$dir/$k" ] && echo "${names[$k]},$(for c in 1 2 3 4 5 6; do awk -v c=$c '{ print $c }' "$dir/$k" | median; done | paste -sd,)"
    done; } > "$csv"
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# Chapter 1's lazy CUDA: how long a program takes to start and end when it loads nothing
# (./mlp --help) and when it is linked against cuBLAS, cuBLASLt and the CUDA runtime (a
# program that does nothing else), medians of 20 starts in 3 alternating rounds.
part_startup() {
  local dir cuda=${CUDA_HOME:-/usr/local/cuda} round k i t0 t1
  [ -e "$cuda/lib64/libcublas.so" ] || { echo "bench: no cuBLAS in $cuda, the start-up is not recorded"; return; }
  dir=$(mktemp -d)
  echo 'int main(void) { return 0; }' > "$dir/empty.c"
  cc "$dir/empty.c" -o "$dir/linked" -L"$cuda/lib64" -Wl,--no-as-needed -Wl,-rpath,"$cuda/lib64" \
     -lcublas -lcublasLt -lcudart || { echo "bench: cannot link against cuBLAS"; status=1; rm -rf "$dir"; return; }
  local cmds=("./mlp --help" "$dir/linked") names=(mlp_help linked_cublas)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      for i in $(seq 20); do
        t0=$(date +%s%N); ${cmds[$k]} > /dev/null; t1=$(date +%s%N)
        echo "$(( (t1 - t0) / 1000 ))" >> "$dir/$k"
      done
    done
  done
  { printf '# machine: %s; a start and an end of each, medians of 60 (3 alternating rounds of 20)\n' "$machine"
    echo "program,start_ms"
    for k in 0 1; do echo "${names[$k]},$(median < "$dir/$k" | awk '{ printf "%.2f", $1 / 1000 }')"; done; } > "$out/startup.csv"
  rm -rf "$dir"
  sed 1d "$out/startup.csv" | show
}

# Chapter 8's choices, each against the code without it: a copy built with no yield before
# a sleep (-DDPS_YIELD_POLLS=0), one whose two-shot pulls its second half rather than pushing
# it (-DDPS_TWO_SHOT_PULL), and one that neither binds a rank to a core nor yields while it
# spins (-DDPS_NO_BIND); the direct two-shot of 4 KiB and 1 MiB and the channel ring of 4 KiB
# at 2 and 4 ranks; three rounds, the variants' order alternating; the median, the fastest
# and the slowest round.
part_ablations() {
  local dir round k v cfg op n lo hi
  local variants=(book yield_off pull unbound) opts=("-O3" "-O3 -DDPS_YIELD_POLLS=0" "-O3 -DDPS_TWO_SHOT_PULL" "-O3 -DDPS_NO_BIND")
  local cfgs=("all_reduce_two_shot 2 4K 1M" "all_reduce_two_shot 4 4K 1M" "all_reduce 2 4K 4K" "all_reduce 4 4K 4K")
  dir=$(mktemp -d)
  for k in 1 2 3; do variant "${variants[$k]}" "${opts[$k]}" collectives || { rm -rf "$dir"; return; }; done
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 2 3 || echo 3 2 1 0); do
      v=./collectives; [ "$k" = 0 ] || v=build/variants/${variants[$k]}/collectives
      for cfg in "${cfgs[@]}"; do
        read -r op n lo hi <<< "$cfg"
        "$v" --op "$op" --n_gpus "$n" -b "$lo" -e "$hi" -f 256 -n 50 -w 10 2>&1 |
          awk -v p="${variants[$k]},$op,$n" '!/^#/ && NF && $1 ~ /^[0-9]+$/ { print p "," $1 "," $4 }' >> "$dir/rows" ||
          { echo "bench: $v --op $op failed"; status=1; }
      done
    done
  done
  { printf '# machine: %s; ./collectives -n 50 -w 10 of the tree and of copies built with other flags, 3 alternating rounds\n' "$machine"
    echo "key,variant,op,ranks,size,time_us,fastest_us,slowest_us"
    local key times
    for key in $(cut -d, -f1-4 "$dir/rows" | awk '!seen[$0]++'); do
      times=$(grep "^$key," "$dir/rows" | cut -d, -f5)
      echo "${key//,//},$key,$(echo "$times" | median),$(echo "$times" | sort -g | head -1),$(echo "$times" | sort -g | tail -1)"
    done
  } > "$out/ablations.csv"
  rm -rf "$dir"
  sed 1d "$out/ablations.csv" | cut -d, -f1,6- | show
}

# Chapter 8's chooser: one-shot, two-shot, the direct ring and all_reduce's own choice at 2, 3
# and 4 ranks, 1 KiB to 16 MiB; three rounds, the algorithms' order alternating, medians;
# one file per rank count, a column per algorithm.
part_crossovers() {
  local dir round k n op ops=(one_shot two_shot direct_ring auto)
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for n in 2 3 4; do
      for k in $( ((round % 2)) && echo 0 1 2 3 || echo 3 2 1 0); do
        op=${ops[$k]}
        ./collectives --op "all_reduce_$op" --n_gpus "$n" -b 1K -e 16M -f 4 -n 20 -w 5 2>&1 |
          awk '!/^#/ && NF && $1 ~ /^[0-9]+$/ { print $1, $4 }' >> "$dir/$n.$op"
        [ -s "$dir/$n.$op" ] || { echo "bench: ./collectives --op all_reduce_$op --n_gpus $n failed"; status=1; }
      done
    done
  done
  for n in 2 3 4; do
    { printf '# machine: %s; %s ranks, ./collectives --op all_reduce_ALGO -b 1K -e 16M -f 4 -n 20 -w 5, medians of 3 alternating rounds\n' "$machine" "$n"
      echo "size,one_shot_us,two_shot_us,direct_ring_us,auto_us"
      for sz in $(awk '{ print $1 }' "$dir/$n.one_shot" | sort -nu); do
        printf '%s' "$sz"
        for op in "${ops[@]}"; do printf ',%s' "$(awk -v s="$sz" '$1 == s { print $2 }' "$dir/$n.$op" | median)"; done
        echo
      done; } > "$out/crossovers_n$n.csv"
    echo "bench: the direct all-reduces at $n ranks"; sed 1d "$out/crossovers_n$n.csv" | show
  done
  rm -rf "$dir"
}

# Issue 29's figures, on a machine with a GPU (skipped without one): ./allreduce_bench
# --device cuda at 2 and 4 ranks, back to back (ours reads the peers' windows through CUDA
# IPC; the channel ring; a memcpy of the same bytes, the reference), and ./mlp --device cuda
# beside PyTorch eager on the same GPU at four shapes, each side's median epoch after the
# first, three alternating rounds. Files named for the GPU (allreduce_n2_h100.csv, ...);
# each run prints the targets' ratios. On the lent machine:
#   bash .gpu/on-device env BENCH_PARTS=gpu BENCH_OUT=$OUT bench/bench.sh
part_gpu() {
  command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
    { echo "bench: no GPU answers (nvidia-smi), the GPU's tables are not recorded"; return; }
  local gpu name line n csv dir round k cfg hidden b
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  gpu=$(echo "$name" | grep -oiE '[a-z][0-9]{2,3}' | head -1 | tr 'A-Z' 'a-z'); gpu=${gpu:-gpu}
  line="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1); host $machine"
  for n in 2 4; do
    csv="$out/allreduce_n${n}_$gpu.csv"
    if ./allreduce_bench --n_gpus "$n" --device cuda -b 4K -e 256M -f 4 -n 20 -w 5 --csv "$csv.tmp"; then
      { printf '# machine: %s; %s ranks on one GPU, ./allreduce_bench --device cuda -n 20 -w 5\n' "$line" "$n"
        sed 1d "$csv.tmp"; } > "$csv"
      echo "bench: $n ranks: ours against the reference (memcpy in busbw units) and the channel ring"
      awk -F, -v n="$n" 'NR > 2 { ref = $15 * 2 * (n - 1) / n
          printf "%10s  ours %9.2f us  %6.1f%% of the reference  %5.2fx the channel ring\n", $1, $2,
                 100 * $3 / ref, $4 / $2 }' "$csv"
    else
      echo "bench: ./allreduce_bench --n_gpus $n --device cuda failed"; status=1
    fi
    rm -f "$csv.tmp"
  done
  local cfgs=("128 64" "128 1024" "1024,1024 256" "4096,4096 1024")
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      for cfg in "${cfgs[@]}"; do
        read -r hidden b <<< "$cfg"
        if [ "$k" = 0 ]; then
          ./mlp --device cuda --hidden "$hidden" --batch_size "$b" --epochs 3 --quiet --log "$dir/log" >/dev/null &&
            epoch_median "$dir/log" >> "$dir/mlp.$b.$hidden"
        elif "$PY" -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; then
          "$PY" bench/torch_mlp.py "$b" 3 1 "$hidden" cuda >> "$dir/pytorch.$b.$hidden"
        fi
      done
    done
  done
  csv="$out/mlp_vs_torch_$gpu.csv"
  { printf '# machine: %s; ./mlp --device cuda and bench/torch_mlp.py (PyTorch eager) on the same GPU, the median epoch after the first of 3, medians of 3 alternating rounds\n' "$line"
    echo "case,hidden,batch,mlp,pytorch"
    for cfg in "${cfgs[@]}"; do
      read -r hidden b <<< "$cfg"
      echo "${hidden//,/x}x$b,${hidden//,/x},$b,$(awk '{ print $1 }' "$dir/mlp.$b.$hidden" 2>/dev/null | median),$(awk '{ print $1 }' "$dir/pytorch.$b.$hidden" 2>/dev/null | median)"
    done; } > "$csv"
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# Appendix B's fault trials: make faults (50 kill -9 trials) three times; its summary line's
# figures, one row a run.
part_faults() {
  local run line
  printf '# machine: %s; make faults FAULT_TRIALS=50, three runs\nrun,trials,slowest_s,mean_s,leftovers,intact,writing_runs,tmp_left\n' \
    "$machine" > "$out/faults.csv"
  for run in 1 2 3; do
    line=$(make -s faults FAULT_TRIALS=50 2>&1 | grep '^\[----\] faults:')
    [ -n "$line" ] || { echo "bench: make faults printed no summary"; status=1; continue; }
    echo "$line" | sed -n 's/.*faults: \([0-9]*\) trials.*slowest abort \([0-9.]*\) s, mean \([0-9.]*\) s; leftovers (processes, \/dev\/shm) \([0-9]*\); checkpoints intact \([0-9]*\) of \([0-9]*\) runs.*FILE.tmp left by a killed writer \([0-9]*\).*/'"$run"',\1,\2,\3,\4,\5,\6,\7/p' >> "$out/faults.csv"
  done
  sed 1d "$out/faults.csv" | show
}

# Chapter 2's transport: ./pingpong's table (one-way and sendrecv, 8 B to 128 MiB), its
# alpha-beta fit, the barrier at 2, 4 and 8 ranks, and two ranks on one core (so they sleep);
# three rounds, medians.
part_pingpong() {
  local dir round n k col
  dir=$(mktemp -d)
  for round in 1 2 3; do
    ./pingpong -b 8 -e 128M -f 8 -n 50 -w 10 > "$dir/p.$round" 2>&1 || { echo "bench: ./pingpong failed"; status=1; }
    for n in 4 8; do ./pingpong --n_gpus "$n" -b 8 -e 8 > "$dir/b$n.$round" 2>&1 || status=1; done
    taskset -c 0 ./pingpong -b 8 -e 8 -n 50 -w 10 > "$dir/one.$round" 2>&1 || status=1
  done
  { printf '# machine: %s; ./pingpong -b 8 -e 128M -f 8 -n 50 -w 10, medians of 3 rounds\n' "$machine"
    echo "size,oneway_us,oneway_bw,both_us,both_bw"
    for k in $(awk '!/^#/ && NF { print $1 }' "$dir/p.1"); do
      printf '%s' "$k"
      for col in 2 3 4 5; do
        printf ',%s' "$(cat "$dir"/p.[123] | awk -v k="$k" -v c="$col" '!/^#/ && $1 == k { print $c }' | median)"
      done
      echo
    done; } > "$out/pingpong.csv"
  { printf '# machine: %s; the fit of ./pingpong, its barrier at N ranks, and two ranks on one core (taskset -c 0), medians of 3 rounds\n' "$machine"
    echo "what,value"
    echo "alpha_us,$(sed -n 's/^# alpha-beta fit: T(n) = \([0-9.]*\) us.*/\1/p' "$dir"/p.[123] | median)"
    echo "fit_bw,$(sed -n 's/^# alpha-beta fit: .*n \/ (\([0-9.]*\) GB\/s)/\1/p' "$dir"/p.[123] | median)"
    echo "barrier_2_us,$(sed -n 's/^# barrier: 2 ranks, \([0-9.]*\) us.*/\1/p' "$dir"/p.[123] | median)"
    for n in 4 8; do
      echo "barrier_${n}_us,$(sed -n "s/^# barrier: $n ranks, \([0-9.]*\) us.*/\1/p" "$dir"/b$n.[123] | median)"
    done
    echo "one_core_us,$(cat "$dir"/one.[123] | awk '!/^#/ && $1 == 8 { print $2 }' | median)"
  } > "$out/pingpong_fit.csv"
  rm -rf "$dir"
  sed 1d "$out/pingpong.csv" | show; sed 1,2d "$out/pingpong_fit.csv" | show
}

# The ring of chapters 4 and 5, timed by ./collectives as those chapters run it, and, for
# chapter 6, the same ring over MPI's transport and MPI_Allreduce (under mpirun): one CSV per
# row of cfgs below, a row per size in bytes with its time (us) and bandwidths (GB/s). Three
# rounds, the order alternating; each cell the median of its three.
part_collectives() {
  # name, ranks, the collective, and "mpi" when the ranks are mpirun's over MPI's transport
  local cfgs=("reduce_scatter 2 reduce_scatter" "reduce_scatter 4 reduce_scatter"
              "all_reduce 2 all_reduce" "all_reduce 4 all_reduce"
              "all_reduce_over_mpi 2 all_reduce mpi" "native_all_reduce 2 native_all_reduce mpi")
  local dir round k order name n op how cmd csv
  dir=$(mktemp -d)
  for round in 1 2 3; do
    order=$(seq 0 $((${#cfgs[@]} - 1))); ((round % 2)) || order=$(echo "$order" | tac)
    for k in $order; do
      read -r name n op how <<< "${cfgs[$k]}"
      cmd=(./collectives --op "$op" --n_gpus "$n")
      if [ "${how:-}" = mpi ]; then
        command -v mpirun >/dev/null && ./collectives --help | grep -q mpi || continue
        cmd=(mpirun -np "$n" ./collectives --transport mpi --op "$op")
      fi
      echo "${cmd[*]}" > "$dir/$k.cmd"
      "${cmd[@]}" -b 4K -e 64M -f 4 -n 50 -w 10 > "$dir/$k.$round" 2>&1 ||
        { echo "bench: ${cmd[*]} failed: $(tail -1 "$dir/$k.$round")"; status=1; rm -f "$dir/$k.$round"; }
    done
  done
  for k in $(seq 0 $((${#cfgs[@]} - 1))); do
    read -r name n op how <<< "${cfgs[$k]}"
    [ -f "$dir/$k.cmd" ] || { echo "bench: $name: no MPI here, not recorded"; continue; }
    [ "$(ls "$dir/$k".[123] 2>/dev/null | wc -l)" = 3 ] || continue
    csv="$out/${name}_n$n.csv"
    { printf '# machine: %s; %s ranks, %s -n 50 -w 10, medians of 3 rounds\n' "$machine" "$n" "$(cat "$dir/$k.cmd")"
      echo "size,time_us,algbw,busbw"
      cat "$dir/$k".[123] | awk '!/^#/ && NF { t[$1] = t[$1] " " $4; a[$1] = a[$1] " " $5; b[$1] = b[$1] " " $6
                                                if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
        function mid(s,   v, n, i, j, x) { n = split(s, v, " ")   # the median, by insertion
          for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
          return v[int((n + 1) / 2)] }
        END { for (i = 1; i <= m; i++) print order[i] "," mid(t[order[i]]) "," mid(a[order[i]]) "," mid(b[order[i]]) }'
    } > "$csv"
    echo "bench: $(cat "$dir/$k.cmd")"; sed 1,2d "$csv" | show; echo
  done
  rm -rf "$dir"
  # chapter 6's first table: the ring over our transport and over MPI's, and MPI_Allreduce,
  # side by side in one file (the book's ratios are of two columns of one file)
  local a=$out/all_reduce_n2.csv m=$out/all_reduce_over_mpi_n2.csv x=$out/native_all_reduce_n2.csv
  if [ -f "$m" ] && [ -f "$x" ]; then
    { sed -n 1p "$a" | sed 's/, medians/ and under mpirun, medians/'
      echo "size,shm_us,shm_busbw,over_mpi_us,over_mpi_busbw,mpi_us,mpi_busbw"
      paste -d, <(sed 1,2d "$a" | cut -d, -f1,2,4) <(sed 1,2d "$m" | cut -d, -f2,4) \
                <(sed 1,2d "$x" | cut -d, -f2,4); } > "$out/transports_n2.csv"
    rm -f "$m" "$x"
  fi
}

# Chapter 5's programs as a student runs them (3 epochs, batch 64 per rank): ms per step and
# samples/s of the last epoch (--log), and the share of a rank's time in communication, from
# the "time:" line: share-reduce and share-only for ./ring; push, wait and pull for a worker
# of ./ps. Three rounds, the programs' order alternating; each column the median of three.
part_programs() {
  local csv="$out/programs.csv" cfgs=("mlp 1 64" "ring 2 128" "ring 4 256" "ps 4 192")
  local dir round k cfg prog n batch log row comm order
  dir=$(mktemp -d)
  printf '# machine: %s; medians of 3 alternating rounds\nprogram,ranks,global_batch,step_ms,samples_per_s,comm_pct\n' \
    "$machine" > "$csv"
  for round in 1 2 3; do
    order=$( ((round % 2)) && echo 0 1 2 3 || echo 3 2 1 0)
    for k in $order; do
      read -r prog n batch <<< "${cfgs[$k]}"
      log=$dir/log
      if ./"$prog" $([ "$n" -gt 1 ] && echo --n_gpus "$n") --epochs 3 --log "$log" > "$log.out" 2>&1; then
        row=$(tail -1 "$log")
        comm=$(timeline 'share-reduce|share-only|push|wait|pull' "$log.out" | cut -d' ' -f2)
        echo "$(echo "$row" | cut -d, -f7) $(echo "$row" | cut -d, -f6) $comm" >> "$dir/$k"
      else
        echo "bench: ./$prog --n_gpus $n failed: $(tail -1 "$log.out")"; status=1
      fi
    done
  done
  for k in 0 1 2 3; do
    read -r prog n batch <<< "${cfgs[$k]}"
    [ -s "$dir/$k" ] || continue
    echo "$prog,$n,$batch,$(for c in 1 2 3; do awk -v c=$c '{ print $c }' "$dir/$k" | median; done | paste -sd,)" >> "$csv"
  done
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# Chapter 6's overlap: the ring and the ring in buckets on a deeper model with small buckets
# (2 epochs), three alternating rounds, medians: ms per step (--log), the compute's seconds
# and the all-reduces' (the "time:" line; in buckets, the "overlap:" line's total and
# exposed part).
part_overlap() {
  local csv="$out/overlap.csv" dir round k s log t
  local args=(--n_gpus 2 --hidden 512,512,512 --epochs 2)
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      s=$([ "$k" = 0 ] && echo ring || echo ring_bucketed)
      log=$dir/log
      if ./train --strategy "$s" "${args[@]}" $([ "$s" = ring_bucketed ] && echo --bucket_mb 0.5) \
           --log "$log" > "$log.out" 2>&1; then
        # the plain ring waits for all of its all-reduces; in buckets the "overlap:" line
        # says how long they took and how much of it was waited for
        read -r a e < <(sed -n 's/^overlap: .* took \([0-9.]*\) s, \([0-9.]*\) s of it exposed.*/\1 \2/p' "$log.out")
        [ -n "${a:-}" ] || { a=$(timeline 'share-reduce|share-only' "$log.out" | cut -d' ' -f1); e=$a; }
        echo "$(tail -1 "$log" | cut -d, -f7) $(timeline compute "$log.out" | cut -d' ' -f1) $a $e" >> "$dir/$k"
      else
        echo "bench: ./train --strategy $s failed: $(tail -1 "$log.out")"; status=1
      fi
    done
  done
  printf '# machine: %s; ./train --n_gpus 2 --hidden 512,512,512 --epochs 2 (buckets: --bucket_mb 0.5), medians of 3 rounds\nstrategy,step_ms,compute_s,allreduce_s,exposed_s\n' \
    "$machine" > "$csv"
  for k in 0 1; do
    [ -s "$dir/$k" ] || continue
    echo "$([ "$k" = 0 ] && echo ring || echo ring_bucketed),$(for c in 1 2 3 4; do
      awk -v c=$c '{ print $c }' "$dir/$k" | median; done | paste -sd,)" >> "$csv"
  done
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# Chapter 7's ring and ZeRO-1 with AdamW on four ranks (3 epochs): the medians of three
# alternating rounds of their share-reduce, share-only and update seconds (the "time:" line),
# and the transcript the chapter prints, from the last round.
part_zero() {
  local dir round k s f r
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      s=$([ "$k" = 0 ] && echo ring || echo zero1)
      ./train --strategy "$s" --n_gpus 4 --optimizer adamw --epochs 3 > "$dir/$s.$round" 2>&1 ||
        { echo "bench: ./train --strategy $s failed: $(tail -1 "$dir/$s.$round")"; status=1; }
    done
  done
  { printf '# machine: %s; ./train --n_gpus 4 --optimizer adamw --epochs 3, medians of 3 rounds\n' "$machine"
    echo "strategy,share_reduce_s,share_only_s,update_s"
    for s in ring zero1; do
      printf '%s' "$s"
      for f in share-reduce share-only update; do
        printf ',%s' "$(for r in 1 2 3; do timeline "$f" "$dir/$s.$r" | cut -d' ' -f1; done | median)"
      done
      echo
    done; } > "$out/zero.csv"
  for s in ring zero1; do
    printf '$ ./train --strategy %-5s --n_gpus 4 --optimizer adamw --epochs 3\n' "$s"
    sed -n 's/^\(epoch 3\/3 .*test_acc *[0-9.]*%\).*/\1  .../p' "$dir/$s.3"
    awk -F'|' '/^time:/ { out = ""; for (i = 1; i <= NF; i++) { v = $i; sub(/^ *(time: )?/, "", v)
        sub(/ *\(.*$/, "", v); if (v ~ /^(share-reduce|share-only|update) /) out = out (out ? " | " : "") v }
        print "time: ... " out " ..." }' "$dir/$s.3"
    grep '^replicas:' "$dir/$s.3"
  done > "$out/zero_transcript.txt"
  rm -rf "$dir"
  sed 1d "$out/zero.csv" | show; cat "$out/zero_transcript.txt"
}

# Chapter 7's stages side by side: the ring, ZeRO-1, ZeRO-2 and FSDP on four ranks with AdamW
# and eight hidden layers of 512, one epoch of 40 steps; ms per step (--log), and the update's
# and the compute's seconds (the "time:" line); three alternating rounds, medians.
part_stages() {
  local dir round k s log stages=(ring zero1 zero2 fsdp)
  local args=(--n_gpus 4 --optimizer adamw --hidden 512,512,512,512,512,512,512,512 --train_size 10240 --epochs 1)
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 2 3 || echo 3 2 1 0); do
      s=${stages[$k]}; log=$dir/log
      if ./train --strategy "$s" "${args[@]}" --log "$log" > "$log.out" 2>&1; then
        echo "$(tail -1 "$log" | cut -d, -f7) $(timeline update "$log.out" | cut -d' ' -f1) $(timeline compute "$log.out" | cut -d' ' -f1)" >> "$dir/$s"
      else
        echo "bench: ./train --strategy $s failed: $(tail -1 "$log.out")"; status=1
      fi
    done
  done
  { printf '# machine: %s; ./train %s, medians of 3 alternating rounds\n' "$machine" "${args[*]}"
    echo "strategy,step_ms,update_s,compute_s,steps"
    for s in "${stages[@]}"; do
      [ -s "$dir/$s" ] && echo "$s,$(for c in 1 2 3; do awk -v c=$c '{ print $c }' "$dir/$s" | median; done | paste -sd,),40"
    done; } > "$out/stages.csv"
  rm -rf "$dir"
  sed 1d "$out/stages.csv" | show
}

# Chapter 1's accuracies: ./mlp and the linear model (--hidden 0), five epochs each, every
# epoch's loss and accuracies (a seeded run: the same at every run on one machine).
part_accuracy() {
  local log m
  log=$(mktemp)
  printf '# machine: %s; ./mlp --epochs 5 and ./mlp --hidden 0 --epochs 5 (seeded: the same at every run)\nmodel,epoch,loss,train_acc,test_acc\n' \
    "$machine" > "$out/accuracy.csv"
  for m in mlp linear; do
    if ./mlp --epochs 5 $([ "$m" = linear ] && echo --hidden 0) --log "$log" > /dev/null 2>&1; then
      sed 1d "$log" | cut -d, -f1-4 | sed "s/^/$m,/" >> "$out/accuracy.csv"
    else
      echo "bench: ./mlp ($m) failed"; status=1
    fi
  done
  rm -f "$log"
  sed 1d "$out/accuracy.csv" | show
}

# Chapter 3's server as N grows: ./ps at N = 2, 3, 4 and 8 (2 epochs, 64 samples per worker),
# ms per step (--log) and the share of a worker's time spent waiting for the server (the
# "time:" line's wait); three alternating rounds, medians.
part_ps() {
  local dir round n log
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for n in $( ((round % 2)) && echo 2 3 4 8 || echo 8 4 3 2); do
      log=$dir/log
      if ./ps --n_gpus "$n" --epochs 2 --log "$log" > "$log.out" 2>&1; then
        echo "$(tail -1 "$log" | cut -d, -f7) $(timeline wait "$log.out" | cut -d' ' -f2)" >> "$dir/$n"
      else
        echo "bench: ./ps --n_gpus $n failed: $(tail -1 "$log.out")"; status=1
      fi
    done
  done
  { printf '# machine: %s; ./ps --n_gpus N --epochs 2, medians of 3 rounds\n' "$machine"
    echo "ranks,step_ms,wait_pct"
    for n in 2 3 4 8; do
      [ -s "$dir/$n" ] && echo "$n,$(awk '{ print $1 }' "$dir/$n" | median),$(awk '{ print $2 }' "$dir/$n" | median)"
    done; } > "$out/ps.csv"
  rm -rf "$dir"
  sed 1d "$out/ps.csv" | show
}

part_train() {
  echo "bench: training samples/s per strategy (3 epochs, batch 64 per rank, the last epoch; medians of 3 alternating rounds)"
  local csv="$out/train.csv" dir round k cfgs=() n s
  cfgs+=("single 1 ./train --strategy single")
  for n in 1 2 4; do
    for s in direct ring ring_bucketed data_parallel; do cfgs+=("$s $n ./train --strategy $s --n_gpus $n"); done
    [ "$n" -gt 1 ] && cfgs+=("param_server $n ./train --strategy param_server --n_gpus $n")
    command -v mpirun >/dev/null && ./train --help | grep -q mpi && cfgs+=("mpi $n mpirun -np $n ./train --strategy mpi")
  done
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && seq 0 $((${#cfgs[@]} - 1)) || seq $((${#cfgs[@]} - 1)) -1 0); do
      read -r s n cmd <<< "${cfgs[$k]}"
      if $cmd --epochs 3 --quiet --log "$dir/log" >/dev/null 2>"$dir/err"; then
        tail -1 "$dir/log" | cut -d, -f6,7 | tr , ' ' >> "$dir/$k"
      else
        echo "bench: $cmd failed: $(head -1 "$dir/err")"; status=1
      fi
    done
  done
  printf '# machine: %s; medians of 3 alternating rounds\nstrategy,n,samples_per_s,step_ms\n' "$machine" > "$csv"
  for k in $(seq 0 $((${#cfgs[@]} - 1))); do
    read -r s n cmd <<< "${cfgs[$k]}"
    [ -s "$dir/$k" ] && echo "$s,$n,$(awk '{ print $1 }' "$dir/$k" | median),$(awk '{ print $2 }' "$dir/$k" | median)" >> "$csv"
  done
  rm -rf "$dir"
  sed 1d "$csv" | show
  # one file per strategy, for the book's bar chart (pgfplots reads columns, not filters)
  for s in single direct ring ring_bucketed param_server data_parallel mpi; do
    { sed -n 1p "$csv"; echo "n,samples_per_s,step_ms"
      awk -F, -v s="$s" '$1 == s { print $2 "," $3 "," $4 }' "$csv"; } > "$out/train-$s.csv"
  done
}

# ./mlp beside PyTorch (bench/torch_mlp.py), the same MLP 784-128-10 at batch 64 and 256 on
# the CPU, 3 epochs, each side's median epoch after the first; PyTorch with one thread
# (pytorch_1t) and with one per core (pytorch_nt), since which is faster depends on the
# batch; three alternating rounds, medians.
part_mlp() {
  echo "bench: ./mlp beside PyTorch, the same MLP 784-128-10 on the CPU"
  local csv="$out/mlp_vs_torch.csv" dir round k b prog torch=0
  "$PY" -c 'import torch' 2>/dev/null && torch=1 || echo "pytorch: not installed (apt-get install python3-torch), no comparison"
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 || echo 1 0); do
      for b in 64 256; do
        if [ "$k" = 0 ]; then
          ./mlp --batch_size "$b" --epochs 3 --quiet --device cpu --log "$dir/log" >/dev/null &&
            epoch_median "$dir/log" >> "$dir/mlp.$b"
        elif [ "$torch" = 1 ]; then # PyTorch at one thread and at one per core: its best counts
          "$PY" bench/torch_mlp.py "$b" 3 1 >> "$dir/pytorch_1t.$b"
          "$PY" bench/torch_mlp.py "$b" 3 "$(nproc)" >> "$dir/pytorch_nt.$b"
        fi
      done
    done
  done
  printf '# machine: %s; the median epoch after the first of 3, medians of 3 alternating rounds\nprogram,batch,samples_per_s,step_ms\n' "$machine" > "$csv"
  for b in 64 256; do
    for prog in mlp pytorch_1t pytorch_nt; do
      [ -s "$dir/$prog.$b" ] && echo "$prog,$b,$(awk '{ print $1 }' "$dir/$prog.$b" | median),$(awk '{ print $2 }' "$dir/$prog.$b" | median)" >> "$csv"
    done
  done
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# ./train beside PyTorch's DDP with gloo (bench/torch_ddp.py), 2 ranks, the same MLP, batch
# per rank and data, two models; three alternating rounds, medians.
part_ddp() {
  echo "bench: ./train beside PyTorch's DDP with gloo, 2 ranks"
  local csv="$out/train_vs_ddp.csv" dir round k cfg hidden b s ddp=0
  "$PY" -c 'import torch.distributed' 2>/dev/null && ddp=1 || echo "ddp: not installed (apt-get install python3-torch), no comparison"
  dir=$(mktemp -d)
  for round in 1 2 3; do
    for k in $( ((round % 2)) && echo 0 1 2 || echo 2 1 0); do
      for cfg in "128 64" "1024,1024 256"; do
        read -r hidden b <<< "$cfg"
        s=$(echo direct ring ddp | cut -d' ' -f$((k + 1)))
        if [ "$s" = ddp ]; then
          [ "$ddp" = 1 ] && "$PY" bench/torch_ddp.py 2 "$b" 3 "$hidden" >> "$dir/$s.$b"
        elif ./train --strategy "$s" --n_gpus 2 --hidden "$hidden" --batch_size "$b" --epochs 3 \
               --quiet --device cpu --log "$dir/log" >/dev/null; then
          tail -1 "$dir/log" | cut -d, -f6,7 | tr , ' ' >> "$dir/$s.$b"
        else
          echo "bench: ./train --strategy $s failed"; status=1
        fi
      done
    done
  done
  printf '# machine: %s; medians of 3 alternating rounds\nmodel,batch,program,samples_per_s,step_ms\n' "$machine" > "$csv"
  for cfg in "128 64" "1024,1024 256"; do
    read -r hidden b <<< "$cfg"
    for s in direct ring ddp; do
      [ -s "$dir/$s.$b" ] && echo "784-${hidden//,/-}-10,$b,$s,$(awk '{ print $1 }' "$dir/$s.$b" | median),$(awk '{ print $2 }' "$dir/$s.$b" | median)" >> "$csv"
    done
  done
  rm -rf "$dir"
  sed 1d "$csv" | show
}

# Chapter 9's hosts (as root; skipped, saying why, without): test hosts of their own
# (DPS_HOSTS=bench), first unshaped, to measure the fastest rate the virtual links sustain
# (2 hosts x 1 rank, MPI_Allreduce of 64 MiB: its bus bandwidth is the link's rate), then
# shaped to 1 Gbit/s and to a rate below that fastest one. On each: our ring over MPI,
# MPI_Allreduce and the hierarchical all-reduce, 2 hosts x 2 ranks, 4 x 1 and 2 x 1 (what
# MPI's TCP carries both ways at once), 4 KiB to 64 MiB; three rounds, the algorithms' order
# alternating, medians; and the link's bound (each host sends 2(H-1)/H of the bytes over its
# link). One file per layout and link: hosts_2x2_1gbit.csv, ..., hosts_2x2_fast.csv (the
# fast link's rate in its link_gbps column).
# Then a training step: --strategy hierarchical and ring on 2 hosts x 2 at 1 Gbit/s against
# the same ranks forked on one host.
hosts_sh() { DPS_HOSTS=bench scripts/hosts.sh "$@"; }
# The links' token bucket, as scripts/hosts.sh sets it (BURST_MS, BURST_MIN, QUEUE_MS).
eval "$(grep -E '^(BURST_MS|BURST_MIN|QUEUE_MS)=[0-9]+$' scripts/hosts.sh)"
# K LINK OP: "size us" lines. The small sizes warm up long enough to empty the token
# bucket (a run that starts with a full bucket sends its first burst at the wire's speed),
# so that every size is measured as the link sustains it.
hosts_run() {
  { hosts_sh run "$1" ./collectives --transport mpi --op "$3" -b 4K -e 256K -f 4 -n 20 -w 100
    hosts_sh run "$1" ./collectives --transport mpi --op "$3" -b 1M -e 64M -f 4 -n 10 -w 2; } 2>&1 |
    awk '!/^#/ && NF && $1 ~ /^[0-9]+$/ && $7 == 0 { print $1, $4 }'
}
part_hosts() {
  if [ "$(id -u)" != 0 ] || ! hosts_sh up 2 none >/dev/null 2>&1; then
    echo "bench: hosts: skipped (test hosts need root and network namespaces)"; hosts_sh down >/dev/null 2>&1; return
  fi
  local dir fast_gbs fast link layout name h k round i op ops=(all_reduce native_all_reduce all_reduce_hierarchical)
  dir=$(mktemp -d)
  fast_gbs=$(hosts_sh run 1 ./collectives --transport mpi --op native_all_reduce -b 64M -e 64M -n 5 -w 1 2>&1 |
    awk '!/^#/ && $1 == 67108864 { print $6 }')
  hosts_sh down >/dev/null
  [ -n "$fast_gbs" ] || { echo "bench: hosts: the unshaped link could not be measured"; status=1; rm -rf "$dir"; return; }
  # the shaped fast link: whole Gbit/s, at most 80% of what the unshaped link carried
  fast=$(awk -v g="$fast_gbs" 'BEGIN { r = int(g * 8 * 0.8); print (r < 2 ? 2 : r) "gbit" }')
  echo "bench: hosts: unshaped, 2 hosts x 1 rank carried $fast_gbs GB/s; the fast link is $fast"
  for link in 1gbit "$fast"; do
    for layout in 2x2 4x1 2x1; do
      h=${layout%x*}; k=${layout#*x}
      hosts_sh up "$h" "$link" >/dev/null || { echo "bench: hosts: hosts.sh up $h $link failed"; status=1; continue; }
      for round in 1 2 3; do
        for i in $( ((round % 2)) && echo 0 1 2 || echo 2 1 0); do
          op=${ops[$i]}
          hosts_run "$k" "$link" "$op" >> "$dir/$link.$layout.$op"
        done
      done
      hosts_sh down >/dev/null
      name=$([ "$link" = 1gbit ] && echo 1gbit || echo fast)
      hosts_csv "$dir" "$link" "$h" "$k" "$fast_gbs" > "$out/hosts_${layout}_$name.csv"
      echo "bench: $h hosts x $k ranks, links $link"; sed 1d "$out/hosts_${layout}_$name.csv" | show
    done
  done
  hosts_train "$dir"
  rm -rf "$dir"
  # chapter 9's model: fitted to these links and to chapter 8's two-shot, checked against
  # every case; then an H100 cluster of 8 x 8 and of 128 x 8 GPUs
  ./scale --machine here --from "$out" --csv "$out/hosts_model.csv" || status=1
  for h in 8 128; do
    ./scale --hosts "$h" --ranks_per_host 8 -b 4K -e 256M -f 4 --csv "$out/scale_h100_${h}x8.csv" | tail -1 || status=1
  done
}
# The CSV of one layout and link: per size, each algorithm's median time and bus bandwidth
# (nccl-tests': algbw x 2(N-1)/N, N = H x K ranks), and the link's bound in the same units.
hosts_csv() {
  local dir=$1 link=$2 h=$3 k=$4 fast_gbs=$5 n=$(( $3 * $4 )) rate
  rate=$(awk -v l="$link" 'BEGIN { sub(/gbit$/, "", l); print l * 1e9 / 8 }')
  printf '# machine: %s; links %s (tbf), %s hosts x %s ranks (network namespaces; unshaped 2 x 1 carried %s GB/s); ./collectives --transport mpi -f 4, 4K-256K -n 20 -w 100, 1M-64M -n 10 -w 2, medians of 3 alternating rounds\n' \
    "$machine" "$link" "$h" "$k" "$fast_gbs"
  echo "size,ring_us,ring_busbw,mpi_us,mpi_busbw,hier_us,hier_busbw,bound_us,bound_busbw,link_gbps,unshaped_gbs"
  for sz in $(awk '{ print $1 }' "$dir/$link.${h}x$k.all_reduce_hierarchical" | sort -nu); do
    printf '%s' "$sz"
    for op in all_reduce native_all_reduce all_reduce_hierarchical; do
      awk -v s="$sz" '$1 == s { print $2 }' "$dir/$link.${h}x$k.$op" | median |
        awk -v s="$sz" -v n="$n" '{ if ($1 == "") printf ",nan,nan"; else printf ",%.2f,%.4f", $1, s / $1 / 1e3 * 2 * (n - 1) / n }'
    done
    # a token bucket passes at most its burst (BURST_MS of the rate, at least BURST_MIN
    # bytes, as scripts/hosts.sh shapes) plus rate x t bytes in t: each host's 2(H-1)/H x
    # size bytes take at least (those - burst) / rate
    awk -v s="$sz" -v n="$n" -v h="$h" -v r="$rate" -v u="$fast_gbs" -v bms="$BURST_MS" -v bmin="$BURST_MIN" \
      'BEGIN { b = r * bms / 1000; if (b < bmin) b = bmin;
      t = (2 * (h - 1) / h * s - b) / r * 1e6;
      if (t <= 0) printf ",nan,nan"; else printf ",%.2f,%.4f", t, s / t / 1e3 * 2 * (n - 1) / n
      printf ",%g,%s\n", r * 8 / 1e9, u }'
  done
}
# A training step on 2 hosts x 2 ranks at 1 Gbit/s against the same 4 ranks forked on one
# host (--ranks_per_host 2 for the hierarchy): ms per step of the median epoch after the first.
hosts_train() {
  local dir=$1 csv="$out/hosts_train.csv" round s
  local args=(--epochs 4 --train_size 8192 --device cpu --quiet)
  hosts_sh up 2 1gbit >/dev/null || { echo "bench: hosts: no hosts for the training step"; status=1; return; }
  for round in 1 2 3; do
    for s in hierarchical ring; do
      hosts_sh run 2 ./train --transport mpi --strategy "$s" "${args[@]}" --log "$dir/log" >/dev/null 2>&1 &&
        epoch_median "$dir/log" >> "$dir/train.hosts.$s"
      if [ "$s" = hierarchical ]; then
        ./train --strategy "$s" --n_gpus 4 --ranks_per_host 2 "${args[@]}" --log "$dir/log" >/dev/null 2>&1
      else
        ./train --strategy "$s" --n_gpus 4 "${args[@]}" --log "$dir/log" >/dev/null 2>&1
      fi && epoch_median "$dir/log" >> "$dir/train.one.$s"
    done
  done
  hosts_sh down >/dev/null
  { printf '# machine: %s; ./train %s, 4 ranks: 2 hosts x 2 at 1gbit (tbf) or forked on one host; medians of 3 rounds\n' "$machine" "${args[*]}"
    echo "placement,strategy,samples_per_s,step_ms"
    for p in hosts one; do for s in hierarchical ring; do
      [ -s "$dir/train.$p.$s" ] && echo "$p,$s,$(awk '{ print $1 }' "$dir/train.$p.$s" | median),$(awk '{ print $2 }' "$dir/train.$p.$s" | median)"
    done; done; } > "$csv"
  sed 1d "$csv" | show
}

# Chapter 10's gradient compression beside PyTorch DDP's hooks: ./train --strategy ring with
# --grad_dtype fp32|bf16|fp16 and --compress powersgd:1|2|4 and topk:0.01, and DDP on gloo
# (bench/torch_ddp_hooks.py) with default_hooks' fp16 and bf16 hooks, powerSGD_hook and a
# top-k hook of ours written in PyTorch; 4 ranks, batch 64 per rank, plain SGD, on the same
# IDX files (bench/compress_data.py: 20,000 train, 4,000 test, read as ./train --data reads
# them), two models (light: --hidden 128; heavy: --hidden 1024,1024), on one host (4 ranks
# forked; DDP: 4 processes) and on 2 test hosts x 2 ranks at 1 Gbit/s (as root; mpirun, and a
# DDP launcher in each host's namespace). One run of each, ours and DDP alternating; per run
# the bytes a rank sends per step (and, across hosts, what each host's eth0 sent), the median
# epoch's ms per step, the epochs and seconds to a target test accuracy, and every epoch's
# loss and test accuracy. COMPRESS_EPOCHS="8 4" (light, heavy; one number: both) for a trial.
compress_flags() {
  case $1 in
    fp32) ;; bf16|fp16) echo "--grad_dtype $1" ;; *) echo "--compress $1" ;;
  esac
}
# The median of a --log's ms per step after the first epoch (the first epoch's alone if only one).
compress_step_ms() {
  awk -F, 'NR == 2 { first = $7 } NR > 2 { print $7; n++ } END { if (!n) print first }' "$1" | median
}
# Each test host's eth0 tx_bytes, summed.
compress_tx() {
  local h t=0
  for h in $(hosts_sh list); do t=$((t + $(ip netns exec "$h" cat /sys/class/net/eth0/statistics/tx_bytes))); done
  echo "$t"
}
# compress_run DIR PLACEMENT SHAPE CONFIG IMPL EPOCHS: one run; DIR/FILE.log (the --log rows),
# DIR/FILE.out (its output) and DIR/FILE.meta ("bytes wire skipped", - for none), FILE the
# case with / as _.
compress_run() {
  local dir=$1 pl=$2 shape=$3 cfg=$4 impl=$5 ep=$6 case f hidden tx0 tx1 i bytes wire=- skipped=- ok=1
  local steps=$((ep * (20000 / (64 * 4))))
  case="$pl/$shape/$impl/${cfg//:/}"; f=$dir/${case//\//_}
  hidden=$([ "$shape" = light ] && echo 128 || echo 1024,1024)
  [ "$pl" = host ] || tx0=$(compress_tx)
  if [ "$impl" = ours ]; then
    local args=(--strategy ring --device cpu --data "$COMPRESS_DATA" --hidden "$hidden" --epochs "$ep"
                $(compress_flags "$cfg") --log "$f.log")
    if [ "$pl" = host ]; then
      timeout 900 ./train --n_gpus 4 "${args[@]}" > "$f.out" 2>&1 || ok=0
    else
      timeout 900 bash -c 'DPS_HOSTS=bench exec scripts/hosts.sh run 2 ./train --transport mpi "$@"' _ "${args[@]}" > "$f.out" 2>&1 || ok=0
    fi
  else
    local args=(--data "$COMPRESS_DATA" --config "$cfg" --hidden "$hidden" --epochs "$ep" --n 4 --log "$f.log")
    if [ "$pl" = host ]; then
      timeout 900 "$PY" bench/torch_ddp_hooks.py "${args[@]}" > "$f.out" 2>&1 || ok=0
    else
      local pids=()
      for i in 1 2; do
        timeout 900 ip netns exec "bench-host$i" env GLOO_SOCKET_IFNAME=eth0 "$PY" bench/torch_ddp_hooks.py "${args[@]}" \
          --local 2 --rank_base $(( (i - 1) * 2 )) --store "$f.store" > "$f.out$i" 2>&1 & pids+=($!)
      done
      for i in "${pids[@]}"; do wait "$i" || ok=0; done
      cat "$f.out1" "$f.out2" > "$f.out"; rm -f "$f.out1" "$f.out2" "$f.store"
    fi
  fi
  [ "$pl" = host ] || tx1=$(compress_tx)
  if [ "$ok" = 0 ] || [ ! -s "$f.log" ]; then
    echo "bench: compress: $case failed: $(grep -v '^ *$' "$f.out" | tail -1)"; status=1; rm -f "$f.log"; return
  fi
  if [ "$impl" = ddp ]; then
    bytes=$(sed -n 's/^final: .* bytes_per_step \([0-9]*\) .*/\1/p' "$f.out")
  elif [ "$cfg" = fp32 ]; then # the ring's 2(N-1)/N x n x 4, n from the banner
    bytes=$(sed -n 's/^ *model .*, \([0-9,]*\) parameters.*/\1/p' "$f.out" | tr -d , | awk '{ printf "%.0f", 2 * 3 / 4 * $1 * 4 }')
  else
    bytes=$(sed -n 's/^codec: rank 0 sent \([0-9,]*\) bytes.*/\1/p' "$f.out" | tr -d ,)
  fi
  [ "$impl$cfg" = oursfp16 ] && skipped=$(sed -n 's/^loss scale: \([0-9]*\) steps skipped.*/\1/p' "$f.out")
  [ "$pl" = host ] || wire=$(awk -v a="$tx0" -v b="$tx1" -v s="$steps" 'BEGIN { printf "%.0f", (b - a) / 2 / s / 2 }')
  echo "${bytes:--} $wire ${skipped:--}" > "$f.meta"
  printf 'bench: compress: %-28s test acc %s after %s epochs, %s ms/step, %s B/step%s\n' "$case" \
    "$(tail -1 "$f.log" | cut -d, -f4 | awk '{ printf "%.2f%%", 100 * $1 }')" "$ep" \
    "$(compress_step_ms "$f.log" | awk '{ printf "%.2f", $1 }')" "${bytes:-?}" "$([ "$wire" = - ] || echo " (wire $wire)")"
}
part_compress() {
  local t0=$SECONDS dir ddp=1 pl shape k i cfg impl ep e_light e_heavy placements=(host) ver note
  local cfgs=(fp32 bf16 fp16 powersgd:1 powersgd:2 powersgd:4 topk:0.01)
  read -r e_light e_heavy <<< "${COMPRESS_EPOCHS:-8 4}"; e_heavy=${e_heavy:-$e_light}
  echo "bench: gradient compression, ./train --strategy ring beside DDP's hooks, 4 ranks ($e_light and $e_heavy epochs)"
  dir=$(mktemp -d)
  COMPRESS_DATA=$PWD/build/compress_data
  if ! "$PY" bench/compress_data.py "$COMPRESS_DATA" 2>"$dir/err"; then
    echo "bench: compress: no IDX files ($(tail -1 "$dir/err"); apt-get install python3-numpy): ours on ./train's synthetic data, no DDP"
    COMPRESS_DATA=synthetic; ddp=0
  fi
  if [ "$ddp" = 1 ] && ! "$PY" -c 'import torch.distributed' 2>/dev/null; then
    echo "bench: compress: ddp: not installed (apt-get install python3-torch), no comparison"; ddp=0
  fi
  ver=$([ "$ddp" = 1 ] && "$PY" -c 'import torch; print(torch.__version__)')
  if [ "$(id -u)" = 0 ] && hosts_sh up 2 1gbit >/dev/null 2>&1; then
    hosts_sh down >/dev/null; placements+=(1gbit)
  else
    echo "bench: compress: 2 hosts at 1gbit skipped (test hosts need root and network namespaces)"; hosts_sh down >/dev/null 2>&1
  fi
  for pl in "${placements[@]}"; do
    if [ "$pl" != host ] && ! hosts_sh up 2 "$pl" >/dev/null; then
      echo "bench: compress: hosts.sh up 2 $pl failed"; status=1; continue
    fi
    for shape in light heavy; do
      ep=$([ "$shape" = light ] && echo "$e_light" || echo "$e_heavy")
      for k in "${!cfgs[@]}"; do
        for impl in $( ((k % 2)) && echo ddp ours || echo ours ddp); do
          [ "$impl" = ddp ] && [ "$ddp" = 0 ] && continue
          compress_run "$dir" "$pl" "$shape" "${cfgs[$k]}" "$impl" "$ep"
        done
      done
    done
    [ "$pl" = host ] || hosts_sh down >/dev/null
  done
  # the hooks DDP ran, as its runs named them
  note=$(for cfg in "${cfgs[@]}"; do
           f=$(ls "$dir"/*_ddp_"${cfg//:/}".out 2>/dev/null | head -1)
           [ -n "$f" ] && sed -n "s/^final: .* hook \(.*\)/${cfg}: \1/p" "$f" | head -1
         done | paste -sd';' | sed 's/;/; /g')
  compress_csv "$dir" "$e_light" "$e_heavy" "$ver" "$note" "${cfgs[@]}"
  rm -rf "$dir"
  echo "bench: compress: $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
}
# The two CSVs from compress_run's files. The target of a shape: the lower of ours' and DDP's
# fp32 test accuracy on one host after epoch ceil(0.6 x EPOCHS), floored to a whole per cent.
compress_csv() {
  local dir=$1 e_light=$2 e_heavy=$3 ver=$4 note=$5 shape pl cfg impl case f ep at target steps log
  shift 5
  local steps_csv="$out/compress_steps.csv" curves_csv="$out/compress_curves.csv" targets=""
  declare -A tgt
  for shape in light heavy; do
    ep=$([ "$shape" = light ] && echo "$e_light" || echo "$e_heavy")
    at=$(( (6 * ep + 9) / 10 ))
    tgt[$shape]=$(for impl in ours ddp; do
        log=$dir/host_${shape}_${impl}_fp32.log
        [ -s "$log" ] && awk -F, -v e="$at" 'NR > 1 && $1 == e { print $4 }' "$log"
      done | sort -g | head -1 | awk '{ printf "%.2f", int(100 * $1 + 1e-6) / 100 }')
    targets="$targets${targets:+, }$shape ${tgt[$shape]:-none} (epoch $at of $ep)"
  done
  local head="# machine: $machine; 4 ranks, batch 64 per rank, sgd lr 0.05: ./train --strategy ring (ours) and PyTorch ${ver:-(not installed)} DDP on gloo (bench/torch_ddp_hooks.py), on bench/compress_data.py's IDX files (20,000 train, 4,000 test; pixels / 255 on both sides); placements: host = 4 ranks forked on one host, 1gbit = 2 test hosts (network namespaces) x 2 ranks, links 1gbit (tbf), mpirun for ours and a DDP launcher per host; light = --hidden 128, $e_light epochs; heavy = --hidden 1024,1024, $e_heavy epochs; one run each, ours and DDP alternating"
  { echo "$head; step_ms: the median of the per-epoch ms per step after the first epoch; bytes_per_step: what one rank sends per step (ours: the codec line, fp32 the ring's 2(N-1)/N x n x 4; DDP: counted at the hooks' collectives over the last epoch with a ring's formulas); wire_bytes_per_step: each host's eth0 tx_bytes over the run / steps / 2 ranks, the mean of the 2 hosts (TCP/IP headers, start-up, evaluation, DDP's first broadcast and its PowerSGD's first 2 uncompressed steps included); target_acc: $targets, the lower of ours' and DDP's fp32 test accuracy on one host at that epoch, floored to a whole per cent; seconds_to_target: training seconds (no evaluation) through that epoch, empty if never reached; DDP (initial weights drawn as ./train draws them) and its hooks: ${note:-none run}; powerSGD_hook with start_powerSGD_iter=2 (PowerSGDState needs > 1 with error feedback and warm start), min_compression_rate=2, error feedback, warm start, each bucket waited for before the next (else the heavy model's two buckets issued gloo's collectives in different orders on different ranks and gloo aborted); fp16 without loss scaling (PyTorch 1.13 has no GradScaler on the CPU) and summed in fp16 by gloo; skipped: the fp16 steps ours skipped on overflow (dynamic loss scaling from 65536), empty where nothing is skipped by design"
    echo "case,placement,shape,impl,config,bytes_per_step,wire_bytes_per_step,step_ms,target_acc,epochs_to_target,seconds_to_target,final_test_acc,skipped"
  } > "$steps_csv"
  { echo "$head; steps: 78 a global batch of 256 each epoch; seconds: training seconds, cumulative"
    echo "case,epoch,step,seconds,loss,test_acc"; } > "$curves_csv"
  for pl in host 1gbit; do for shape in light heavy; do for cfg in "$@"; do for impl in ours ddp; do
    case="$pl/$shape/$impl/${cfg//:/}"; f=$dir/${case//\//_}
    [ -s "$f.log" ] || continue
    read -r bytes wire skipped < "$f.meta"
    target=${tgt[$shape]:-}
    echo "$case,$pl,$shape,$impl,$cfg,${bytes/-/},${wire/-/},$(compress_step_ms "$f.log"),$target,$(
      awk -F, -v t="$target" 'NR > 1 { s += $5; if (t != "" && $4 + 1e-9 >= t && !e) { e = $1; es = s } }
        END { if (e) printf "%d,%.3f", e, es; else printf "," }' "$f.log"),$(tail -1 "$f.log" | cut -d, -f4),${skipped/-/}" >> "$steps_csv"
    awk -F, -v c="$case" 'NR > 1 { s += $5; printf "%s,%d,%d,%.3f,%s,%s\n", c, $1, $1 * 78, s, $2, $4 }' "$f.log" >> "$curves_csv"
  done; done; done; done
  sed 1d "$steps_csv" | cut -d, -f1,6-13 | show
}

# Chapter 10's model (./scale with a codec; after part hosts, whose fitted links it uses): first the coding work of each codec, a step of
# ./train --n_gpus 1 with it, whose all-reduce phase has no peer and so is coding alone
# (encoding and decoding, PowerSGD's products and orthonormalisation, top-k's selection);
# then each codec's exchange against the 32-bit ring on 2 hosts x 2 ranks of the links
# fitted to hosts_4x1_*.csv, and the bandwidth below which it pays.
part_compress_model() {
  local dir hidden cfg key r flags
  dir=$(mktemp -d)
  COMPRESS_DATA=$PWD/build/compress_data
  "$PY" bench/compress_data.py "$COMPRESS_DATA" 2>/dev/null || COMPRESS_DATA=synthetic
  { printf '# machine: %s; ./train --n_gpus 1 --strategy ring --epochs 2 with each codec on bench/compress_data.py'"'"'s files: its all-reduce phase per step (coding alone: no peer), medians of 3 rounds; fp32 sends nothing through a codec\n' "$machine"
    echo "case,work_us"
    for hidden in 128 1024,1024; do
      echo "fp32/${hidden//,/x},0"
      for cfg in bf16 fp16 powersgd:1 powersgd:2 powersgd:4 topk:0.01; do
        case $cfg in bf16|fp16) flags=(--grad_dtype "$cfg"); key=$cfg ;; *) flags=(--compress "$cfg"); key=${cfg//:/} ;; esac
        for r in 1 2 3; do
          ./train --n_gpus 1 --strategy ring --epochs 2 --hidden "$hidden" --data "$COMPRESS_DATA" "${flags[@]}" 2>&1 |
            awk '/steps\/epoch/ { for (i = 2; i <= NF; i++) if ($i ~ /^steps\/epoch/) s = $(i - 1) }
                 /^time:/ { for (i = 1; i < NF; i++) if ($i == "all-reduce") a = $(i + 1) }
                 END { if (s && a != "") printf "%.1f\n", 1e6 * a / (2 * s) }'
        done | median | sed "s|^|$key/${hidden//,/x},|"
      done
    done; } > "$out/compress_work.csv"
  { printf '# machine: %s; ./scale --machine here with each codec: its exchange a step against the 32-bit ring, on 2 hosts x 2 ranks of the links fitted to hosts_4x1_1gbit.csv and hosts_4x1_fast.csv, the coding work from compress_work.csv; break_even_gbits: the link below which the codec pays\n' "$machine"
    echo "case,fp32_us,codec_us,gain,break_even_gbits"
    for hidden in 128 1024,1024; do
      for cfg in bf16 fp16 powersgd:1 powersgd:2 powersgd:4 topk:0.01; do
        case $cfg in bf16|fp16) flags=(--grad_dtype "$cfg") ;; *) flags=(--compress "$cfg") ;; esac
        ./scale --machine here --from "$out" --hidden "$hidden" "${flags[@]}" --csv "$dir/model.csv" >/dev/null &&
          sed 1d "$dir/model.csv" || status=1
      done
    done; } > "$out/compress_model.csv"
  echo "bench: compress: coding work and the model"; sed 1d "$out/compress_model.csv" | show
  rm -rf "$dir"
}

# Chapter 10's run-to-run noise: the heavy model's fp32 run from four seeds, ours and DDP's,
# on one host (the final accuracy is the same bits on the test hosts: the same arithmetic),
# each the final test accuracy after 4 epochs; the spread is the yardstick for the codecs'
# accuracies against DDP's. Then every codec of ours from the same four seeds (ours-CODEC/S),
# so that a codec's mean over seeds can be set beside fp32's.
part_compress_noise() {
  local dir seed impl acc cfg key flags
  dir=$(mktemp -d)
  COMPRESS_DATA=$PWD/build/compress_data
  "$PY" bench/compress_data.py "$COMPRESS_DATA" 2>/dev/null || { echo "bench: compress_noise: no IDX files (python3-numpy), skipped"; rm -rf "$dir"; return; }
  "$PY" -c 'import torch.distributed' 2>/dev/null || { echo "bench: compress_noise: no PyTorch, skipped"; rm -rf "$dir"; return; }
  { printf '# machine: %s; 4 ranks forked on one host, --hidden 1024,1024, 4 epochs, batch 64 a rank, fp32: ./train --strategy ring --seed S and bench/torch_ddp_hooks.py --seed S (DDP on gloo), seeds 1 to 4 alternating; ours-CODEC/S: ./train with that codec and seed; final_test_acc after the last epoch; spread = the largest less the smallest, mean over the four seeds\n' "$machine"
    echo "case,final_test_acc"
    for seed in 1 2 3 4; do
      for impl in ours ddp; do
        if [ "$impl" = ours ]; then
          ./train --n_gpus 4 --strategy ring --device cpu --data "$COMPRESS_DATA" --hidden 1024,1024 --epochs 4 --seed "$seed" --log "$dir/log" >/dev/null 2>&1
        else
          "$PY" bench/torch_ddp_hooks.py --data "$COMPRESS_DATA" --config fp32 --hidden 1024,1024 --epochs 4 --n 4 --seed "$seed" --log "$dir/log" >/dev/null 2>&1
        fi || { status=1; continue; }
        acc=$(tail -1 "$dir/log" | cut -d, -f4)
        echo "$impl/$seed,$acc"
      done
    done | tee "$dir/rows"
    for cfg in bf16 fp16 powersgd:1 powersgd:2 powersgd:4 topk:0.01; do
      case $cfg in bf16|fp16) flags=(--grad_dtype "$cfg"); key=$cfg ;; *) flags=(--compress "$cfg"); key=${cfg//:/} ;; esac
      for seed in 1 2 3 4; do
        ./train --n_gpus 4 --strategy ring --device cpu --data "$COMPRESS_DATA" --hidden 1024,1024 --epochs 4 --seed "$seed" "${flags[@]}" --log "$dir/log" >/dev/null 2>&1 || { status=1; continue; }
        echo "ours-$key/$seed,$(tail -1 "$dir/log" | cut -d, -f4)"
      done
    done | tee -a "$dir/rows"
    for impl in ours ddp ours-bf16 ours-fp16 ours-powersgd1 ours-powersgd2 ours-powersgd4 ours-topk0.01; do
      awk -F, -v i="$impl" 'index($1, i "/") == 1 { v = $2 + 0; s += v; if (!n++ || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
        END { if (n) printf "%s/spread,%.6f\n%s/mean,%.6f\n", i, hi - lo, i, s / n }' "$dir/rows"
    done; } > "$out/compress_noise.csv"
  echo "bench: compress_noise"; sed 1d "$out/compress_noise.csv" | show
  rm -rf "$dir"
}

# Chapter 10's census of the gradient against half's range: ./mlp (one device, chapter 1's
# program) with its defaults, and on chapter 10's IDX files the light (8 epochs) and heavy (4)
# shapes; the census columns of every epoch's --log row, and per case the worst epoch of each.
part_half_range() {
  local dir data cfg key
  dir=$(mktemp -d)
  data=$PWD/build/compress_data
  "$PY" bench/compress_data.py "$data" 2>/dev/null || data=""
  { printf '# machine: %s; ./mlp --log, the census of the last gradient of every epoch (rank 0, fp32): fractions of all entries that are 0 (grad_zero), that half rounds to 0 (half_lost) or holds as a subnormal (half_subnormal), as they are and times 2^16 (_s16); ch1 = ./mlp --epochs 5 (synthetic data), light = --epochs 8 and heavy = --hidden 1024,1024 --epochs 4 on bench/compress_data.py'"'"'s files; CASE/max: the largest of each column over the epochs\n' "$machine"
    echo "case,grad_absmax,grad_zero,half_lost,half_subnormal,half_lost_s16,half_subnormal_s16"
    for cfg in "ch1:--epochs 5" "light:--epochs 8 --data $data" "heavy:--epochs 4 --hidden 1024,1024 --data $data"; do
      key=${cfg%%:*}
      [ "$key" = ch1 ] || [ -n "$data" ] || continue
      # shellcheck disable=SC2086 # the options split on purpose
      ./mlp ${cfg#*:} --device cpu --quiet --log "$dir/log" >/dev/null 2>&1 || { status=1; continue; }
      awk -F, -v k="$key" 'NR > 1 { printf "%s/%s", k, $1; for (i = 9; i <= 14; i++) { printf ",%s", $i; if (NR == 2 || $i + 0 > m[i]) m[i] = $i + 0 }; print "" }
        END { printf "%s/max", k; for (i = 9; i <= 14; i++) printf ",%.6g", m[i]; print "" }' "$dir/log"
    done; } > "$out/half_range.csv"
  echo "bench: half_range"; sed 1d "$out/half_range.csv" | show
  rm -rf "$dir"
}

# Chapter 11: the heavy shape (784-1024-1024-10) at 4 ranks with one global batch of 256,
# three ways: data parallelism (the ring, 64 a rank), the grid (2 rows of 2, 128 a row) and
# tensor parallelism (1 row of 4, 256), beside one device (./train --strategy single, 256);
# ms per step (median of the epochs after the first, medians of 3 alternating rounds),
# rank 0's state (the log), and the bytes a step sends from rank 0 along its row and down
# its column (the report). Then, as root, on 2 test hosts x 2 ranks at 1 Gbit/s: the ring,
# the grid with its rows within a host (mpirun's default placement) and with its rows
# across the hosts (--map-by node).
tensor_case() { # NAME N ARGS...: one run into $dir/NAME.{log,out}, its row appended to $dir/NAME
  local name=$1; shift
  "$@" --hidden 1024,1024 --train_size 8192 --epochs 3 --device cpu --log "$dir/$name.log" \
    > "$dir/$name.out" 2>&1 || { echo "bench: tensor: $name failed: $(tail -1 "$dir/$name.out")"; status=1; return; }
  echo "$(compress_step_ms "$dir/$name.log") $(tail -1 "$dir/$name.log" | cut -d, -f8) $(awk '/^tensor: a step sends/ { print $8, $20, $35 }' "$dir/$name.out")" >> "$dir/$name"
}
tensor_row() { # NAME: "NAME,ms,state,row,col,ring" from the rounds' medians
  [ -s "$dir/$1" ] && echo "$1,$(for c in 1 2 3 4 5; do awk -v c=$c '{ print ($c == "" ? 0 : $c) }' "$dir/$1" | median; done | paste -sd,)"
}
part_tensor() {
  local dir round
  dir=$(mktemp -d)
  { printf '# machine: %s; --hidden 1024,1024 --train_size 8192 --epochs 3, global batch 256; ms_per_step: median of the epochs after the first, median of 3 alternating rounds; state_bytes: rank 0 (parameters and gradients, sgd); row_bytes, col_bytes: what a step sends from rank 0 along its row (activations) and down its column (gradients), and ring_bytes what the ring on all 4 ranks would send (the tensor rows only); hosts/...: 2 test hosts x 2 ranks at 1 Gbit/s, mpirun\n' "$machine"
    echo "case,ms_per_step,state_bytes,row_bytes,col_bytes,ring_bytes"
    for round in 1 2 3; do
      tensor_case one ./train --strategy single --batch_size 256
      tensor_case dp ./train --strategy ring --n_gpus 4 --batch_size 64
      tensor_case grid ./train --strategy tensor --n_gpus 4 --tp 2 --batch_size 128
      tensor_case tensor ./train --strategy tensor --n_gpus 4 --batch_size 256
    done
    for name in one dp grid tensor; do tensor_row $name; done
    if [ "$(id -u)" = 0 ] && hosts_sh up 2 1gbit >/dev/null 2>&1; then
      for round in 1 2 3; do
        tensor_case hosts_dp hosts_sh run 2 ./train --transport mpi --strategy ring --batch_size 64
        tensor_case hosts_grid_rows_within hosts_sh run 2 ./train --transport mpi --strategy tensor --tp 2 --batch_size 128
        tensor_case hosts_grid_rows_across hosts_sh run 2 --map-by node ./train --transport mpi --strategy tensor --tp 2 --batch_size 128
      done
      hosts_sh down >/dev/null 2>&1
      for name in hosts_dp hosts_grid_rows_within hosts_grid_rows_across; do tensor_row $name | sed 's|^hosts_|hosts/|'; done
    else
      hosts_sh down >/dev/null 2>&1
    fi; } > "$out/tensor.csv"
  echo "bench: tensor"; sed 1d "$out/tensor.csv" | show
  rm -rf "$dir"
}

part_timelines() {
  BENCH_OUT=$out bench/timelines.sh || status=1
}

for p in $PARTS; do
  declare -F "part_$p" >/dev/null || { echo "bench: BENCH_PARTS: no part $p (one of: $ALL_PARTS)" >&2; exit 2; }
done
for p in $PARTS; do
  "part_$p"
  echo
done
echo "bench: CSV files in $out/"
exit $status
