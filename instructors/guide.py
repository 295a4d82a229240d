#!/usr/bin/env python3
"""The numbers of the instructor's guide, drawn from the tree.

    instructors/guide.py            rewrite instructors/GUIDE.md's numbers (make guide)
    instructors/guide.py --check    say which differ and exit 1 (make autograder-check)
    ... --results results.json      also compare the tests counted here with a graded run's

Every count the guide states about the exercises comes from exercises/MANIFEST (chapters,
names, stars, points, replaced functions), the test files (one `Test(` per test, public in
tests/chN/ex_NAME.c, hidden in tests/hidden/chN/ex_NAME.c), solutions/wrong/ (each file's
"Fails: suite::test" lines) and instructors/autograder/env.sh (GRADE_TIMEOUT). Each rule
below finds one kind of statement in the guide's prose or tables and recomputes its numbers;
a rule that finds nothing is an error too, so rewording a sentence cannot silently retire
its check.
"""
import difflib
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUIDE = os.path.join(ROOT, "instructors", "GUIDE.md")
WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


class Exercise:
    def __init__(self, line, number):
        ch, name, stars, points, replaces, _sha, _title = line.split(None, 6)
        self.ch, self.name, self.number = ch, name, number
        self.stars, self.points = int(stars), int(points)
        self.replaces = None if replaces == "-" else replaces
        self.public = self.count_tests(f"tests/{ch}/ex_{name}.c")
        self.hidden = self.count_tests(f"tests/hidden/{ch}/ex_{name}.c")
        wrong = f"solutions/wrong/{ch}/{name}.c"
        self.wrong = wrong if os.path.exists(os.path.join(ROOT, wrong)) else None
        self.fails = re.findall(r"Fails: (\S+)", read(wrong)) if self.wrong else []

    @staticmethod
    def count_tests(path):
        if not os.path.exists(os.path.join(ROOT, path)):
            return 0
        return len(re.findall(r"^Test\(", read(path), re.M))

    @property
    def tests(self):
        return self.public + self.hidden

    @property
    def caught_publicly(self):
        return any(not f.startswith("hidden_") for f in self.fails)

    def wrong_score(self):
        return self.points * (self.tests - len(self.fails)) / self.tests


def load():
    exercises, per_chapter = [], {}
    for line in read("exercises/MANIFEST").splitlines():
        if line.strip() and not line.startswith("#"):
            ch = line.split()[0]
            per_chapter[ch] = per_chapter.get(ch, 0) + 1
            exercises.append(Exercise(line, f"{ch[2:]}.{per_chapter[ch]}"))
    env = read("instructors/autograder/env.sh")
    timeout = int(re.search(r"GRADE_TIMEOUT=(\d+)", env)[1])
    Guide.budget = int(re.search(r"GRADE_BUDGET=(\d+)", env)[1])
    Guide.bound = int(re.search(r"GRADE_BOUND=(\d+)", env)[1])
    grade = read("tests/grade.sh")
    local = int(re.search(r"GRADE_TIMEOUT:=(\d+)", grade)[1])
    strikes = int(re.search(r'"\$TIMEOUTS" -ge (\d+)', grade)[1])
    return exercises, timeout, local, strikes


def num(n):
    return f"{round(n, 2):g}"


def word(n, like):
    """n as the guide wrote the number it replaces: a word (capitalised or not) or digits."""
    if like.isdigit() or n >= len(WORDS):
        return str(n)
    w = WORDS[n]
    return w.capitalize() if like[0].isupper() else w


def and_list(items):
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


class Guide:
    def __init__(self, text, exercises, timeout, local, strikes):
        self.text, self.problems = text, []
        self.local, self.strikes = local, strikes
        self.ex = exercises
        self.by_number = {e.number: e for e in exercises}
        self.by_name = {e.name: e for e in exercises}
        self.timeout = timeout
        self.wrong = [e for e in exercises if e.wrong]

    def rule(self, what, pattern, replace, flags=re.M):
        """Replace each match of pattern by replace(match); none at all is a problem."""
        found = []

        def sub(m):
            found.append(m)
            return replace(m)

        self.text = re.sub(pattern, sub, self.text, flags=flags)
        if not found:
            self.problems.append(f"the guide no longer states {what}: change the rule in "
                                 f"instructors/guide.py with the sentence")

    def points(self, numbers):
        missing = [n for n in numbers if n not in self.by_number]
        if missing:
            self.problems.append(f"the guide names exercise(s) {', '.join(missing)}, which "
                                 f"exercises/MANIFEST does not have")
        return sum(self.by_number[n].points for n in numbers if n in self.by_number)

    def apply(self):
        ex, total = self.ex, sum(e.points for e in self.ex)
        n_pub, n_hid = sum(e.public for e in ex), sum(e.hidden for e in ex)

        self.rule("the number of exercises and points",
                  r"There are (\d+) exercises, (\d+) points in all",
                  lambda m: f"There are {len(ex)} exercises, {total} points in all")

        def chapter_row(m):
            es = [e for e in ex if e.ch == "ch" + m[1]]
            if not es:
                self.problems.append(f"the guide's table lists chapter {m[1]}, which has no "
                                     f"exercise")
                return m[0]
            cells = [f"{e.number} ({e.stars}{' stars' if e is ex[0] else ''})" for e in es]
            return f"| {m[1]} | {', '.join(cells)} | {sum(e.points for e in es)} |"
        self.rule("the table of stars and points per chapter",
                  r"^\| (\d+) \| (\d+\.\d+ \(\d+(?: stars?)?\)(?:, )?)+ \| \d+ \|", chapter_row)
        listed = set(re.findall(r"^\| (\d+) \| \d+\.\d+ \(\d+(?: stars?)?\)", self.text, re.M))
        for ch in sorted({e.ch[2:] for e in ex} - listed):
            self.problems.append(f"the guide's table of points has no row for chapter {ch}")

        def heading(m):
            e = self.by_number.get(m["number"])
            if e is None or e.name != m["name"]:
                self.problems.append(f"the guide's heading {m['number']} `{m['name']}` is not "
                                     f"exercise {m['number']} of exercises/MANIFEST")
                return m[0]
            rest = m["rest"]
            if e.replaces and f"replaces `{e.replaces}`" not in rest:
                self.problems.append(f"{e.number}: the heading should say it replaces "
                                     f"`{e.replaces}`")
            if not e.replaces and "replaces" in rest:
                self.problems.append(f"{e.number}: the heading says it replaces a function; "
                                     f"the MANIFEST says it replaces none")
            star = "star" if e.stars == 1 else "stars"
            tests = "test" if e.hidden == 1 else "tests"
            return (f"#### {e.number} `{e.name}` ({m['fn'] or ''}{e.stars} {star}, "
                    f"{e.points} points{rest})\n{e.public} public, {e.hidden} hidden {tests}.")
        self.rule("each exercise's heading and its counts of tests",
                  r"^#### (?P<number>\d+\.\d+) `(?P<name>\w+)` \((?P<fn>function `\w+`; )?"
                  r"\d+ stars?, \d+ points(?P<rest>[^)\n]*)\)\n\d+ public, \d+ hidden tests?\.",
                  heading)
        headed = set(re.findall(r"^#### (\d+\.\d+) `\w+` \(.*\)\n\d+ public", self.text, re.M))
        for e in ex:
            if e.number not in headed:
                self.problems.append(f"exercise {e.number} `{e.name}` has no heading followed by "
                                     f"its counts of tests in section 3")

        self.rule("the number of public and hidden tests",
                  r"There are \d+ public and \d+(\s+)hidden tests, \d+ in all",
                  lambda m: f"There are {n_pub} public and {n_hid}{m[1]}hidden tests, "
                            f"{n_pub + n_hid} in all")

        def extreme(value):
            es = [e for e in ex if math.isclose(e.points / e.tests, value)]
            if len({e.tests for e in es}) == 1:
                many = " each" if len(es) > 1 else ""
                return f"{and_list([e.number for e in es])}, {es[0].tests} tests{many}"
            return "; ".join(f"{e.number}, {e.tests} tests" for e in es)
        lo = min(e.points / e.tests for e in ex)
        hi = max(e.points / e.tests for e in ex)
        self.rule("the smallest and the largest value of one test",
                  r"from(\s+)[\d.]+ points \([^)]*\) to [\d.]+ \([^)]*\)",
                  lambda m: f"from{m[1]}{num(lo)} points ({extreme(lo)}) to {num(hi)} "
                            f"({extreme(hi)})")

        def assignment_table(m):
            head = [c.strip() for c in m["head"].strip("|").split("|")]
            a, p = head.index("assign"), head.index("points")
            rows, out, required = m["rows"].splitlines(), [], 0
            for row in rows:
                cells = row.strip().strip("|").split("|")
                must, _, extra = cells[a].partition(";")
                need = self.points(re.findall(r"\d+\.\d+", must))
                more = re.findall(r"\d+\.\d+", extra)
                required += need
                cells[p] = (f" {need} " if not more else
                            f" {need} ({need + self.points(more)} with {', '.join(more)}) ")
                out.append("|" + "|".join(cells) + "|")
            return m["head"] + m["rule"] + "\n".join(out) + "\n" * m["rows"].endswith("\n")
        self.rule("the points of the weeks' assignments",
                  r"(?P<head>^\|[^\n]* assign \|[^\n]* points \|[^\n]*\n)(?P<rule>^\|[- |]+\n)"
                  r"(?P<rows>(?:^\|[^\n]*\|$\n?)+)", assignment_table)
        self.rule("the number of exercises of the 3-week unit",
                  r"Assign (\w+) exercises of",
                  lambda m: f"Assign {word(len(self.table_near(m, after=True)), m[1])} "
                            f"exercises of")
        self.rule("the points of the 3-week unit",
                  r"That is \d+ points\. Offer (\d+\.\d+) or (\d+\.\d+) \(\d+ points each",
                  lambda m: self.stretch(m))

        self.rule("the points of one chapter's autograder",
                  r"\((\d+) for chapter (\d+)\)",
                  lambda m: f"({sum(e.points for e in ex if e.ch == 'ch' + m[2])} "
                            f"for chapter {m[2]})")

        def put(value):
            return lambda m: (m[0][:m.start(1) - m.start(0)] + value(m[1])
                              + m[0][m.end(1) - m.start(0):])
        for pattern, what, value in (
                (r"`GRADE_TIMEOUT`\s+\((\d+) s per test\)", "the autograder's limit (env.sh)",
                 lambda _: str(self.timeout)),
                (r"the\s+autograder uses (\d+) s", "the autograder's limit",
                 lambda _: str(self.timeout)),
                (r"`GRADE_TIMEOUT` seconds \((\d+)\)", "the autograder's limit (seconds)",
                 lambda _: str(self.timeout)),
                (r"a limit of (\d+) s locally", "the local limit (tests/grade.sh)",
                 lambda _: str(self.local)),
                (r"did not finish within the limit of (\d+) s", "the local limit's message",
                 lambda _: str(self.local)),
                (r"Once (\w+) tests of an exercise have run out of time", "the tests that may "
                 "run out of time (tests/grade.sh)", lambda w: word(self.strikes, w)),
                (r"After (\w+) tests\s+of one exercise have run out", "the tests that may run "
                 "out of time, on the autograder", lambda w: word(self.strikes, w))):
            self.rule(what, pattern, put(value))

        hang = len(ex) * self.budget
        minutes = (f"{hang // 60} minutes" if hang % 60 == 0 else
                   f"under {math.ceil(hang / 60)} minutes")
        self.rule("the bound on a submission that hangs",
                  r"\d+(\s+)exercises that all hang spend at most(\s+)\d+ × \d+ s, "
                  r"(?:under )?\d+ minutes",
                  lambda m: f"{len(ex)}{m[1]}exercises that all hang spend at most{m[2]}"
                            f"{len(ex)} × {self.budget} s, {minutes}")
        for pattern, what, value in (
                (r"`GRADE_BUDGET`\s+\((\d+) s\)", "an exercise's budget (env.sh)",
                 lambda _: str(self.budget)),
                (r"`GRADE_BOUND`\s+\((\d+) s\)", "the bound (env.sh)",
                 lambda _: str(self.bound))):
            self.rule(what, pattern, put(value))

        self.rule("the table of wrong solutions",
                  r"(?P<head>^\| file \| fails \| score \|\n^\|[- |]+\n)(?:^\|[^\n]*\|$\n?)+",
                  lambda m: m["head"] + "".join(
                      f"| `{e.wrong}` | {', '.join(f'`{f}`' for f in e.fails)} | "
                      f"{num(e.wrong_score())} of {e.points} |\n" for e in self.wrong))
        self.rule("which wrong solutions the public tests catch",
                  r"^\w+ of the \w+ fail a public test,[^\n]*\n(?:[^\n]+\n)*?[^\n]*shows\s+at\s+once\.",
                  lambda m: self.caught(m[0]))

        self.rule("the number of wrong solutions",
                  r"exactly those (\w+) exercises",
                  lambda m: f"exactly those {word(len(self.wrong), m[1])} exercises")
        self.rule("the first upload's submissions",
                  r"the \d+ files of `solutions/chN/` as loose files \(expect \d+;",
                  lambda m: f"the {len(ex)} files of `solutions/chN/` as loose files "
                            f"(expect {total};")
        self.rule("the first upload's submission of mistakes",
                  r"the same \d+ with the (\w+) files of `solutions/wrong/`",
                  lambda m: f"the same {len(ex)} with the {word(len(self.wrong), m[1])} files "
                            f"of `solutions/wrong/`")
        problems = {f"ch{int(f[:2])}": len(re.findall(r"\\answer\{", read(f"chapters/{f}")))
                    for f in os.listdir(os.path.join(ROOT, "chapters"))
                    if f[:2].isdigit() and f.endswith(".nw")}
        counts = {n for ch, n in problems.items() if ch in {e.ch for e in ex}}
        each = 0
        if len(counts) != 1:
            self.problems.append(f"the chapters with exercises end with different numbers of "
                                 f"problems ({problems}); the guide says each ends with one number")
        else:
            each = counts.pop()
            self.rule("the number of problems per chapter",
                      r"Each chapter ends with (\d+) problems",
                      lambda m: f"Each chapter ends with {each} problems")
        n_problems = sum(problems.values())
        every = {f"{int(ch[2:])}.{k}" for ch, n in problems.items() for k in range(1, n + 1)}
        named = []
        for what in ("Most are counts and predictions", "The others are derivations and "
                     "explanations"):
            m = re.search(re.escape(what) + r" \(([\d., \n]+)\)", self.text)
            if not m:
                self.problems.append(f"the guide no longer says \"{what} (...)\"")
            else:
                named += re.findall(r"\d+\.\d+", m[1])
        if m and sorted(named) != sorted(every):
            self.problems.append(
                f"the rubrics' two lists of problems should name each of the book's "
                f"{n_problems} once; missing {sorted(every - set(named))}, extra or twice "
                f"{sorted(set(n for n in named if named.count(n) > 1 or n not in every))}")
        self.rule("the number of problems of the book",
                  r"The book has (\d+) problems, (\w+) per chapter",
                  lambda m: f"The book has {n_problems} problems, "
                            f"{word(each, m[2])} per chapter")
        for e in ex:
            if e.points != 10 * e.stars:
                self.problems.append(f"{e.number}: {e.points} points for {e.stars} stars; the "
                                     f"guide says points are 10 times the stars")
            for f in e.fails:
                suite, _, test = f.partition("::")
                where = "tests/hidden" if suite.startswith("hidden_") else "tests"
                path = f"{where}/{e.ch}/ex_{e.name}.c"
                if not re.search(rf"^Test\({suite},\s*{test}\b", read(path), re.M):
                    self.problems.append(f"{e.wrong}: Fails: {f} is not a test of {path}")
        self.rule("the points per star", r"Points are (\d+) times the stars",
                  lambda m: "Points are 10 times the stars")
        chapters = sorted({e.ch for e in ex})
        if sorted({e.ch for e in self.wrong}) != chapters:
            self.problems.append("the guide says there is at least one deliberately wrong "
                                 "solution per chapter; solutions/wrong/ has them for "
                                 f"{', '.join(sorted({e.ch for e in self.wrong}))}")

    TABLE = re.compile(r"^\|[^\n]* assign \|[^\n]* points \|[^\n]*\n^\|[- |]+\n"
                       r"((?:^\|[^\n]*\|$\n?)+)", re.M)

    def table_near(self, m, after):
        """The exercises a table of assignments requires (not those after a ";"): the table
        that follows the sentence m (after), or the one that precedes it."""
        tables = list(self.TABLE.finditer(m.string))
        t = (next((t for t in tables if t.start() > m.end()), None) if after else
             next((t for t in reversed(tables) if t.end() <= m.start()), None))
        if t is None:
            self.problems.append(f"no table of assignments near \"{m[0]}\"")
            return []
        head = [c.strip() for c in m.string[t.start():].split("\n", 1)[0].strip("|").split("|")]
        col = head.index("assign")
        return [n for row in t[1].splitlines()
                for n in re.findall(r"\d+\.\d+", row.strip().strip("|").split("|")[col]
                                    .partition(";")[0])]

    def stretch(self, m):
        pts = {self.points([m[1]]), self.points([m[2]])}
        each = f"{pts.pop()} points each" if len(pts) == 1 else "points"
        total = self.points(self.table_near(m, after=False))
        return f"That is {total} points. Offer {m[1]} or {m[2]} ({each}"

    def caught(self, old):
        seen = [e for e in self.wrong if e.caught_publicly]
        unseen = [e for e in self.wrong if not e.caught_publicly]
        base = lambda es: [f"`{os.path.basename(e.wrong)}`" for e in es]
        first = old.split(None, 1)[0]
        text = (f"{word(len(seen), first)} of the {word(len(self.wrong), 'eight')} fail a public "
                f"test, so a student sees them in `make test` before the deadline"
                + (f":\n{and_list(base(seen))}." if seen else "."))
        if unseen:
            text += (f" The other {word(len(unseen), 'four')} pass every public test "
                     f"({', '.join(base(unseen))}): a student with such a mistake sees full marks "
                     f"locally and loses points only on the hidden tests, which "
                     f"`HIDDEN_VISIBILITY=visible` shows at once.")
        else:
            text += " None passes every public test; `HIDDEN_VISIBILITY=visible` shows at once."
        return wrap(text)


def wrap(text, width=96):
    lines, line = [], ""
    for para in text.split("\n"):
        for w in para.split():
            if line and len(line) + 1 + len(w) > width:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
    return "\n".join(lines + [line])


def check_results(exercises, path):
    """The counts here against a graded run's results.json: the same tests, public and hidden."""
    problems, got = [], {}
    for t in json.load(open(path))["tests"]:
        ex = t["name"].split(" ", 1)[0]
        got.setdefault(ex, [0, 0])[t["name"].endswith("(hidden)")] += 1
    for e in exercises:
        c = got.get(f"{e.ch}/{e.name}")
        if c is not None and c != [e.public, e.hidden]:
            problems.append(f"{e.number}: {c[0]} public and {c[1]} hidden tests ran; the test "
                            f"files hold {e.public} and {e.hidden} (`Test(` at a line's start)")
    return problems


def main(argv):
    check = "--check" in argv
    exercises, timeout, local, strikes = load()
    old = open(GUIDE).read()
    g = Guide(old, exercises, timeout, local, strikes)
    g.apply()
    if "--results" in argv:
        g.problems += check_results(exercises, argv[argv.index("--results") + 1])
    for p in g.problems:
        print(f"guide: {p}", file=sys.stderr)
    if check and g.text != old:
        for line in difflib.unified_diff(old.splitlines(), g.text.splitlines(), "GUIDE.md",
                                         "from the tree", n=0, lineterm=""):
            print(line, file=sys.stderr)
        print("guide: instructors/GUIDE.md's numbers differ from the tree's (above): "
              "run make guide", file=sys.stderr)
        return 1
    if g.problems:
        return 1
    if not check and g.text != old:
        open(GUIDE, "w").write(g.text)
        print("guide: instructors/GUIDE.md updated")
    elif not check:
        print("guide: instructors/GUIDE.md already agrees with the tree")
    else:
        print(f"guide: instructors/GUIDE.md agrees with the tree ({len(exercises)} exercises, "
              f"{sum(e.points for e in exercises)} points, {sum(e.tests for e in exercises)} "
              f"tests, {len(g.wrong)} wrong solutions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
