#!/usr/bin/env bash
# make matrix: the build variants a reader's machine may differ by, each compiled with
# -Werror and put through the suite, and what each does to the numbers of chapter 1.
#
#   scripts/matrix.sh [NAME...]      every variant (or those named), in the order below
#   scripts/matrix.sh --spread       only the sample runs of every variant (no suite)
#
# Either writes the sample runs' figures into build/matrix/spread.csv, and into SPREAD_OUT
# too when it is set (make bench's "spread" part: book/data/spread.csv).
#
# A variant that changes the build is a copy of this tree built in build/matrix/NAME (what
# git tracks, and what it would track: no build output). A variant that changes only the
# machine the programs see runs the suite of one copy built as the book is (build/matrix/
# book) under that change. Each runs `make test` (the drift check, the exercises with
# their public and hidden tests under `prove`, the book's Criterion tests), and then the
# two sample runs of the README, whose loss and accuracies go to the spread table.
#
#   name          what differs                                       the question
#   default       nothing: the book's build (its suite is make test's) the reference
#   no-blas       NO_BLAS=1: the plain-C GEMM                        the README's fallback
#   no-cuda       nvcc neither on PATH nor in CUDA_HOME              a laptop
#   no-mpi        NO_MPI=1                                           no Open MPI
#   clang         CC=clang (Debian 12: clang 14; FMA contraction on) another compiler
#   gcc-11        CC=gcc-11 (Ubuntu 22.04's)                         an older one
#   portable      NATIVE=0: no -march=native                         code for any x86-64
#   haswell       OPENBLAS_CORETYPE=Haswell (AVX2 kernels)           another CPU's BLAS
#   prescott      OPENBLAS_CORETYPE=Prescott (SSE3 kernels)          an old CPU's BLAS
#   1-core        taskset: one core allowed (the first of this one's) a small VM
#   8-cores       tests/fake_cores.c: every program hears 8 cores    a larger machine
#
# A variant whose tool is missing (gcc-11, clang) is installed through scripts/deps.sh when
# that can be done, and skipped, saying why, when it cannot. Prints a line per variant with
# its time and the suite's counts; exits non-zero when any variant fails.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
dir=${MATRIX_DIR:-build/matrix}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
ALL=(default no-blas no-cuda no-mpi clang gcc-11 portable haswell prescott 1-core 8-cores)
spread_only=
if [ "${1:-}" = --spread ]; then spread_only=1; shift; fi
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${ALL[@]}")
for n in "${names[@]}"; do
    [[ " ${ALL[*]} " == *" $n "* ]] || { echo "matrix: no variant '$n' (${ALL[*]})" >&2; exit 2; }
done

# A copy of the tree in $dir/NAME (what git tracks or would; the programs and build/ not).
copy_tree() {
    local d=$dir/$1
    rm -rf "$d" && mkdir -p "$d"
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$d"
    else
        tar -cf - --exclude=./build --exclude=./book/book.pdf . | tar -xf - -C "$d"
        (cd "$d" && rm -f $(sed -n 's/^PROGRAMS *:= *//p' Makefile))
    fi
}

# PATH without any directory that holds nvcc: a machine without the CUDA toolkit.
path_without_nvcc() {
    local out= p
    IFS=: read -ra parts <<<"$PATH"
    for p in "${parts[@]}"; do [ -x "$p/nvcc" ] || out=${out:+$out:}$p; done
    printf '%s' "$out"
}

# What a variant builds with (make arguments) and runs under (a command prefix).
make_args() {
    case $1 in
    no-blas) echo NO_BLAS=1 ;; no-mpi) echo NO_MPI=1 ;; clang) echo CC=clang ;;
    gcc-11) echo CC=gcc-11 ;; portable) echo NATIVE=0 ;; no-cuda) echo CUDA_HOME=/nonexistent ;;
    esac
}
copy_of() { # the copy a variant runs in: its own, or the book's build for a machine change
    case $1 in default|haswell|prescott|1-core|8-cores) echo book ;; *) echo "$1" ;; esac
}
run_under() { # run_under NAME COMMAND...: the command as the variant's machine runs it
    local name=$1
    shift
    case $name in
    haswell) OPENBLAS_CORETYPE=Haswell "$@" ;;
    prescott) OPENBLAS_CORETYPE=Prescott "$@" ;;
    1-core) taskset -c "$first_cpu" "$@" ;;
    8-cores) DPS_FAKE_CORES=8 LD_PRELOAD="$dir/fake_cores.so" "$@" ;;
    no-cuda) env -u NVCC PATH="$(path_without_nvcc)" "$@" ;;
    *) "$@" ;;
    esac
}

# The tool a variant needs, installed when it can be; 1 (skip) with the reason when not.
# gcc 11 comes with its C++ library, as on Ubuntu 22.04 (build-essential), for the CUDA
# backend's link. OpenBLAS does not check a kernel family it is told to use: Haswell's on a
# processor without AVX2 and FMA would die on an illegal instruction.
need() {
    local cc pkg
    if [ "$1" = haswell ] && ! { grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; }; then
        why="this processor has no AVX2 or no FMA, which OpenBLAS's Haswell kernels use"
        return 1
    fi
    case $1 in clang) cc=clang pkg=clang ;; gcc-11) cc=gcc-11 pkg=g++-11 ;; *) return 0 ;; esac
    links() { echo 'int main(void) { return 0; }' | $cc -x c - -lstdc++ -o /dev/null 2>/dev/null; }
    command -v $cc >/dev/null && links && return 0
    scripts/deps.sh "the $1 variant" "$pkg" >/dev/null 2>&1 && command -v $cc >/dev/null && links && return 0
    why="$pkg is not installed and cannot be (scripts/deps.sh $pkg failed: not root, or not in this Debian)"
    return 1
}

${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -fPIC -shared tests/fake_cores.c -o "$dir/fake_cores.so" -ldl ||
    { echo "matrix: tests/fake_cores.c does not compile" >&2; exit 1; }
# The first core this process may run on, for the 1-core variant (a cpuset may leave out 0).
first_cpu=$(awk '/^Cpus_allowed_list:/ { split($2, c, /[,-]/); print c[1] }' /proc/self/status)
# The copies have no build/: where this tree's clang-format 14 is a wheel of its own (Debian
# 13), the copies are told where it is rather than each making one again.
cf_args=()
command -v clang-format-14 >/dev/null || [ ! -x "$top/build/tools/clang-format-14/bin/clang-format" ] ||
    cf_args=(CLANG_FORMAT="$top/build/tools/clang-format-14/bin/clang-format")
spread=$dir/spread.rows
: >"$spread"
built=" "
fail=0 skipped=0
t_all=$(date +%s)
for name in "${names[@]}"; do
    why=
    if ! need "$name"; then
        printf 'matrix: %-9s skipped: %s\n' "$name" "$why"
        skipped=$((skipped + 1))
        continue
    fi
    c=$(copy_of "$name") t0=$(date +%s) log=$dir/$name.log
    # shellcheck disable=SC2046
    args=($(make_args "$name") "${cf_args[@]}")
    if [[ "$built" != *" $c "* ]]; then
        copy_tree "$c" || { echo "matrix: cannot copy the tree into $dir/$c" >&2; exit 1; }
        built+="$c "
    fi
    if [ -z "$spread_only" ] && [ "$name" != default ]; then
        if [ "$c" = "$name" ]; then
            run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" test >"$log" 2>&1
        else
            run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" test-run >"$log" 2>&1
        fi
    else
        run_under "$name" make -C "$dir/$c" --no-print-directory -s "${args[@]}" mlp ring >"$log" 2>&1
    fi
    rc=$?
    # The README's two sample runs, on this variant: loss and accuracies of the last epoch.
    if [ $rc = 0 ]; then
        for cmd in "./mlp --epochs 3" "./ring --n_gpus 4 --epochs 3"; do
            # shellcheck disable=SC2086
            out=$(cd "$dir/$c" && run_under "$name" $cmd --device cpu 2>&1) || { rc=1; echo "$out" >>"$log"; break; }
            awk -v v="$name" -v p="${cmd%% *}" '/^epoch 3\/3/ { gsub(/%/, ""); row = v "/" substr(p, 3) "," $4 "," $6 "," $8 }
                /^replicas:/ { sub(/.*hash /, ""); sub(/\)/, ""); h = $0 } END { print row "," h }' <<<"$out" >>"$spread"
        done
    fi
    summary=$(grep -h -e '^\[====\] Synthesis' "$log" | sed 's/^\[====\] Synthesis: //; s/ *$//')
    prove=$(grep -h '^prove: ' "$log" | sed 's/^prove: //' | cut -c1-70)
    printf 'matrix: %-9s %-7s %4d s  %s%s\n' "$name" "$([ $rc = 0 ] && echo passed || echo FAILED)" \
        "$(($(date +%s) - t0))" "${summary:-(no suite)}" "${prove:+; prove: $prove}"
    if [ $rc != 0 ]; then
        fail=1
        grep -h -e '\[FAIL\]' -e 'error:' -e 'FAILED' -e '\*\*\*' "$log" | head -8 | sed 's/^/    /'
        echo "    (the whole log: $log)"
    fi
done

# The spread: the rows (variant/program, the last epoch's loss and accuracies, the replicas'
# hash), and what they come to across the variants.
if [ -s "$spread" ]; then
    {
        printf '# machine: %s, %s cores, %s, %s; the last epoch of ./mlp --epochs 3 and of ./ring --n_gpus 4 --epochs 3 in each variant of scripts/matrix.sh\n' \
            "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" "$(nproc)" "$(uname -sr)" "$(date -u +%F)"
        echo "run,loss,train_acc,test_acc,hash"
        cat "$spread"
    } >"$dir/spread.csv"
    # what the spread comes to, as the README says it (scripts/spread_facts.sh)
    scripts/spread_facts.sh "$dir/spread.csv" | sed 's/^/matrix: /'
    [ -z "${SPREAD_OUT:-}" ] || cp "$dir/spread.csv" "$SPREAD_OUT"
fi
echo "matrix: $( [ $fail = 0 ] && echo "every variant passed" || echo "a variant FAILED")$( [ $skipped = 0 ] || echo ", $skipped skipped (above)") ($(($(date +%s) - t_all)) s)"
exit $fail
