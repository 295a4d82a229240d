# Training steps of a --trace file (appendix A), as CSV for the book's timelines:
# rank,lane,start_us,dur_us,name, the times from the start of rank 0's first step shown.
# A step of a rank starts with its "data" span; steps STEP to STEP + STEPS - 1 (1-based) of
# each rank run from its STEP-th "data" span to its (STEP + STEPS)-th. Usage:
#   awk -v step=10 -v steps=3 -f scripts/trace_step.awk T T
# (the file twice: the first pass finds the steps, the second prints their events).
function num(key,    i, rest) {
    i = index($0, "\"" key "\":")
    if (!i) return ""
    rest = substr($0, i + length(key) + 3)
    return rest + 0
}
function name(    s) {
    s = substr($0, index($0, "\"name\":\"") + 8)
    return substr(s, 1, index(s, "\"") - 1)
}
FNR == 1 { pass++ }
!/"ph":"X"/ { next }
pass == 1 {
    if (name() == "data" && num("tid") == 0) {
        p = num("pid"); k = ++count[p]
        if (k == step) from[p] = num("ts")
        if (k == step + (steps ? steps : 1)) to[p] = num("ts")
    }
    next
}
pass == 2 {
    p = num("pid"); t = num("ts")
    if (!(p in from) || t < from[p] || ((p in to) && t >= to[p])) next
    printf "%d,%d,%.1f,%.1f,%s\n", p, num("tid"), t - from[0], num("dur"), name()
}
