# Settings shared by setup.sh and run_autograder (sourced by both). Edit them here.
#
# How the book is built for grading: no -march=native (Gradescope may grade on another CPU
# than the one that built the image), no CUDA or MPI (the image has neither), and a
# student's warning is shown but does not fail the build.
MAKE_FLAGS=(NATIVE=0 NO_CUDA=1 NO_MPI=1 WERROR=)
# Time. A test may run GRADE_TIMEOUT seconds; an exercise, its compiler and all its tests
# together, GRADE_BUDGET seconds (the compiler GRADE_COMPILE_TIMEOUT of them at most). Once
# its budget is spent, its other tests fail unrun. So a submission whose every exercise loops
# for ever is graded in about (exercises) x (GRADE_BUDGET + the grader's own second or two):
# GRADE_BOUND, which make autograder-check holds the whole book's autograder to, and about a
# fifth of it for one chapter. 900 s (15 minutes) holds about 40 exercises (27 took 553 s
# when every one looped); the assignment's timeout on Gradescope must be above it. The
# reference solutions' slowest exercise spends under 5 s of its budget in the jail on 2
# cores (GRADE_TIMES=1 prints each exercise's and each test's milliseconds): 2.1's spinning
# barriers of up to 8 ranks, 16,000 calls through the jail, took 3.5 s on 2026-11-29 beside
# make matrix (11.4 s before the judge stopped reading /proc/self/maps at every call); most
# spend under 1 s.
export GRADE_TIMEOUT=10 GRADE_BUDGET=20 GRADE_COMPILE_TIMEOUT=10 GRADE_BOUND=900
# The jail (tests/jail/jail.h): each exercise runs as a uid of its own, picked afresh from
# GRADE_JAIL_UIDS (FIRST:COUNT; tests/grade.sh's default 1500000000:500000000, uids no
# account names), in a process of its own that only sends back its outputs; the test that
# judges it, and the grader's files, stay out of its reach. After every test every process
# of that uid is killed and its files are removed (tests/jail/warden.c). 0 turns the jail
# off (the submission's code then runs as root, in the test).
export GRADE_JAIL=1
# Its mode (tests/grade.sh): auto, the sandbox (bubblewrap's namespaces around the jail's
# user) where this machine allows it and else the jail alone; 1, the sandbox or no grade; 0,
# the jail alone. results.json says which ran.
export GRADE_SANDBOX=${GRADE_SANDBOX:-auto}
# When students see the results of the hidden tests: hidden, after_due_date,
# after_published or visible (Gradescope's names). Their points count at once.
export GRADE_HIDDEN_VISIBILITY=after_published
# The chapters this autograder grades, "3" or "3 4" (a weekly assignment), or empty for every
# exercise of the book. make autograder CHAPTER=... and HIDDEN_VISIBILITY=... set both.
export GRADE_CHAPTERS=
# The Debian/Ubuntu packages grading needs.
PACKAGES="build-essential libcriterion-dev libopenblas-dev python3 bubblewrap"
