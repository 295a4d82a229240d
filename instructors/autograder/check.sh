#!/usr/bin/env bash
# make autograder-check: run the autograder zip ($1) the way Gradescope does, in a temporary
# directory laid out like its /autograder, and check what it says of three submissions:
#
#   solutions  every reference solution, as loose files        full marks, every test passed
#   skeletons  every untouched skeleton, as loose files        zero, every test "not started"
#   mistakes   the solutions in a student's tree (exercises/chN/NAME.c), with each file of
#              solutions/wrong/ in place of its solution        partial marks on exactly those
#              exercises, and failed exactly the tests each one's "Fails:" lines name
#
# Gradescope builds an image once (the zip in source/, setup.sh run there) and grades each
# submission in a fresh container of it; so does this script, with a copy of the image.
set -euo pipefail
zip=${1:?usage: instructors/autograder/check.sh build/dps-autograder.zip}
zip=$(realpath "$zip")
repo=$(pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp" # as /autograder is: the jail's user must reach the host it runs
trap '[ -n "${KEEP:-}" ] && echo "autograder-check: kept $tmp" >&2 || rm -rf "$tmp"' EXIT
fail() { echo "autograder-check: $*" >&2; exit 1; }

# The image: /autograder/source, /autograder/run_autograder, after setup.sh.
image=$tmp/image
mkdir -p "$image/source"
unzip -q "$zip" -d "$image/source"
[ -x "$image/source/setup.sh" ] && [ -x "$image/source/run_autograder" ] ||
    fail "setup.sh and run_autograder must be executable at the root of the zip"
[ ! -e "$image/source/solutions" ] || fail "the zip holds solutions/"
cp "$image/source/run_autograder" "$image/run_autograder"
start=$(date +%s)
(cd "$image/source" && bash ./setup.sh) >"$tmp/setup.log" 2>&1 ||
    { tail -20 "$tmp/setup.log"; fail "setup.sh failed"; }
echo "autograder-check: setup.sh built the image in $(($(date +%s) - start)) s"

# Grade submission $1, whose files the commands on stdin put into $c/submission.
submit() {
    local name=$1
    c=$tmp/$name
    cp -a "$image" "$c"
    mkdir -p "$c/submission" "$c/results"
    . /dev/stdin
    local t0
    t0=$(date +%s)
    (cd "$c" && AUTOGRADER_ROOT=$c ./run_autograder) >"$c/results/stdout" 2>&1 ||
        { tail -20 "$c/results/stdout"; fail "$name: run_autograder failed"; }
    [ -s "$c/results/results.json" ] || { tail -20 "$c/results/stdout"; fail "$name: no results.json"; }
    echo "autograder-check: $name: graded in $(($(date +%s) - t0)) s"
}

# What the zip grades, as its env.sh says: the chapters (empty: all) and the hidden tests'
# visibility.
chapters=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_CHAPTERS")
visibility=$(. "$image/source/instructors/autograder/env.sh" && echo "$GRADE_HIDDEN_VISIBILITY")
export CHECK_CHAPTERS=$chapters CHECK_VISIBILITY=$visibility
exercises=$(grep -v '^#' exercises/MANIFEST |
    awk -v c="$chapters" 'BEGIN { n = split(c, l, / +/); for (i = 1; i <= n; i++) w["ch" l[i]] = 1 }
                          NF && (n == 0 || ($1 in w)) { print $1 "/" $2 }')

submit solutions <<'EOF'
for e in $exercises; do cp "$repo/solutions/$e.c" "$c/submission/"; done
EOF
submit skeletons <<'EOF'
for e in $exercises; do git -C "$repo" show "HEAD:exercises/$e.c" >"$c/submission/${e#*/}.c"; done
EOF
submit mistakes <<'EOF'
for e in $exercises; do
    mkdir -p "$c/submission/my-dps/exercises/${e%/*}"
    wrong=$repo/solutions/wrong/$e.c
    cp "$([ -f "$wrong" ] && echo "$wrong" || echo "$repo/solutions/$e.c")" "$c/submission/my-dps/exercises/$e.c"
done
EOF

# Three attacks on the grade (solutions/attacks/, each a relu_bias_backward.c of chapter 1):
# each must succeed with the jail off and fail with it on. Only root can switch users, as
# Gradescope's run_autograder does; as anyone else the attacks are not run.
attacks=
if [ "$(id -u)" != 0 ]; then
    echo "autograder-check: not root: the jail's isolation was not exercised (run as root, as Gradescope and CI do)"
elif [ -z "$chapters" ] || [[ " $chapters " == *" 1 "* ]]; then
    attacks="forge_verdict read_hidden write_results"
fi
for a in $attacks; do
    for jail in 0 1; do
        A=$a J=$jail submit "attack-$a-$jail" <<'EOF2'
sed -i "s/GRADE_JAIL=1/GRADE_JAIL=$J/" "$c/source/instructors/autograder/env.sh"
cp "$repo/solutions/attacks/$A.c" "$c/submission/relu_bias_backward.c"
EOF2
    done
done
export CHECK_ATTACKS=$attacks

# The guide's counts are the tree's, and its tests are the ones that ran.
python3 "$repo/instructors/guide.py" --check --results "$tmp/solutions/results/results.json" |
    sed 's/^guide: /autograder-check: /' || fail "instructors/GUIDE.md (above)"

# What each submission's results.json must say.
python3 - "$tmp" "$repo" <<'EOF'
import json, os, re, sys
tmp, repo = sys.argv[1], sys.argv[2]
chapters = {"ch" + c for c in os.environ.get("CHECK_CHAPTERS", "").split()}
hidden_vis = os.environ.get("CHECK_VISIBILITY", "after_published")
manifest = [l.split(None, 6) for l in open(os.path.join(repo, "exercises/MANIFEST"))
            if l.strip() and not l.startswith("#")]
manifest = [m for m in manifest if not chapters or m[0] in chapters]
points = {f"{m[0]}/{m[1]}": float(m[3]) for m in manifest}
total = sum(points.values())
wrong = {}
for ch, name, *_ in manifest:
    p = os.path.join(repo, "solutions/wrong", ch, name + ".c")
    if os.path.exists(p):
        wrong[f"{ch}/{name}"] = set(re.findall(r"Fails: (\S+)", open(p).read()))
problems = []

def load(name):
    r = json.load(open(os.path.join(tmp, name, "results/results.json")))
    by = {}
    for t in r["tests"]:
        for key in ("name", "score", "max_score", "status", "visibility", "output"):
            if key not in t:
                problems.append(f"{name}: a test without {key}: {t}")
        ex = t["name"].split(" ", 1)[0]
        if ex not in points:
            problems.append(f"{name}: a test of no exercise: {t['name']}")
        by.setdefault(ex, []).append(t)
    if set(by) != set(points):
        problems.append(f"{name}: exercises graded {sorted(by)} are not the MANIFEST's")
    for ex, ts in by.items():
        if abs(sum(t["max_score"] for t in ts) - points[ex]) > 0.01:
            problems.append(f"{name}: {ex}: the tests' max_score add up to "
                            f"{sum(t['max_score'] for t in ts)}, not {points[ex]}")
        if not any(t["visibility"] == hidden_vis for t in ts):
            problems.append(f"{name}: {ex} has no hidden test")
    return r, by

def test_id(t):  # "suite::name" back from "chN/name (title): test (public)"
    return t["name"].rsplit(": ", 1)[1].rsplit(" (", 1)[0]

r, by = load("solutions")
if abs(r["score"] - total) > 0.01 or any(t["status"] != "passed" for ts in by.values() for t in ts):
    bad = [t["name"] for ts in by.values() for t in ts if t["status"] != "passed"]
    problems.append(f"solutions: score {r['score']} of {total}; failed: {bad}")
n_tests = sum(len(ts) for ts in by.values())
n_hidden = sum(t["name"].endswith("(hidden)") for ts in by.values() for t in ts)

r, by = load("skeletons")
if r["score"] != 0 or any(t["status"] != "failed" or "not started" not in t["output"]
                          for ts in by.values() for t in ts):
    problems.append(f"skeletons: score {r['score']}, expected 0 with every test not started")

r, by = load("mistakes")
for ex, ts in by.items():
    got = sum(t["score"] for t in ts)
    failed = {t["name"].rsplit(": ", 1)[1].rsplit(" (", 1)[0] for t in ts if t["status"] == "failed"}
    if ex in wrong:
        names = {f.split("::", 1)[1] for f in wrong[ex]}
        if not 0 < got < points[ex]:
            problems.append(f"mistakes: {ex} scored {got:.2f} of {points[ex]}, expected partial marks")
        if failed != names:
            problems.append(f"mistakes: {ex} failed {sorted(failed)}, its Fails: lines name {sorted(names)}")
        for t in ts:
            if t["status"] == "failed" and not t["output"].strip():
                problems.append(f"mistakes: {t['name']} failed without a message")
    elif failed:
        problems.append(f"mistakes: {ex} (a solution) failed {sorted(failed)}")
if "my-dps/exercises/" not in r.get("output", ""):
    problems.append("mistakes: results.json's output does not list the files taken from the tree")

# The attacks: with the jail off each succeeds, with it on each scores 0 and reaches nothing.
attacks = os.environ.get("CHECK_ATTACKS", "").split()
for a in attacks:
    for jail in (0, 1):
        d = os.path.join(tmp, f"attack-{a}-{jail}")
        r = json.load(open(os.path.join(d, "results/results.json")))
        ts = [t for t in r["tests"] if t["name"].startswith("ch1/relu_bias_backward ")]
        got = sum(t["score"] for t in ts)
        text = json.dumps(r)
        done = {"forge_verdict": abs(got - points.get("ch1/relu_bias_backward", 10)) < 0.01,
                "read_hidden": "Hidden tests of exercise 1.4" in text,
                "write_results": os.path.exists(os.path.join(d, "results/forged.json"))}[a]
        if jail == 0 and not done:
            problems.append(f"attack {a}: it failed with the jail off, so it tests nothing")
        if jail == 1 and (done or got != 0):
            problems.append(f"attack {a}: with the jail on it {'succeeded' if done else 'scored'}"
                            f" ({got:.1f} points)")

for p in problems:
    print("autograder-check: " + p, file=sys.stderr)
if problems:
    sys.exit(1)
exercises = "exercise" if len(wrong) == 1 else "exercises"
print(f"autograder-check: solutions {total:g}/{total:g} ({n_tests} tests, {n_hidden} hidden), "
      f"skeletons 0/{total:g}, mistakes partial on exactly {len(wrong)} {exercises} "
      f"({', '.join(sorted(wrong))}), each failing the tests it names")
if attacks:
    print(f"autograder-check: {len(attacks)} attacks ({', '.join(attacks)}) succeed with the "
          f"jail off and score 0, reading and writing nothing, with it on")
EOF
