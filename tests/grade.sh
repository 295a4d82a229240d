#!/usr/bin/env bash
# The exercise harness. Called by make (which passes CC, CFLAGS, LDLIBS and LIB) and by the
# Gradescope autograder (instructors/autograder/run_autograder).
#
#   tests/grade.sh test  [CHAPTER]  run the public tests of every started exercise in
#                                   exercises/; list the untouched ones as not started; fail
#                                   if a started one fails (make test)
#   tests/grade.sh grade [CHAPTER]  score table and results.json (Gradescope's format): the
#                                   public tests and, where tests/hidden/ exists, the hidden
#                                   ones; exit 0 only at full marks (make grade, autograder)
#   tests/grade.sh prove [CHAPTER]  every solution passes every public and hidden test and
#                                   every pristine skeleton fails each one (make test, when
#                                   solutions/ exists); with DPS_TEST_DEVICE other than cpu,
#                                   only the exercises whose tests open the device under test;
#                                   with PROVE_ONLY=solutions (SANITIZE=), the solutions only
#   tests/grade.sh solutions        build the solutions' test binaries, run nothing (make soak)
#   tests/grade.sh substitute DIR   grade each function of the handout that fits an
#                                   exercise's prototype (scripts/substitutes.py wrote them
#                                   to DIR); fail if one passes (make handout-check)
#   tests/grade.sh replacing        "chN/name:book_function" for each started exercise that
#                                   replaces a book function (make chapterN EXERCISES=1)
#   tests/grade.sh place DIR        copy each exercise's file found in DIR (a submission, in
#                                   any layout) over exercises/; say which were taken
#
# exercises/MANIFEST lists each exercise: chapter, name, stars, points, the book function
# it replaces (or -), the SHA-256 of its pristine skeleton, and its title. An exercise
# whose file still has that hash is "not started".
#
# An exercise's tests are tests/chN/ex_NAME.c (public, in the students' handout) and
# tests/hidden/chN/ex_NAME.c (hidden: in the instructor's tree and the autograder only).
# Every test runs in a process of its own under `timeout`: Criterion's own --timeout does
# not stop a test that spins (TOOLCHAIN.md), and a student's deadlock must cost that test,
# not the run. The exercise's points are shared equally by its public and hidden tests.
#
# Environment: GRADE_TIMEOUT (seconds per test, 60), GRADE_RESULTS (where results.json
# goes, ./results.json), GRADE_HIDDEN_VISIBILITY (Gradescope's visibility of the hidden
# tests' results, after_published), GRADE_NOTE (a file whose text heads results.json's
# output: the autograder's list of the files it took), GRADE_JAIL (1: the autograder's
# jail, tests/jail/jail.h; the student's code runs as a fresh uid for each exercise, from
# GRADE_JAIL_UIDS (below), in a process of its own, and never in the test's), GRADE_SANDBOX
# (the jail's mode: auto, 1 or 0; below).
set -uo pipefail
# Bash reads a script as it runs it; this brace makes it read the whole of it first, so a
# file changed while grading cannot change what runs.
{
mode=${1:?usage: tests/grade.sh test|grade|prove|solutions|substitute|replacing|place [CHAPTER|DIR]}
# Nothing made here is writable by others, whatever the umask given (with 000, Criterion's
# socket in /tmp would take a verdict from any user who connects): at least 022.
umask "$(printf '%03o' $((8#$(umask) | 8#022)))"
arg=${2:-}
# The chapters graded: CHAPTER ("4", "ch4", or a list, "3 4" or "3,4"), else GRADE_CHAPTERS
# (a weekly autograder's, from instructors/autograder/env.sh), else every chapter.
only=$(printf '%s' "${arg:-${GRADE_CHAPTERS:-}}" | sed 's/ch//g; s/,/ /g')
[ "$mode" = place ] || [ "$mode" = substitute ] && only=$(printf '%s' "${GRADE_CHAPTERS:-}" | sed 's/ch//g; s/,/ /g')
: "${CC:=gcc}" "${CFLAGS:=}" "${LDLIBS:=}" "${LIB:=build/libdps.a}"
: "${GRADE_TIMEOUT:=60}" "${GRADE_RESULTS:=results.json}" "${GRADE_HIDDEN_VISIBILITY:=after_published}"
manifest=exercises/MANIFEST
work=build/ex
mkdir -p "$work" 2>/dev/null

[ -f "$manifest" ] || { echo "grade: $manifest is missing" >&2; exit 1; }

# The jail (GRADE_JAIL=1, the autograder's setting): the tests are built from the test file,
# the library and the proxies of tests/jail, never from the student's file, which the
# unprivileged user compiles into a shared object that only the jail's host loads. The
# grader's own files (the tests, their binaries, the book's answers) are closed to that user.
#
# Root never opens, creates, truncates, chowns or removes a path below a directory that user
# can write: everything root writes is in build/ex (0700), build/tmp (its TMPDIR) and
# build/jail (0755, root's); the user's one directory is build/jail/student, which root only
# names to the user's own processes (the compiler) and reads from through tests/jail/warden.c
# (O_NOFOLLOW, relative to a descriptor). After the compiler and after every test the warden
# kills every process of the user and removes its files wherever it can write (the sweep).
: "${GRADE_JAIL:=0}"
# Seconds one exercise may spend, its compiler and all its tests (0: no such budget); seconds
# the compiler may run (within that budget).
: "${GRADE_BUDGET:=0}" "${GRADE_COMPILE_TIMEOUT:=30}"
jail=build/jail
WARDEN= SWEEP_FAILED=
jail_failed() {
    echo "grade: $1" >&2
    [ "$mode" = grade ] && results_failed "$1"
    exit 3
}
jail_setup() {
    [ "$GRADE_JAIL" = 1 ] || return 0
    if [ "$(id -u)" = 0 ]; then
        [[ $GRADE_JAIL_UIDS =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] && [ "${GRADE_JAIL_UIDS%:*}" -ge 1000 ] &&
            [ $((${GRADE_JAIL_UIDS%:*} + ${GRADE_JAIL_UIDS#*:})) -le 4294967294 ] ||
            jail_failed "GRADE_JAIL_UIDS=${GRADE_JAIL_UIDS:-(none: this user namespace maps no range of uids above 1000)}: FIRST:COUNT, uids from 1000 to 4294967294"
        fresh_user || jail_failed "no free uid for the jail in GRADE_JAIL_UIDS=$GRADE_JAIL_UIDS"
    else
        juid=$(id -u) jgid=$(id -g)
        echo "grade: not root: the exercises run in processes of their own, but as $(id -un), so the isolation from the grader's files was not exercised"
    fi
    mkdir -p "$jail/src" "$jail/so" build/tmp || exit 3
    chmod 755 "$jail" "$jail/src" "$jail/so" && chmod 700 "$work" build/tmp tests/hidden chapters instructors 2>/dev/null
    export TMPDIR=$PWD/build/tmp
    local o src d
    for src in wire judge host exercises exercises-judge; do
        o=$jail/$src.o
        $CC $CFLAGS $([ $src = exercises-judge ] && echo -DJAIL_JUDGE) -c "tests/jail/${src%-judge}.c" \
            -o "$o" 2>"$o.log" || { cat "$o.log"; jail_failed "the jail does not compile"; }
    done
    $CC $CFLAGS "$jail/host.o" "$jail/wire.o" "$jail/exercises.o" -Wl,--whole-archive "$LIB" \
        -Wl,--no-whole-archive -o "$jail/host" $LDLIBS 2>"$jail/host.log" ||
        { cat "$jail/host.log"; jail_failed "the jail's host does not link"; }
    $CC $CFLAGS tests/jail/warden.c "$jail/wire.o" -o "$jail/warden" 2>"$jail/warden.log" ||
        { cat "$jail/warden.log"; jail_failed "the jail's warden does not build"; }
    WARDEN=$jail/warden
    # A uid this namespace does not map cannot be become: every test would fail as the
    # student's. Tried once, here, before anything is graded.
    if [ "$(id -u)" = 0 ] && ! "$WARDEN" run --timeout 10 --drop "$juid:$jgid" -- /bin/true 2>"$work/drop.log"; then
        jail_failed "the jail cannot become uid $juid (GRADE_JAIL_UIDS=$GRADE_JAIL_UIDS; /proc/self/uid_map: $(tr -s ' \n' ' ' </proc/self/uid_map)): $(tail -1 "$work/drop.log")"
    fi
    # The users' directories an earlier grade left (the last one's, and any a failed sweep set
    # aside): what is in them is their user's to remove (the sweep, as that user), and root
    # removes only the empty directories from its own.
    for d in "$jail/student" "$jail"/left.*; do
        [ -d "$d" ] || continue
        if [ "$(id -u)" = 0 ] && [ "$(stat -c %u "$d")" = 0 ]; then
            rm -rf "$d" # root's own (made, and never handed over): no one else wrote in it
        elif [ "$(id -u)" = 0 ]; then
            printf '%s\0' "$PWD/$d" >"$work/writable"
            "$WARDEN" sweep "$(stat -c %u:%g "$d")" "$work/writable" && rmdir "$d" ||
                jail_failed "the jail's directory $d could not be emptied"
        else
            rm -rf "$d"
        fi
    done
    student_dir
    # Where the user can write: its files there are removed after every test. Any uid of the
    # jail's, with no group, can write the same directories, its own apart.
    if [ "$(id -u)" = 0 ]; then
        "$WARDEN" run --timeout 120 "${DROP[@]}" -- find / \( -path /proc -o -path /sys \) -prune \
            -o -type d -writable -print0 >"$work/writable" 2>/dev/null
    fi
    sandbox_setup
    JAIL_OBJS="$jail/judge.o $jail/wire.o $jail/exercises-judge.o"
    JAIL_LIST=$("$jail/host" --list)
    export JAIL_HOST=$jail/host
}
# The jail's users (root): every exercise runs as a uid of its own, picked at random from
# GRADE_JAIL_UIDS (FIRST:COUNT) among those that no process has and the passwd and group files
# do not name, with the group of the same number and no other. What one exercise's code
# leaves (a process the sweep missed, a file, a key, an object of the kernel's) is another
# user's to the next exercise's, and a grade beside this one (on the same machine, in the
# same container) has users of its own, whose processes this one's sweep never signals: two
# gradings pick the same uid with a chance of about 1 in COUNT / (exercises squared).
# The default: 1500000000 and the 500000000 after it, where this process's user namespace
# maps them (a container's root as the machine's, or a user namespace mapping every uid);
# else the upper half of the largest range it maps above 1000 (a rootless container maps
# perhaps 65,536 uids, and a uid it does not map cannot be become).
default_uids() {
    awk 'BEGIN { best = 0 }
         { lo = $1; hi = $1 + $3; if (lo <= 1500000000 && hi >= 2000000000) { full = 1 }
           if (lo < 1000) lo = 1000; if (hi - lo > best) { best = hi - lo; from = lo } }
         END { if (full) print "1500000000:500000000"
               else if (best >= 64) print int(from + best / 2) ":" int(best / 2)
               else print "" }' /proc/self/uid_map 2>/dev/null
}
: "${GRADE_JAIL_UIDS:=$(default_uids)}"
fresh_user() {
    local first=${GRADE_JAIL_UIDS%:*} count=${GRADE_JAIL_UIDS#*:} u try
    for try in 1 2 3 4 5 6 7 8 9 10; do
        u=$((first + ((RANDOM << 30 | RANDOM << 15 | RANDOM) % count)))
        getent passwd "$u" >/dev/null || getent group "$u" >/dev/null && continue
        awk -v u="$u" '/^Uid:/ { for (i = 2; i <= 5; i++) if ($i == u) found = 1 } END { exit !found }' \
            /proc/[0-9]*/status 2>/dev/null && continue
        juid=$u jgid=$u # student_dir hands them to the user's processes
        return 0
    done
    return 1
}
# The user's one directory, build/jail/student, made anew for it (root's 0755 build/jail
# holds it).
student_dir() {
    mkdir -m 700 "$jail/student" && chown "$juid:$jgid" "$jail/student" || exit 3
    DROP=(--drop "$juid:$jgid")
    export JAIL_UID=$juid JAIL_GID=$jgid
}
# Before exercise $1 (root, in the jail): a fresh user. The last one's directory is empty
# (its sweep came after its last test) and is removed; if its sweep could not empty it, it is
# set aside (renamed in root's directory: nothing below it is opened) for the next grade's.
next_user() {
    [ -n "$WARDEN" ] && [ "$(id -u)" = 0 ] || return 0
    rmdir "$jail/student" 2>/dev/null || mv -T "$jail/student" "$jail/left.$juid" || exit 3
    fresh_user || jail_failed "no free uid for the jail in GRADE_JAIL_UIDS=$GRADE_JAIL_UIDS"
    student_dir
    echo "grade: $1 runs as uid $juid"
}
# The mode of the jail (GRADE_SANDBOX: auto, the default, 1 or 0). The sandbox, where
# bubblewrap can make its namespaces here: the jail's user runs the compiler and the host in
# new user, PID, IPC, network and mount namespaces (tests/jail/jail.h, jail_sandbox_exec),
# and what they make dies with them. The jail alone, where it cannot (a container whose
# seccomp filter refuses new user namespaces, as Docker's default does, or no bwrap): the
# user's limits and the sweep after every test. With 1 the sandbox or no grade; with 0 the
# jail alone. ISOLATION names the mode, and ISOLATION_WHY says why in a sentence.
ISOLATION=none ISOLATION_WHY= SANDBOX=()
sandbox_setup() {
    local bw log=$work/sandbox.log
    unset JAIL_SANDBOX
    ISOLATION=jail
    case ${GRADE_SANDBOX:=auto} in
    0) ISOLATION_WHY="the sandbox was turned off (GRADE_SANDBOX=0)" ;;
    auto | 1)
        bw=$(command -v bwrap) || bw=
        if [ -z "$bw" ]; then
            ISOLATION_WHY="bubblewrap (bwrap) is not installed"
        elif "$WARDEN" run --timeout 20 "${DROP[@]}" --sandbox "$bw" -- /bin/true >"$log" 2>&1; then
            ISOLATION=sandbox SANDBOX=(--sandbox "$bw")
            export JAIL_SANDBOX=$bw
        else
            ISOLATION_WHY="bubblewrap could not make its namespaces here: $(tail -1 "$log" | cut -c1-200)"
        fi
        [ "$ISOLATION" = sandbox ] || [ "$GRADE_SANDBOX" != 1 ] ||
            jail_failed "GRADE_SANDBOX=1 asks for the sandbox, but $ISOLATION_WHY"
        ;;
    *) jail_failed "GRADE_SANDBOX=$GRADE_SANDBOX: auto, 1 or 0" ;;
    esac
}
# The grade's sentence on how the student's code ran.
isolation_note() {
    case $ISOLATION in
    sandbox) echo "Your code ran in the sandbox: as an unprivileged user, in namespaces of its own (bubblewrap), apart from the tests." ;;
    jail) echo "Your code ran in the jail: as an unprivileged user, apart from the tests ($ISOLATION_WHY, so no sandbox)." ;;
    *) echo "Your code ran inside the tests (no jail)." ;;
    esac
}
# After the jail user's code has run: none of its processes is left, none of its files. When
# the sweep cannot finish, the exercise being graded scores 0 with the reason (DIRTY), and
# the next one runs as a fresh user all the same. GRADE_FAULT_SWEEP=CH/NAME makes the sweeps
# of that exercise fail (make autograder-check's test of this).
sweep() {
    [ -n "$WARDEN" ] && [ "$(id -u)" = 0 ] || return 0
    if [ -n "${GRADE_FAULT_SWEEP:-}" ] && [ "$GRADE_FAULT_SWEEP" = "${GRADING:-}" ]; then
        echo "warden: sweep: a failure made on purpose (GRADE_FAULT_SWEEP=$GRADE_FAULT_SWEEP)" >>"$work/sweep.log"
    elif "$WARDEN" sweep "$juid:$jgid" "$work/writable" 2>>"$work/sweep.log"; then
        return 0
    fi
    SWEEP_FAILED="$(tail -1 "$work/sweep.log")"
    DIRTY=${DIRTY:-$SWEEP_FAILED}
}
# Where the jail's user finds the student's code that test binary $1 runs (root's copy).
student_so() { local b=${1##*/}; echo "$jail/so/${b%-hidden}.so"; }
# Whether exercise $1 runs in the jail (its host lists those it can run).
jailed() { [ "$GRADE_JAIL" = 1 ] && [ -n "$(function_of "$1")" ]; }
# The function of exercise $1, as the jail's host lists it.
function_of() { awk -v e="$1" '$1 == e { print $2 }' <<<"${JAIL_LIST:-}"; }

# Milliseconds, of a clock that only goes forward within a grade.
ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $((10#$t / 1000)); }
# The seconds the current exercise may still spend (its budget less what it has spent), as a
# decimal, capped at $1; empty when the budget is spent.
time_left() {
    local cap=$1 left
    if [ "$GRADE_BUDGET" = 0 ]; then echo "$cap"; return; fi
    left=$((GRADE_BUDGET * 1000 - SPENT))
    [ "$left" -ge 500 ] || return 0
    [ "$left" -lt $((cap * 1000)) ] || left=$((cap * 1000))
    printf '%d.%03d\n' $((left / 1000)) $((left % 1000))
}

# What an exercise may call: the C library, its maths library and the compiler's runtime
# (libgcc, libatomic, the sanitizers'), less the dynamic linker's ways to find a function by
# name (dlsym, dl_iterate_phdr: the book's own answer, looked up); and of the book's library
# only error_set and xcalloc (util.h) and what its chapter's header gives it on a "may call:"
# line (exercises/chN/chN.h). The Comm and the Device it is handed are its own to use. Any other
# function (OpenBLAS's GEMM, MPI's all-reduce, gemm_plain, a test's reference) is refused
# before a test runs, with one line naming it.
system_symbols() {
    local f lib out=$work/system-symbols tmp
    tmp=$work/system-symbols.$BASHPID # this shell's: a pipeline's parts run in others
    [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$CC" ] && return 0
    {
        for lib in libc.so.6 libm.so.6 libmvec.so.1 libgcc_s.so.1 libatomic.so.1; do
            f=$($CC -print-file-name=$lib 2>/dev/null) && [ -f "$f" ] && nm -D --defined-only "$f"
        done
        f=$($CC -print-libgcc-file-name 2>/dev/null) && [ -f "$f" ] && nm --defined-only "$f" 2>/dev/null
    } | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
        grep -vE '^(_?_?(libc_)?dl|_dl_)' | sort -u >"$tmp" && [ -s "$tmp" ] &&
        echo "$CC" >"$tmp.key" && mv -f "$tmp" "$out" && mv -f "$tmp.key" "$out.key" ||
        { rm -f "$tmp" "$tmp.key"; echo "grade: the C library's functions could not be listed (nm)" >&2; return 1; }
}
# The functions of the book's library exercise $1/$2 may call, one a line.
may_call() {
    printf '%s\n' error_set xcalloc
    sed -nE "s/^ \* may call: $2:? (.*)$/\1/p" "exercises/$1/$1.h" | tr ' ,' '\n\n' | grep -v '^$'
    return 0
}
# Whether the undefined symbols of exercise $1/$2's object, listed by nm in file $3, are all
# allowed; the first refused one explained on stdout.
calls_allowed() {
    local ch=$1 name=$2 list=$3 bad given
    system_symbols || return 1
    given=$(may_call "$ch" "$name")
    bad=$(awk '$1 == "U" || $1 == "w" || $1 == "v" { sub(/@.*/, "", $2); print $2 }
               NF == 1 { sub(/@.*/, "", $1); print $1 }' "$list" | sort -u |
          grep -vxF -f "$work/system-symbols" | grep -vxF -f <(printf '%s\n' "$given") |
          grep -vE '^(__(asan|ubsan|lsan|tsan|msan|sanitizer)_|__gmon_start__$|_ITM_(de)?registerTMCloneTable$|__cxa_finalize$|_GLOBAL_OFFSET_TABLE_$)' | head -3)
    [ -z "$bad" ] && return 0
    echo "refused: $ch/$name may not call $(echo "$bad" | head -1)$([ "$(echo "$bad" | wc -l)" = 1 ] || echo " (nor $(echo "$bad" | sed 1d | tr '\n' ' ' | sed 's/ $//; s/ /, /g'))"): besides the C library, it may call only $(printf '%s\n' "$given" | paste -sd' ' | sed 's/ /, /g') and the members of the Comm or Device it is handed (exercises/$ch/$ch.h)"
    return 1
}

# Compile the student's file $1 of exercise $2/$3 into the shared object $4, as the jail's
# user; the compiler's messages in $4.log. Root copies the source into its own directory,
# which the user can read; the user compiles it into its own; root takes the object back.
build_student() {
    local src=$1 ch=$2 name=$3 so=$4 base key log t0 limit rc
    base=${so##*/} base=${base%.so}
    log=$work/$base.so.log
    key=$({ echo "$CC $CFLAGS"; cat "$src"; } | sha256sum | cut -c1-64)
    [ -f "$so" ] && [ "$(cat "$work/$base.so.key" 2>/dev/null)" = "$key" ] && return 0
    rm -f "$so" "$work/$base.so.key" "$log"
    cp "$src" "$jail/src/$base.c" && chmod 644 "$jail/src/$base.c" || return 1
    limit=$(time_left "$GRADE_COMPILE_TIMEOUT")
    if [ -z "$limit" ]; then
        echo "error: not compiled: this exercise used up its time budget of $GRADE_BUDGET s" >"$log"
        return 1
    fi
    t0=$(ms)
    # In the sandbox the compiler sees the headers, the source and its own directory.
    local box=() tmpdir=$PWD/$jail/student
    [ ${#SANDBOX[@]} = 0 ] || box=("${SANDBOX[@]}" --ro-bind "$PWD/tangled" --ro-bind "$PWD/exercises"
        --ro-bind "$PWD/$jail/src" --bind "$PWD/$jail/student" --chdir "$PWD") tmpdir=/tmp
    "$WARDEN" run --timeout "$limit" --cpu "$GRADE_COMPILE_TIMEOUT" "${DROP[@]}" "${box[@]}" -- \
        env -i PATH=/usr/bin:/bin LC_ALL=C TMPDIR="$tmpdir" \
        $CC $CFLAGS -fPIC -shared -Iexercises/"$ch" "$jail/src/$base.c" -o "$jail/student/$base.so" >"$log" 2>&1
    rc=$?
    [ $rc != 124 ] || echo "error: the compiler did not finish within $limit s" >>"$log"
    if [ $rc = 0 ]; then
        "$WARDEN" run --timeout 10 "${DROP[@]}" -- nm -D --defined-only "$jail/student/$base.so" \
            >"$work/$base.nm" 2>/dev/null
        "$WARDEN" run --timeout 10 "${DROP[@]}" -- nm -D --undefined-only "$jail/student/$base.so" \
            >"$work/$base.undef" 2>/dev/null
        if ! awk -v f="$(function_of "$name")" '$3 == f { ok = 1 } END { exit !ok }' "$work/$base.nm"; then
            echo "error: undefined reference to \`$(function_of "$name")' (the file does not define it)" >>"$log"
            rc=1
        elif ! calls_allowed "$ch" "$name" "$work/$base.undef" >>"$log"; then
            rc=1
        else
            "$WARDEN" take "$juid" "$jail/student" "$base.so" "$so" $((64 << 20)) 2>>"$log" || rc=1
        fi
    fi
    sweep
    SPENT=$((SPENT + $(ms) - t0))
    [ $rc = 0 ] && echo "$key" >"$work/$base.so.key"
    [ $rc = 0 ]
}

hash_of() { sha256sum "$1" | cut -c1-64; }
# Whether exercise $1/$2 has changed from the pristine skeleton whose hash is $3.
started() { [ "$(hash_of "exercises/$1/$2.c")" != "$3" ]; }

# The test files of exercise $1/$2: the public one, then the hidden one if this tree has it.
test_files() {
    echo "tests/$1/ex_$2.c"
    [ "${PUBLIC_ONLY:-}" != 1 ] && [ -f "tests/hidden/$1/ex_$2.c" ] && echo "tests/hidden/$1/ex_$2.c"
    return 0
}

# Build test file $1 of exercise $2 against source file $3 into $4; compiler output in $4.log.
# A binary is rebuilt only when its key changes: the compiler and its flags, and the content
# of every input (the tests, the exercise, the test headers, the book's headers and library).
# In the jail, the binary holds the proxies instead of src, compiled apart (build_student).
build() {
    local tfile=$1 ch=$2 src=$3 bin=$4 key name=${1##*/ex_} code=$3 so
    name=${name%.c}
    if jailed "$name"; then
        so=$(student_so "$bin")
        build_student "$src" "$ch" "$name" "$so" || { cp "$work/$(basename "$so").log" "$bin.log"; return 1; }
        code="$JAIL_OBJS"
    elif [ "$GRADE_JAIL" = 1 ]; then
        echo "error: the autograder's jail has no entry for exercise $ch/$name (tests/jail/exercises.c): tell your instructor" >"$bin.log"
        return 1
    fi
    # An exercise that calls an earlier one (needs): its public tests link the book's own from
    # the hidden side where this tree has it, else the student's own earlier answer.
    local dep supply=
    dep=$(needs "$ch/$name")
    if [ -n "$dep" ] && [ "$code" = "$src" ] && [ "$tfile" = "tests/$ch/ex_$name.c" ]; then
        supply=tests/hidden/$dep"_supply.c"
        [ -f "$supply" ] || supply=exercises/$dep.c
    fi
    key=$({ echo "$CC $CFLAGS $LDLIBS $code $supply ${GRADE_CALLS:-}"; cat "$tfile" $code $supply tests/*.h tests/*/*.h \
            tests/hidden/*/*.h exercises/"$ch"/*.h tangled/*/*.h "$LIB" 2>/dev/null; } | sha256sum | cut -c1-64)
    if ! [ -x "$bin" ] || [ "$(cat "$bin.key" 2>/dev/null)" != "$key" ]; then
        rm -f "$bin.key"
        : >"$bin.log"
        if [ "$code" = "$src" ] && [ "${GRADE_CALLS:-}" != all ]; then
            # The student's file alone, with the book's headers and its chapter's, never the
            # tests' (their helpers are no part of an answer); then what it calls, checked.
            student_object "$ch" "$name" "$src" "$bin.student.o" "$bin.log" || return 1
            code=$bin.student.o
        fi
        if [[ $supply == exercises/* ]]; then
            student_object "${dep%/*}" "${dep#*/}" "$supply" "$bin.supply.o" "$bin.log" || return 1
            supply=$bin.supply.o
        elif [ -n "$supply" ]; then
            $CC $CFLAGS -Itests -Iexercises/"$ch" -c "$supply" -o "$bin.supply.o" >>"$bin.log" 2>&1 ||
                return 1
            supply=$bin.supply.o
        fi
        local tobj
        tobj=$(test_object "$tfile" "$ch" "$bin.log") || return 1
        $CC $CFLAGS -Itests -Iexercises/"$ch" "$tobj" $code $supply "$LIB" \
            -o "$bin" -lcriterion $LDLIBS >>"$bin.log" 2>&1 && echo "$key" >"$bin.key" || return 1
    fi
}
# The object of test file $1 (exercise chapter $2), compiled once for every submission graded
# against it (a solution, a skeleton, the cheats, the handout's substitutes): its key is the
# compiler, its flags and the test's own sources, never a submission's. Its path on stdout;
# the compiler's messages appended to $3. Two jobs that compile it at once each write a file of
# their own and the last rename wins, with the same bytes.
test_object() {
    local tfile=$1 ch=$2 log=$3 key obj
    key=$({ echo "$CC $CFLAGS $tfile"; cat "$tfile" tests/*.h tests/*/*.h tests/hidden/*/*.h \
            exercises/"$ch"/*.h tangled/*/*.h 2>/dev/null; } | sha256sum | cut -c1-32)
    obj=$work/test-$key.o
    if [ ! -s "$obj" ]; then
        $CC $CFLAGS -Itests -Iexercises/"$ch" -c "$tfile" -o "$obj.$BASHPID" >>"$log" 2>&1 &&
            mv -f "$obj.$BASHPID" "$obj" || { rm -f "$obj.$BASHPID"; return 1; }
    fi
    echo "$obj"
}
# Compile exercise $1/$2's file $3 alone into object $4 and check what it calls; messages
# appended to $5.
student_object() {
    local ch=$1 name=$2 src=$3 obj=$4 log=$5
    $CC $CFLAGS -Iexercises/"$ch" -c "$src" -o "$obj" >>"$log" 2>&1 &&
        nm -u "$obj" >"$obj.undef" 2>>"$log" || return 1
    calls_allowed "$ch" "$name" "$obj.undef" >>"$log"
}
# The earlier exercise ("chN/name") that exercise $1 calls, which its header tells it to call
# and not to define; empty for the others.
needs() {
    case $1 in
    ch10/onebit_all_reduce) echo ch10/onebit_compress ;;
    esac
}

# The tests of test file $1, "suite::name" a line, in the order of the file.
list_tests() {
    sed -nE 's/^Test\(\s*([A-Za-z0-9_]+)\s*,\s*([A-Za-z0-9_]+).*/\1::\2/p' "$1"
}

# Run test $2 ("suite::name") of binary $1 alone, under the time limit. Sets ok (1 or 0)
# and why (for a failure: the assertion messages, the crash, or the time limit), and adds
# the lines the test printed that begin with "info:" (a measurement to show) to INFO.
# Milliseconds of a limit of time_left's form, "S" or "S.mmm".
limit_ms() { local s=${1%.*} f=0; [[ $1 == *.* ]] && f=${1#*.}; echo $((10#$s * 1000 + 10#$f)); }
run_one() {
    local bin=$1 t=$2 tap="$1.one.tap" rc info limit t0 took
    rm -f "$tap"
    limit=$(time_left "$GRADE_TIMEOUT")
    ok=0 why=
    if [ -z "$limit" ]; then
        why="not run: this exercise used up its time budget of $GRADE_BUDGET s (a deadlock, or an endless loop?)"
        return
    fi
    t0=$(ms)
    if [ -n "$WARDEN" ]; then
        JAIL_STUDENT=$(student_so "$bin") JAIL_CPU=$GRADE_TIMEOUT "$WARDEN" run --timeout "$limit" \
            --leftover /tmp/criterion_%d.sock -- \
            "$bin" --filter "${t/::/\/}" --tap="$tap" -j1 >"$bin.one.out" 2>&1
        rc=$?
        sweep
    else
        timeout -k 5 "$limit" "$bin" --filter "${t/::/\/}" --tap="$tap" -j1 >"$bin.one.out" 2>&1
        rc=$?
    fi
    took=$(($(ms) - t0))
    SPENT=$((SPENT + took))
    [ -z "${GRADE_TIMES:-}" ] || echo "time:   $t: $took ms" >&2
    info=$(grep -a '^info:' "$bin.one.out" | head -5)
    [ -z "$info" ] || INFO+="$info"$'\n'
    # The warden says 124 when its limit ended the test. timeout(1) says 137 too when the test
    # outlived TERM, but so does any SIGKILL (the kernel's, out of memory): only one at the
    # limit is the limit's; the others are a stop, which stopped_how names.
    if [ $rc = 124 ] || { [ -z "$WARDEN" ] && [ $rc = 137 ] && [ $took -ge "$(limit_ms "$limit")" ]; }; then
        why="did not finish within the limit of $limit s (a deadlock, or an endless loop?)"
        TIMEOUTS=$((TIMEOUTS + 1))
    elif ! verdict "$tap" "$t" "$rc"; then
        why="the test runner stopped ($(stopped_how "$rc")): $(tail -3 "$bin.one.out" | tr '\n' ' ' | cut -c1-2000)"
    fi
    [ "$ok" = 1 ] || [ -z "$WARDEN" ] || jail_says "$bin.one.out"
}
# What the judge saw of the student's process in test output $1 (a crash, an exit), put
# before the test's own words in why: in the jail, the test only sees that its call failed.
jail_says() {
    local line sig
    line=$(grep -a -m1 "^jail: the exercise's code " "$1") || return 0
    if [[ $line =~ killed\ by\ signal\ ([0-9]+) ]]; then
        sig=${BASH_REMATCH[1]}
        why="your code was killed in the $ISOLATION ($(stopped_how $((128 + sig)))); the test says: $why"
    elif [[ $line =~ exit\ status\ ([0-9]+) ]]; then
        why="your code ended its own process in the $ISOLATION (exit status ${BASH_REMATCH[1]}); the test says: $why"
    elif [[ $line =~ broke\ the\ jail.s\ protocol\ \((.*)\) ]]; then
        why="your code wrote to the jail's socket what its protocol does not allow (${BASH_REMATCH[1]}), and was stopped; the test says: $why"
    fi
}

# How a test's process that ended with status $1 stopped, in words: a signal's name and what
# sends it here (the jail's limits: CPU time, processes, memory), else the status.
stopped_how() {
    local rc=$1 sig
    [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ] || { echo "exit status $rc"; return; }
    sig=$(kill -l $((rc - 128)) 2>/dev/null || echo "$((rc - 128))")
    case $sig in
    KILL) echo "killed by SIGKILL: out of memory, or ended by the grader" ;;
    XCPU) echo "killed by SIGXCPU: it used up its CPU time, $GRADE_TIMEOUT s" ;;
    SEGV) echo "SIGSEGV: a bad pointer" ;;
    ABRT) echo "SIGABRT: an abort, a failed assert or a memory error the C library caught" ;;
    FPE) echo "SIGFPE: an integer divided by zero" ;;
    BUS) echo "SIGBUS: a bad address, or shared memory that ran out" ;;
    *) echo "signal SIG$sig" ;;
    esac
}
# What TAP report $1 says of test $2 ("suite::name") of a run that exited with status $3: sets
# ok (1 or 0) and, for a failure, why (the assertion messages); status 1 when the report
# does not name the test.
verdict() {
    local tap=$1 t=$2 rc=$3
    ok=0 why=
    if grep -qxF "ok - $t" <(sed 's/  (.*$//' "$tap" 2>/dev/null); then
        ok=1
    elif grep -q "^not ok - $t" "$tap" 2>/dev/null; then
        why=$(awk -v t="not ok - $t" 'index($0, t) == 1 { on = 1; rest = substr($0, length(t) + 1)
                  sub(/^ +/, "", rest); if (rest !~ /^\(/) print rest; next }
              on && /^(not )?ok / { exit }
              on && !/^ *(---|\.\.\.|assertions:.*|failures:.*|- .*: \|\+)$/ { sub(/^ +/, ""); print }' "$tap")
        [ -n "$why" ] || why="failed without a message (exit status $rc)"
    else
        return 1
    fi
}

# prove's way through a test file's tests: the binary run once for all of them (Criterion
# still runs each in a process of its own), under a limit of GRADE_TIMEOUT a test; a test
# that run does not report (it stopped, or ran out of time) is run alone, as grading runs
# every test. The verdicts are run_one's; only the processes started are fewer.
run_batch() {
    local tfile=$1 bin=$2 tap="$2.all.tap" n rc
    n=$(list_tests "$tfile" | wc -l)
    rm -f "$tap"
    timeout -k 5 $((GRADE_TIMEOUT * n)) "$bin" --tap="$tap" -j1 >"$bin.all.out" 2>&1
    rc=$?
    while read -r t; do
        verdict "$tap" "$t" "$rc" || run_one "$bin" "$t"
        R_TEST+=("$t") R_OK+=("$ok") R_WHY+=("$why") R_HIDDEN+=("$([[ $tfile == tests/hidden/* ]] && echo 1 || echo 0)")
    done < <(list_tests "$tfile")
}

# Run every test of test file $1 in binary $2 (or none, with $3 as each one's failure when
# $2 is empty). Appends to the arrays R_TEST, R_OK, R_WHY, R_HIDDEN. Once two tests of an
# exercise have run out of time, its others are not run: a submission that hangs costs
# minutes, not an hour.
run_all() {
    local tfile=$1 bin=$2 fail=${3:-} hidden=0 t
    [[ $tfile == tests/hidden/* ]] && hidden=1
    while read -r t; do
        if [ -z "$bin" ]; then ok=0 why=$fail
        elif [ "$TIMEOUTS" -ge 2 ]; then ok=0 why="not run: two tests of this exercise ran out of time"
        else run_one "$bin" "$t"; fi
        R_TEST+=("$t") R_OK+=("$ok") R_WHY+=("$why") R_HIDDEN+=("$hidden")
    done < <(list_tests "$tfile")
}

# Grade exercise $1/$2 from source file $3 ("" when not started) as binaries $4-*: fills the
# R_* arrays with one entry per public and hidden test.
grade_exercise() {
    local ch=$1 name=$2 src=$3 stem=$4 tfile bin k=0 i
    R_TEST=() R_OK=() R_WHY=() R_HIDDEN=() INFO= TIMEOUTS=0 SPENT=0 DIRTY= GRADING=$1/$2
    [ -z "$src" ] || next_user "$ch/$name"
    while read -r tfile; do
        bin=$stem$([ $k = 0 ] || echo -hidden)
        k=$((k + 1))
        if [ -z "$src" ]; then
            run_all "$tfile" "" "not started: exercises/$ch/$name.c is the untouched skeleton"
        elif ! build "$tfile" "$ch" "$src" "$bin"; then
            if grep -q '^refused: ' "$bin.log"; then
                run_all "$tfile" "" "$(grep '^refused: ' "$bin.log" | head -1)"
            else
                run_all "$tfile" "" "does not compile:
$(compiler_says "$bin.log")"
            fi
        elif [ "$mode" = prove ] && [ "$GRADE_JAIL" != 1 ]; then
            run_batch "$tfile" "$bin"
        else
            run_all "$tfile" "$bin"
        fi
    done < <(test_files "$ch" "$name")
    [ -z "${GRADE_TIMES:-}" ] || echo "time: $ch/$name $src: $SPENT ms of the exercise's budget" >&2
    if [ -n "$DIRTY" ]; then
        for i in "${!R_OK[@]}"; do
            R_OK[$i]=0 R_WHY[$i]="0 for this exercise: the grader could not remove what its code left ($DIRTY); the exercises after it ran as another user, in a clean state"
        done
    fi
    GRADING=
}

# Whether every R_* entry failed before its test ran: refused, or not compiled.
all_unbuilt() {
    local w
    for w in "${R_WHY[@]}"; do [[ $w == "refused: "* || $w == "does not compile:"* ]] || return 1; done
}
# What the compiler's messages in file $1 say, for a failure's text: its errors (at most 8
# lines), else its last 8 lines, else that it said nothing; as valid UTF-8 whatever bytes the
# source held (a byte that is not is dropped).
compiler_says() {
    local said
    said=$(grep -aE 'error|undefined' "$1" | head -8)
    [ -n "$said" ] || said=$(grep -av '^\s*$' "$1" | tail -8)
    [ -n "$said" ] || said="(the compiler stopped without a word)"
    if command -v iconv >/dev/null; then
        printf '%s\n' "$said" | iconv -f UTF-8 -t UTF-8 -c 2>/dev/null
    else
        printf '%s\n' "$said" | tr -cd '\11\12\40-\176'
    fi
    return 0
}
# How many of the R_* entries passed (all tests, or only the public or hidden ones).
count_ok() {
    local i n=0 want=${1:-}
    for i in "${!R_OK[@]}"; do
        [ -n "$want" ] && [ "${R_HIDDEN[$i]}" != "$want" ] && continue
        n=$((n + R_OK[i]))
    done
    echo $n
}
count_of() {
    local i n=0 want=${1:-}
    for i in "${!R_OK[@]}"; do
        [ -n "$want" ] && [ "${R_HIDDEN[$i]}" != "$want" ] && continue
        n=$((n + 1))
    done
    echo $n
}

# The failed R_* entries, "FAILED suite::test" and their messages indented below.
failures() {
    local i
    for i in "${!R_OK[@]}"; do
        [ "${R_OK[$i]}" = 1 ] && continue
        echo "FAILED ${R_TEST[$i]}$([ "${R_HIDDEN[$i]}" = 1 ] && echo ' (hidden)')"
        printf '%s\n' "${R_WHY[$i]}" | head -12 | sed 's/^/   /'
    done
}

# $1 as the body of a JSON string: backslashes, quotes, tabs and newlines escaped, other
# control characters dropped.
json_text() {
    printf '%s' "$1" | tr -d '\000-\010\013-\037' | sed 's/\\/\\\\/g; s/"/\\"/g; s/\t/\\t/g' \
        | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }'
}

# The exercises to consider: "ch name stars points replaces hash title" lines.
entries() {
    grep -v '^#' "$manifest" |
        awk -v c="$only" 'BEGIN { n = split(c, list, / +/); for (i = 1; i <= n; i++) want["ch" list[i]] = 1 }
                          NF && (n == 0 || ($1 in want))'
}

# Whether file $1 is a results.json of $2 tests (Python's JSON parser, where there is one).
results_ok() {
    if command -v python3 >/dev/null; then
        python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r["score"], (int, float)) and len(r["tests"]) == int(sys.argv[2])
assert all({"name", "score", "max_score", "status"} <= set(t) for t in r["tests"])' "$1" "$2" 2>/dev/null
    else
        [ "$(grep -c '^    {"name": ' "$1")" = "$2" ] && [ "$(tail -1 "$1")" = "}" ]
    fi
}
# The grade could not be made: results.json says so (Gradescope shows it to the student),
# the line on stderr says why, and grade.sh exits 3.
results_failed() {
    echo "grade: no grade: $1" >&2
    [ -n "${GRADE_RESULTS:-}" ] || return 0
    printf '{"score": 0, "output": "The autograder failed on this submission (%s; not a grade of your code): submit again, or tell your instructor."}\n' \
        "$(json_text "$1")" >"$GRADE_RESULTS.new" && mv -f "$GRADE_RESULTS.new" "$GRADE_RESULTS" ||
        echo "grade: and $GRADE_RESULTS could not be written either" >&2
}

status=0 INFO= TIMEOUTS=0 SPENT=0
case $mode in test | grade | prove | solutions) jail_setup && system_symbols || exit 3 ;; esac
case $mode in
test)
    started=0 not_started=0
    while read -r ch name stars points replaces hash title; do
        file=exercises/$ch/$name.c
        if ! started "$ch" "$name" "$hash"; then
            printf 'exercise %-28s not started\n' "$ch/$name"
            not_started=$((not_started + 1))
            continue
        fi
        started=$((started + 1))
        bin=$work/student-$ch-$name
        SPENT=0
        if ! build "tests/$ch/ex_$name.c" "$ch" "$file" "$bin"; then
            printf 'exercise %-28s %s\n' "$ch/$name" "$(grep -q '^refused: ' "$bin.log" && echo REFUSED || echo 'DOES NOT COMPILE')"
            sed 's/^/   /' "$bin.log" | head -20
            status=1
            continue
        fi
        R_TEST=() R_OK=() R_WHY=() R_HIDDEN=() TIMEOUTS=0
        run_all "tests/$ch/ex_$name.c" "$bin"
        passed=$(count_ok) total=$(count_of)
        if [ "$passed" = "$total" ]; then
            printf 'exercise %-28s passed %d/%d tests\n' "$ch/$name" "$passed" "$total"
        else
            printf 'exercise %-28s FAILED %d of %d tests\n' "$ch/$name" $((total - passed)) "$total"
            failures | sed 's/^/   /'
            dep=$(needs "$ch/$name")
            if [ -n "$dep" ] && [ ! -f "tests/hidden/${dep}_supply.c" ] &&
                ! started "${dep%/*}" "${dep#*/}" "$(awk -v c="${dep%/*}" -v n="${dep#*/}" '$1 == c && $2 == n { print $6 }' "$manifest")"; then
                echo "   (its tests call your ${dep#*/} of exercises/$dep.c, which is not started: the grader uses the book's own)"
            fi
            status=1
        fi
    done < <(entries)
    echo "exercises: $started started, $not_started not started$([ $status = 0 ] || echo ', some FAILED')"
    ;;

grade)
    start=$(date +%s) json=() number=0 earned_total=0 max_total=0 hidden_seen=0
    printf '%-5s %-26s %-5s %9s  %s\n' "" "exercise" "stars" "points" "title"
    while read -r ch name stars points replaces hash title; do
        number=$((number + 1))
        src=exercises/$ch/$name.c
        started "$ch" "$name" "$hash" || src=
        grade_exercise "$ch" "$name" "$src" "$work/student-$ch-$name"
        passed=$(count_ok) total=$(count_of)
        [ "$(count_of 1)" -gt 0 ] && hidden_seen=1
        got=$(awk -v p="$points" -v a="$passed" -v t="$total" 'BEGIN { printf "%.1f", p * a / t }')
        earned_total=$(awk -v a="$earned_total" -v b="$got" 'BEGIN { printf "%.1f", a + b }')
        max_total=$((max_total + points))
        printf '%-5s %-26s %-5s %5s/%-3s  %s%s\n' "$ch" "$name" "$(printf '%*s' "$stars" '' | tr ' ' '*')" \
            "$got" "$points" "$title" "$([ -z "$src" ] && echo ' (not started)')"
        [ -n "$src" ] && failures | sed 's/^/        /'
        [ -n "$INFO" ] && printf '%s' "$INFO" | sed 's/^/        /'
        for i in "${!R_TEST[@]}"; do
            each=$(awk -v p="$points" -v t="$total" 'BEGIN { printf "%.4f", p / t }')
            vis=visible kind=public
            [ "${R_HIDDEN[$i]}" = 1 ] && vis=$GRADE_HIDDEN_VISIBILITY kind=hidden
            if [ "${R_OK[$i]}" = 1 ]; then st=passed score=$each out="passed"
            else st=failed score=0 out=${R_WHY[$i]}; fi
            json+=("{\"name\": \"$ch/$name ($title): ${R_TEST[$i]#*::} ($kind)\", \"number\": \"$number.$((i + 1))\", \"score\": $score, \"max_score\": $each, \"status\": \"$st\", \"visibility\": \"$vis\", \"output\": \"$(json_text "$out")\"}")
        done
    done < <(entries)
    printf '%-5s %-26s %-5s %5s/%-3s\n' "" "total" "" "$earned_total" "$max_total"
    note=""
    [ -n "${GRADE_NOTE:-}" ] && [ -f "$GRADE_NOTE" ] && note=$(cat "$GRADE_NOTE")
    [ $hidden_seen = 1 ] || note="${note:+$note
}These are the public tests only: the course's autograder also runs hidden ones."
    note="${note:+$note
}$(isolation_note)"
    sweep
    [ -z "$SWEEP_FAILED" ] || echo "grade: the jail's sweep: $SWEEP_FAILED" >&2
    # Written beside the results, checked, then renamed over them: Gradescope never reads
    # a results file that is half written, or one that lacks a test.
    tmp=$GRADE_RESULTS.new
    rm -f "$tmp"
    {
        printf '{\n  "score": %s,\n  "execution_time": %d,\n' "$earned_total" $(($(date +%s) - start))
        printf '  "output": "%s",\n  "stdout_visibility": "hidden",\n' "$(json_text "$note")"
        printf '  "extra_data": {"isolation": "%s"},\n  "tests": [\n' "$ISOLATION"
        for i in "${!json[@]}"; do
            printf '    %s%s\n' "${json[$i]}" "$([ "$i" -lt $((${#json[@]} - 1)) ] && echo ,)"
        done
        printf '  ]\n}\n'
    } >"$tmp" && results_ok "$tmp" "${#json[@]}" && mv -f "$tmp" "$GRADE_RESULTS" ||
        { rm -f "$tmp"; results_failed "its results file could not be written"; exit 3; }
    full=$(awk -v a="$earned_total" -v b="$max_total" 'BEGIN { print (a == b) }')
    [ $hidden_seen = 1 ] || echo "grade: the public tests only (this tree has no tests/hidden/): not your grade, which the course's autograder gives with its hidden tests as well"
    [ $hidden_seen = 0 ] || [ "$GRADE_JAIL" = 1 ] ||
        echo "grade: your code ran inside the tests here; the autograder runs it apart from them, as an unprivileged user (the jail), and its score is the grade"
    echo "grade: $GRADE_RESULTS written"
    echo "score: $earned_total of $max_total points$([ "$full" = 1 ] && echo ', full marks' || echo ', not full marks')"
    [ "$full" = 1 ] || status=1
    ;;

prove)
    [ -d solutions ] || { echo "prove: no solutions/ (a handout): skipped"; exit 0; }
    # The exercise $1/$2 (pristine skeleton's hash $3): what it finds wrong on stdout, and a
    # last line "counts PUBLIC HIDDEN STATUS".
    prove_one() {
        local ch=$1 name=$2 hash=$3 skel n_pub n_hid n_cheats=0
        status=0
        # Every solution passes every test.
        grade_exercise "$ch" "$name" "solutions/$ch/$name.c" "$work/solution-$ch-$name"
        n_pub=$(count_of 0) n_hid=$(count_of 1)
        if [ "$(count_ok)" != "$(count_of)" ]; then
            echo "prove: solutions/$ch/$name.c fails $(($(count_of) - $(count_ok))) of $(count_of) tests:"
            failures | sed 's/^/   /'
            status=1
        fi
        # Under the sanitizers (make passes PROVE_ONLY=solutions), the solutions alone: the
        # skeletons' and the cheats' failures are the plain make test's to prove, and are the
        # same facts in any build, so their binaries are not built again with -fsanitize.
        if [ "${PROVE_ONLY:-}" = solutions ]; then
            echo "counts $n_pub $n_hid $status 0"
            return
        fi
        # Every pristine skeleton fails every test: a test that passes on it cannot fail.
        skel=exercises/$ch/$name.c
        if started "$ch" "$name" "$hash"; then
            skel=$work/pristine-$ch-$name.c
            if ! git show "HEAD:exercises/$ch/$name.c" >"$skel" 2>/dev/null || [ "$(hash_of "$skel")" != "$hash" ]; then
                echo "prove: exercises/$ch/$name.c is edited and no pristine copy matches the MANIFEST hash:"
                echo "       if you changed the skeleton on purpose, run make manifest"
                echo "counts $n_pub $n_hid 1 0"
                return
            fi
        fi
        grade_exercise "$ch" "$name" "$skel" "$work/skeleton-$ch-$name"
        if [ "$(count_ok)" != 0 ]; then
            echo "prove: the untouched skeleton of $ch/$name passes $(count_ok) of $(count_of) tests:"
            for i in "${!R_OK[@]}"; do
                [ "${R_OK[$i]}" = 1 ] && echo "   passes ${R_TEST[$i]}"
            done
            status=1
        fi
        # Every cheat (solutions/cheats/chN/NAME--HOW.c: an answer taken from the handout)
        # scores 0; one that the check of its calls refuses passes every test without that
        # check (GRADE_CALLS=all, the old way of building), so that it shows a real leak.
        # A cheat that needs a part of the build ("Needs: HAVE_BLAS" in its comment) is left
        # out of a build without it (make matrix's no-blas), where it could not be shown.
        local cheat how needed
        for cheat in solutions/cheats/"$ch/$name"--*.c; do
            [ -f "$cheat" ] || continue
            needed=$(sed -n 's/.*Needs: \([A-Z_]*\).*/\1/p' "$cheat" | head -1)
            [ -z "$needed" ] || [[ " $CFLAGS " == *" -D$needed "* ]] || continue
            how=${cheat##*--} how=${how%.c}
            grade_exercise "$ch" "$name" "$cheat" "$work/cheat-$ch-$name-$how"
            if [ "$(count_ok)" != 0 ]; then
                echo "prove: the cheat $cheat passes $(count_ok) of $(count_of) tests:"
                for i in "${!R_OK[@]}"; do [ "${R_OK[$i]}" = 1 ] && echo "   passes ${R_TEST[$i]}"; done
                status=1
            elif [ "$GRADE_JAIL" != 1 ] && all_unbuilt; then
                GRADE_CALLS=all grade_exercise "$ch" "$name" "$cheat" "$work/cheat-open-$ch-$name-$how"
                if [ "$(count_ok)" != "$(count_of)" ]; then
                    echo "prove: the cheat $cheat fails $(($(count_of) - $(count_ok))) of $(count_of) tests even unrefused (GRADE_CALLS=all): it shows no leak"
                    failures | sed 's/^/   /' | head -6
                    status=1
                fi
            fi
            n_cheats=$((n_cheats + 1))
        done
        # Every exercise can run in the autograder's jail.
        if ! grep -qE "ENTRY(_AS)?\($name[,)]" tests/jail/exercises.c; then
            echo "prove: exercise $ch/$name has no entry in the autograder's jail (tests/jail/exercises.c)"
            status=1
        fi
        echo "counts $n_pub $n_hid $status $n_cheats"
    }
    # On a device other than the CPU (make test DEVICE=twin or cuda) only the exercises whose
    # tests open the device under test (test_device()) run anything new: the others' tests run
    # on the CPU whatever DEVICE says, and make test DEVICE=cpu proved them.
    device=${DPS_TEST_DEVICE:-cpu} skipped=0
    # PROVE_JOBS exercises at once (make passes TEST_JOBS), each in a shell of its own whose
    # report waits in a file; the reports are read in the MANIFEST's order.
    jobs=${PROVE_JOBS:-2} order=()
    while read -r ch name stars points replaces hash title; do
        if [ "$device" != cpu ] && ! grep -q 'test_device(' $(test_files "$ch" "$name"); then
            skipped=$((skipped + 1))
            continue
        fi
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        prove_one "$ch" "$name" "$hash" >"$work/prove-$ch-$name.out" 2>&1 &
        order+=("$ch-$name")
    done < <(entries)
    wait
    checked=0 n_public=0 n_hidden=0 n_cheats=0
    for e in "${order[@]}"; do
        out=$work/prove-$e.out
        last=$(tail -1 "$out")
        if [[ $last != counts\ * ]]; then
            cat "$out"
            echo "prove: the proof of ${e/-//} stopped before its end (above)"
            status=1
            continue
        fi
        sed '$d' "$out"
        read -r _ pub hid st nc <<<"$last"
        n_public=$((n_public + pub)) n_hidden=$((n_hidden + hid)) n_cheats=$((n_cheats + nc))
        [ "$st" = 0 ] || status=1
        checked=$((checked + 1))
    done
    if [ "${PROVE_ONLY:-}" = solutions ]; then
        [ $status = 0 ] && echo "prove: $checked solutions pass all $n_public public and $n_hidden hidden tests (their skeletons and cheats: make test's)"
    else
        [ $status = 0 ] && echo "prove: $checked solutions pass all $n_public public and $n_hidden hidden tests; their $checked skeletons and $n_cheats cheats fail every one"
    fi
    [ $skipped = 0 ] || echo "prove: DEVICE=$device: the $skipped other exercises are DEVICE=cpu's to prove: their tests open no device"
    ;;

substitute)
    # Every submission scripts/substitutes.py wrote (DIR/list: "chN NAME FILE" a line: an
    # exercise answered by a function of the handout whose prototype fits) graded with the
    # check of calls off (a paste is a call that check cannot see); fails if one passes every
    # public and hidden test of its exercise: the handout holds that exercise's answer.
    dir=${arg:?usage: tests/grade.sh substitute DIR, as scripts/substitutes.py writes it}
    [ -f "$dir/list" ] || { echo "substitute: $dir/list is missing (scripts/substitutes.py writes it)" >&2; exit 2; }
    [ -d tests/hidden ] || { echo "substitute: no tests/hidden: a substitute is graded as the autograder grades it, from the instructor's tree" >&2; exit 2; }
    one_substitute() {
        local ch=$1 name=$2 file=$3 how
        how=${file##*--} how=${how%.c}
        # The public tests first: one that fails there cannot pass, and its hidden tests'
        # binary is not built (most substitutes fail at once).
        PUBLIC_ONLY=1 GRADE_CALLS=all grade_exercise "$ch" "$name" "$file" "$work/substitute-$ch-$name-$how"
        [ "$(count_ok)" = "$(count_of)" ] &&
            GRADE_CALLS=all grade_exercise "$ch" "$name" "$file" "$work/substitute-$ch-$name-$how"
        if all_unbuilt; then
            echo "unbuilt $ch/$name $how"
            failures | sed -n '2,4s/^/   /p'
        elif [ "$(count_ok)" = "$(count_of)" ]; then
            echo "passes $ch/$name $how $(count_ok) $(count_of)"
        else
            echo "fails $ch/$name $how $(count_ok) $(count_of)"
        fi
    }
    jobs=${PROVE_JOBS:-2} n=0
    while read -r ch name file; do
        [ -n "$file" ] || continue
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
        n=$((n + 1))
        one_substitute "$ch" "$name" "$file" >"$work/substitute-$n.out" 2>&1 &
    done <"$dir/list"
    wait
    # The leaks known and waiting for their exercise's rework (instructors/known-substitutes.txt).
    known=instructors/known-substitutes.txt
    passed=0 failed=0 unbuilt=0 waiting=0 seen_known=
    for k in $(seq 1 $n); do
        read -r verdict which how ok of <"$work/substitute-$k.out"
        case $verdict in
        passes) passed=$((passed + 1))
            if [ -f "$known" ] && awk -v w="$which" -v h="$how" '$1 == w && $2 == h { f = 1 } END { exit !f }' "$known"; then
                waiting=$((waiting + 1)) seen_known="$seen_known $which:$how"
                echo "substitute: $which is answered by the handout's $how, as $known says (its rework is to come)"
            else
                echo "substitute: $which is answered by the handout's $how: it passes all $of tests (scripts/substitutes.py wrote $dir/${which%/*}/${which#*/}--$how.c)"
                status=1
            fi ;;
        fails) failed=$((failed + 1))
            [ "$ok" = 0 ] || echo "substitute: $which by $how passes $ok of $of tests (not all: no answer)" ;;
        unbuilt) unbuilt=$((unbuilt + 1))
            # A paste that does not build is a leak this check could not see.
            echo "substitute: $which by $how does not build, so it could not be graded (scripts/substitutes.py must paste it whole, or skip its file and say why):"
            sed 1d "$work/substitute-$k.out"
            status=1 ;;
        *) cat "$work/substitute-$k.out"; echo "substitute: a grade stopped before its end (above)"; status=1 ;;
        esac
    done
    # A listed leak that no longer passes: its line goes (the list only shrinks by evidence).
    if [ -f "$known" ]; then
        while read -r which how _; do
            [[ -z $which || $which == \#* ]] && continue
            [ -n "$only" ] && ! grep -qw "${which%%/*}" <<<"$(printf 'ch%s ' $only)" && continue
            [[ " $seen_known " == *" $which:$how "* ]] && continue
            echo "substitute: $known lists $which answered by $how, which no longer passes it: remove the line"
            status=1
        done <"$known"
    fi
    echo "substitute: $n functions of the handout fit an exercise's prototype: $failed fail their exercise, $passed pass it ($waiting of them listed in $known, to be reworked), $unbuilt do not build"
    ;;

solutions)
    # The solutions' test binaries, as prove builds them (the same names, so the same keys),
    # for make soak to run many times; none is run here.
    [ -d solutions ] || { echo "solutions: no solutions/ (a handout): none built"; exit 0; }
    built=0
    while read -r ch name stars points replaces hash title; do
        k=0
        while read -r tfile; do
            bin=$work/solution-$ch-$name$([ $k = 0 ] || echo -hidden)
            k=$((k + 1))
            build "$tfile" "$ch" "solutions/$ch/$name.c" "$bin" ||
                { cat "$bin.log"; echo "solutions: $ch/$name does not build (above)"; status=1; continue; }
            built=$((built + 1))
        done < <(test_files "$ch" "$name")
    done < <(entries)
    echo "solutions: $built test binaries of the solutions built"
    ;;

replacing)
    while read -r ch name stars points replaces hash title; do
        [ "$replaces" != - ] && started "$ch" "$name" "$hash" && echo "$ch/$name:$replaces"
    done < <(entries)
    ;;

place)
    dir=${arg:?usage: tests/grade.sh place DIR}
    [ -d "$dir" ] || { echo "place: $dir is not a directory" >&2; exit 2; }
    # A submission's names are data: read NUL-separated, never split on lines, and a path
    # is only ever one that find listed. Taken: regular files of an exercise's name, of at
    # most 1 MiB, under no folder named solutions/ or __MACOSX/. Refused, with a line: a
    # name with a control character (a newline), and an exercise's name that is not a
    # regular file (a symbolic link, a device, a folder) or is larger.
    declare -A found=()
    refused=0
    while IFS= read -r -d '' path; do
        path=${path#./} base=${path##*/}
        if [[ $path == *[[:cntrl:]]* ]]; then
            [ $refused -lt 20 ] && printf 'refused: %q: a name with a control character\n' "$path"
            refused=$((refused + 1))
            continue
        fi
        [[ $base == *.c ]] || continue
        case "/$path" in */solutions/* | */__MACOSX/*) continue ;; esac
        kind=
        if [ -L "$dir/$path" ]; then kind="a symbolic link"
        elif [ -d "$dir/$path" ]; then kind="a folder"
        elif [ ! -f "$dir/$path" ]; then kind="not a regular file"
        elif [ "$(stat -c %s -- "$dir/$path")" -gt 1048576 ]; then kind="larger than 1 MiB"; fi
        if [ -n "$kind" ]; then
            [ $refused -lt 20 ] && printf 'refused: %s: %s; only regular files are taken\n' "$path" "$kind"
            refused=$((refused + 1))
            continue
        fi
        found[$base]+="$path"$'\n'
    done < <(cd "$dir" && find . -mindepth 1 -print0)
    [ $refused -le 20 ] || echo "refused: $((refused - 20)) more"
    taken=0
    while read -r ch name stars points replaces hash title; do
        # Prefer .../chN/NAME.c (a student's whole tree), then any NAME.c (loose files).
        mapfile -t paths < <(printf '%s' "${found[$name.c]:-}" | awk -v c="$ch/" 'NF {
                                 print (index("/" $0, "/" c) ? 0 : 1) "\t" length($0) "\t" $0 }' |
                             sort -t$'\t' -k1,1n -k2,2n | cut -f3)
        if [ ${#paths[@]} = 0 ]; then
            echo "not submitted: $name.c (exercise $ch/$name: graded as not started)"
            continue
        fi
        cp -- "$dir/${paths[0]}" "exercises/$ch/$name.c" || exit 3
        taken=$((taken + 1))
        extra=$([ ${#paths[@]} -gt 1 ] && echo " (of ${#paths[@]} files of that name: ${paths[*]})")
        echo "taken: ${paths[0]} as exercises/$ch/$name.c$extra"
    done < <(entries)
    echo "place: $taken exercise files taken from the submission$([ $refused = 0 ] || echo ", $refused refused")"
    ;;

*)
    echo "usage: tests/grade.sh test|grade|prove|replacing|place [CHAPTER|DIR]" >&2
    exit 2
    ;;
esac
exit $status
}
