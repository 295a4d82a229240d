#!/bin/bash
# The book's timelines (part of make bench): one step of a traced run, as CSV for
# book/timeline.awk: the buckets of chapter 6 and FSDP's prefetch of chapter 7, 2 ranks,
# three hidden layers of 512, steps 10 to 12 of 25 (the first ones warm the caches up).
set -u
cd "$(dirname "$0")/.."
out=${BENCH_OUT:-book/data}
mkdir -p "$out"
machine="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -sr), $(date -u +%F)"
status=0
# The figures the prose quotes from a timeline, a row per rank and step: how long the step
# took (from its "data" span to the next one's, or to the end of its last span), how long
# the training thread waited (lane 2), how long the communication thread worked (lane 1),
# in how many operations, and the longest of them.
steps() {
  awk -F, 'NR == 1 { print; print "key,rank,step,step_ms,wait_ms,comm_ms,comm_ops,comm_max_ms"; next }
    /^rank,/ { next }
    { e = $3 + $4; if (e > end[$1]) end[$1] = e
      if ($2 == 0 && $5 == "data") { k = ++n[$1]; from[$1, k] = $3 }
      k = n[$1]; if ($2 == 2) wait[$1, k] += $4
      if ($2 == 1) { comm[$1, k] += $4; ops[$1, k]++; if ($4 > mx[$1, k]) mx[$1, k] = $4 } }
    END { for (r = 0; r in n; r++) for (k = 1; k <= n[r]; k++) {
            to = k < n[r] ? from[r, k + 1] : end[r]
            printf "%d/%d,%d,%d,%.2f,%.2f,%.2f,%d,%.2f\n", r, k, r, k, (to - from[r, k]) / 1000,
                   wait[r, k] / 1000, comm[r, k] / 1000, ops[r, k], mx[r, k] / 1000 } }' "$1"
}
timeline() { # name strategy-arguments...
  local name=$1; shift
  local trace; trace=$(mktemp)
  local args=(--n_gpus 2 --hidden 512,512,512 --train_size 3200 --epochs 1 --quiet --device cpu)
  if ./train "$@" "${args[@]}" --trace "$trace" >/dev/null; then
    { printf '# machine: %s; ./train %s %s, steps 10-12\n' "$machine" "$*" "${args[*]}"
      echo "rank,lane,start_us,dur_us,name"
      awk -v step=10 -v steps=3 -f scripts/trace_step.awk "$trace" "$trace" | sort -t, -k1,1n -k3,3n; } \
      > "$out/timeline-$name.csv"
    steps "$out/timeline-$name.csv" > "$out/steps-$name.csv"
    echo "bench: timeline of $* in $out/timeline-$name.csv"; sed 1,2d "$out/steps-$name.csv"
  else
    echo "bench: timeline of $*: failed"; status=1
  fi
  rm -f "$trace"
}
timeline buckets --strategy ring_bucketed --bucket_mb 0.5
timeline fsdp --strategy fsdp
exit $status
