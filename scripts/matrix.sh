#!/usr/bin/env bash
# make matrix: the build variants a reader's machine may differ by, each compiled with
# -Werror and put through the suite, and what each does to the numbers of chapter 1.
#
#   scripts/matrix.sh [NAME...]      every variant (or those named), in the order below
#   scripts/matrix.sh --scoped NAME  the variant built with -Werror, then only what its
#                                    difference can change (the SCOPE column below) and the
#                                    sample runs: .ci/run's form of it; make ci-full runs all
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
# The scoped form (.ci/run) builds each variant with -Werror (every program and the twin) and
# runs, beside the two sample runs, only the suites its difference can reach: a chapter's
# suite is `make test-run CHAPTER=N` (its book tests and its exercises' proof), "prove" is
# every exercise's proof (every solution passes every public and hidden test, every
# skeleton fails each one), "solutions" every solution's tests built and none run. Why each:
#
#   name       scope              why those
#   default    (samples)          its suite is make test's, which CI runs beside this
#   no-blas    1                  only chapter 1's device (the GEMM) and tests read HAVE_BLAS
#   no-cuda    1 2                HAVE_CUDA: the device loader (ch1) and the launcher's refusal
#                                 to fork after CUDA (ch2); the twin is built either way
#   no-mpi     6                  MPI is a backend (chapter 6), so a build without it differs
#                                 only in comm_mpi.c's refusal, which chapter 6 tests; the
#                                 other chapters' MPI runs merely skip
#   clang      prove 1            another compiler: FMA contraction and its support touch every
#                                 numeric test of every exercise (the proof), and chapter 1's
#                                 kernels; the rest of the suite compares runs of one build
#   gcc-11     solutions 1        an older GCC, whose contraction is this one's: its support
#                                 (every solution's tests built) and chapter 1's kernels
#   portable   1                  no -march=native: chapter 1's kernels vectorise otherwise
#   haswell    1                  another BLAS kernel family: chapter 1's GEMM and training
#   prescott   1                  (the samples train through the same BLAS)
#   1-core     2 3 5 8 B          the spin-waits and watchdogs that must make progress on one
#                                 core: channels and barriers, the server, the ring, the direct
#                                 path's flags, appendix B's faults and time limits
#   8-cores    1 2 8              the code and tests that read the core count: the machine
#                                 report, the barrier's and channels' spin policy, the binding
scope() {
    case $1 in
    default) echo "" ;; no-blas | portable | haswell | prescott) echo 1 ;; no-cuda) echo "1 2" ;;
    no-mpi) echo 6 ;; clang) echo "prove 1" ;; gcc-11) echo "solutions 1" ;; 1-core) echo "2 3 5 8 B" ;;
    8-cores) echo "1 2 8" ;;
    esac
}

# A variant whose tool is missing (gcc-11, clang) is installed through scripts/deps.sh when
# that can be done, and skipped, saying why, when it cannot. Prints a line per variant with
# its time and the suite's counts; exits non-zero when any variant fails.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
dir=${MATRIX_DIR:-build/matrix}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
ALL=(default no-blas no-cuda no-mpi clang gcc-11 portable haswell prescott 1-core 8-cores)
spread_only= scoped=
if [ "${1:-}" = --spread ]; then spread_only=1; shift; fi
if [ "${1:-}" = --scoped ]; then scoped=1; shift; fi
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${ALL[@]}")
for n in "${names[@]}"; do
    [[ " ${ALL[*]} " == *" $n "* ]] || { echo "matrix: no variant '$n' (${ALL[*]})" >&2; exit 2; }
done

# The tree a copy holds (what git tracks or would; the programs and build/ not), as a tar.
tree_tar() {
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files -z --cached --others --exclude-standard | tar -cf - --null --sort=name --mtime=@0 -T -
    else
        tar -cf - --sort=name --mtime=@0 --exclude=./build --exclude=./book/book.pdf \
            $(sed -n 's/^PROGRAMS *:= *//p' Makefile | sed 's|[^ ]*|--exclude=./&|g') .
    fi
}
# A copy of the tree in $dir/NAME, kept (with what was built in it) when it already holds
# this very tree: the scoped variants, each a stage of its own in .ci/run, share the book's.
copy_tree() {
    local d=$dir/$1 key
    key=$(tree_tar | sha256sum | cut -c1-64)
    [ "$(cat "$d/.matrix-key" 2>/dev/null)" = "$key" ] && return 0
    rm -rf "$d" && mkdir -p "$d"
    tree_tar | tar -xf - -C "$d" && echo "$key" >"$d/.matrix-key"
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
    # Every program, the library and the twin, with -Werror (the Makefile's default), two jobs.
    run_under "$name" make -C "$dir/$c" --no-print-directory -s -j2 "${args[@]}" all build/tests/libdps_twin.so >"$log" 2>&1
    rc=$?
    if [ $rc != 0 ] || [ -n "$spread_only" ] || [ "$name" = default ]; then
        :
    elif [ -n "$scoped" ]; then
        for s in $(scope "$name"); do
            if [ "$s" = prove ] || [ "$s" = solutions ]; then
                run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" "$s" >>"$log" 2>&1
            else
                run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" test-run CHAPTER="$s" >>"$log" 2>&1
            fi || rc=1
        done
    elif [ "$c" = "$name" ]; then
        run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" test >>"$log" 2>&1
        rc=$?
    else
        run_under "$name" make -C "$dir/$c" --no-print-directory "${args[@]}" test-run >>"$log" 2>&1
        rc=$?
    fi
    # The README's two sample runs, on this variant: loss and accuracies of the last epoch.
    if [ $rc = 0 ]; then
        for cmd in "./mlp --epochs 3" "./ring --n_gpus 4 --epochs 3"; do
            # shellcheck disable=SC2086
            out=$(cd "$dir/$c" && run_under "$name" $cmd --device cpu 2>&1) || { rc=1; echo "$out" >>"$log"; break; }
            awk -v v="$name" -v p="${cmd%% *}" '/^epoch 3\/3/ { gsub(/%/, ""); row = v "/" substr(p, 3) "," $4 "," $6 "," $8 }
                /^replicas:/ { sub(/.*hash /, ""); sub(/\)/, ""); h = $0 } END { print row "," h }' <<<"$out" >>"$spread"
        done
    fi
    # The suites' counts, added up over a scoped variant's chapters.
    summary=$(awk '/^\[====\] Synthesis/ { n++; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v[$(i - 1)] += $i }
        END { if (n) printf "Tested: %d | Passing: %d | Failing: %d | Crashing: %d", v["Tested:"], v["Passing:"], v["Failing:"], v["Crashing:"] }' "$log")
    [ -z "$scoped" ] || [ -z "$(scope "$name")" ] || summary="${summary:-no suite}; scope: $(scope "$name")"
    # The proofs' counts, added up likewise (a line that is not a count is shown as it is).
    prove=$(awk '/^prove: [0-9]+ solutions pass all/ { n += $2; p += $6; h += $9; c++; next } /^prove: / { sub(/^prove: /, ""); o = $0 }
        END { if (o != "") print substr(o, 1, 70); else if (c) printf "%d solutions pass all %d public and %d hidden tests", n, p, h }' "$log")
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
    [ -n "$scoped" ] || scripts/spread_facts.sh "$dir/spread.csv" | sed 's/^/matrix: /'
    [ -z "${SPREAD_OUT:-}" ] || cp "$dir/spread.csv" "$SPREAD_OUT"
fi
echo "matrix: $( [ $fail = 0 ] && echo "every variant passed" || echo "a variant FAILED")$( [ $skipped = 0 ] || echo ", $skipped skipped (above)") ($(($(date +%s) - t_all)) s)"
exit $fail
