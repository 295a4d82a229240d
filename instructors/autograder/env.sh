# Settings shared by setup.sh and run_autograder (sourced by both). Edit them here.
#
# How the book is built for grading: no -march=native (Gradescope may grade on another CPU
# than the one that built the image), no CUDA or MPI (the image has neither), and a
# student's warning is shown but does not fail the build.
MAKE_FLAGS=(NATIVE=0 NO_CUDA=1 NO_MPI=1 WERROR=)
# Seconds one test may run before it counts as failed (each test runs alone; the slowest
# reference solution's test takes about 1 s). After two such failures in one exercise, its
# other tests are not run.
export GRADE_TIMEOUT=20
# The jail (tests/jail/jail.h): each exercise runs as this user, in a process of its own
# that only sends back its outputs; the test that judges them, and the grader's files, stay
# out of its reach. 0 turns it off (the submission's code then runs as root, in the test).
export GRADE_JAIL=1 GRADE_JAIL_USER=nobody
# When students see the results of the hidden tests: hidden, after_due_date,
# after_published or visible (Gradescope's names). Their points count at once.
export GRADE_HIDDEN_VISIBILITY=after_published
# The chapters this autograder grades, "3" or "3 4" (a weekly assignment), or empty for every
# exercise of the book. make autograder CHAPTER=... and HIDDEN_VISIBILITY=... set both.
export GRADE_CHAPTERS=
# The Debian/Ubuntu packages grading needs.
PACKAGES="build-essential libcriterion-dev libopenblas-dev"
