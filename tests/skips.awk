# The tests Criterion skipped, from its TAP report, and why: Criterion's own summary does not
# count them, and a test that cannot run here (no GPU, no MPI, not root) must say so rather
# than vanish. Prints "test: N skipped: ..." with each reason and how many tests gave it.
# Usage: awk -f tests/skips.awk REPORT.tap
/^ok .* # SKIP / {
    why = $0; sub(/^.* # SKIP /, "", why); sub(/[ \t]+$/, "", why)
    if (!(why in n)) order[++k] = why
    n[why]++; total++
}
END {
    if (!total) { print "test: none skipped"; exit }
    printf "test: %d skipped, each for its reason:\n", total
    for (i = 1; i <= k; i++) printf "  %3d  %s\n", n[order[i]], order[i]
}
