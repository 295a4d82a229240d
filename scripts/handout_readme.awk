# The README of a student's handout: the instructor's block (between the markers
# "<!-- instructors -->" and "<!-- end of instructors -->") becomes one line, and the rows of
# the instructor's make targets go, since their commands need the instructor's tree.
# Usage: awk -f scripts/handout_readme.awk README.md > HANDOUT/README.md
/^<!-- instructors -->$/ {
    print "This is a student's handout: the instructor's commands (`make handout`, `make autograder`,"
    print "`make book INSTRUCTOR=1`) need the instructor's tree, which holds the solutions, the hidden"
    print "tests and the answers."
    skip = 1
    next
}
/^<!-- end of instructors -->$/ { skip = 0; next }
skip { next }
/^\| `make (handout|handout-check|autograder|autograder-check|guide|manifest)` \|/ { next }
{ print }
