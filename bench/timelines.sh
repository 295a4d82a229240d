#!/bin/bash
# The book's timelines (part of make bench): one step of a traced run, as CSV for
# book/timeline.awk: the buckets of chapter 6 and FSDP's prefetch of chapter 7, 2 ranks,
# three hidden layers of 512, steps 10 to 12 of 25 (the first ones warm the caches up).
set -u
cd "$(dirname "$0")/.."
out=book/data
machine="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -sr), $(date -u +%F)"
status=0
timeline() { # name strategy-arguments...
  local name=$1; shift
  local trace; trace=$(mktemp)
  local args=(--n_gpus 2 --hidden 512,512,512 --train_size 3200 --epochs 1 --quiet --device cpu)
  if ./train "$@" "${args[@]}" --trace "$trace" >/dev/null; then
    { printf '# machine: %s; ./train %s %s, steps 10-12\n' "$machine" "$*" "${args[*]}"
      echo "rank,lane,start_us,dur_us,name"
      awk -v step=10 -v steps=3 -f scripts/trace_step.awk "$trace" "$trace" | sort -t, -k1,1n -k3,3n; } \
      > "$out/timeline-$name.csv"
    echo "bench: timeline of $* in $out/timeline-$name.csv"
  else
    echo "bench: timeline of $*: failed"; status=1
  fi
  rm -f "$trace"
}
timeline buckets --strategy ring_bucketed --bucket_mb 0.5
timeline fsdp --strategy fsdp
exit $status
