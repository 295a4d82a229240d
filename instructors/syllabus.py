#!/usr/bin/env python3
"""make syllabus: the courses of instructors/syllabus.txt, week by week, from the tree.

For every week of every track it gives the sections to read with their pages and prose pages,
those of them that are mostly code (read the prose, skim the listings), those the plan skips,
the program to run in the lecture, and the exercises due with their points and expected time. The
pages are the built book's (build/book/book.toc: run make book first); a section's prose pages
are its pages times its share of prose lines in chapters/*.nw (a line of prose against a line
of code: the woven page sets both about alike); the points and stars are exercises/MANIFEST's,
and the time per star is the guide's table ("Stars and points"). A week may ask for at most
MAX_PROSE prose pages: more fails, naming the week.

  instructors/syllabus.py                  Markdown on stdout; status 1 on a problem
  instructors/syllabus.py --guide          write it into instructors/GUIDE.md, between its
                                           syllabus marks
  instructors/syllabus.py --check          status 1, with a line, when the guide's copy is
                                           not what the tree makes now
"""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MAX_PROSE = 40
SKIM = 0.7  # a section with more than this share of code lines is "mostly code"


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def toc_sections():
    """{chapter: [(number, title, first page)]} and {chapter: (title, first page)}, arabic
    pages only (the main matter), from the built book's table of contents."""
    try:
        toc = read("build/book/book.toc")
    except OSError:
        sys.exit("syllabus: no build/book/book.toc: run make book first")
    chapters, sections = {}, {}
    pat = r"\\contentsline \{(chapter|section)\}\{\\numberline \{([^}]*)\}(.*?)\}\{(\d+)\}\{"
    for kind, num, title, page in re.findall(pat, toc):
        title = re.sub(r"\\texttt \{([^}]*)\}", r"`\1`", title)
        title = re.sub(r"\$\\alpha \$", "α", re.sub(r"\$\\beta \$", "β", title))
        if kind == "chapter":
            chapters[num] = (title, int(page))
            sections[num] = []
        else:
            sections[num.split(".")[0]].append((num, title, int(page)))
    return chapters, sections


def prose_shares():
    """{chapter: [share of prose lines of each section, in order]}, counted as book/grain.awk
    counts (a code line is a line of a chunk; prose is every other line that prints)."""
    shares = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "chapters", "*.nw"))):
        text = open(path, encoding="utf-8").read().split("\n")
        chapter, per, prose, code, in_chunk = None, [], 0, 0, False
        for line in text:
            m = re.match(r"\\chapter\{", line)
            if m and chapter is None:
                chapter = True
            starts = (re.match(r"\\section\{", line) or line.startswith("\\begin{problems}")
                      or line.startswith("\\furtherreading"))
            if re.match(r"^<<.*>>=$", line):
                in_chunk = True
                continue
            if re.match(r"^@( |$)", line):
                in_chunk = False
                continue
            if in_chunk:
                code += 1
                continue
            if starts:
                if per or prose or code:
                    per.append((prose, code))
                prose, code = 0, 0
                continue
            if line.strip() and not re.match(r"^\\(begin|end|label|chapter)|^%", line):
                prose += 1
        per.append((prose, code))
        shares[os.path.basename(path)[:2]] = [p / (p + c) if p + c else 1.0 for p, c in per[1:]]
    return shares


def manifest():
    """{"1.1": (name, stars, points, title)} in the MANIFEST's order of each chapter."""
    out, count = {}, {}
    for line in read("exercises/MANIFEST").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        ch, name, stars, points, _, _, title = line.split(None, 6)
        n = int(ch[2:])
        count[n] = count.get(n, 0) + 1
        out[f"{n}.{count[n]}"] = (name, int(stars), int(points), title)
    return out


def star_times():
    """{stars: (low hours, high hours)} from the guide's table of stars."""
    times = {}
    for stars, low, lu, high, hu in re.findall(
            r"^\| (\d) \| \d+ \| (\d+(?:\.\d+)?) (min|h)? ?to (\d+(?:\.\d+)?) (min|h) \|",
            read("instructors/GUIDE.md"), re.M):
        lo = float(low) / (60 if (lu or hu) == "min" else 1)
        hi = float(high) / (60 if hu == "min" else 1)
        times[int(stars)] = (lo, hi)
    return times


def hours(h):
    return f"{h * 60:.0f} min" if h < 1 else f"{h:g} h"


def main(argv):
    mode = argv[1] if len(argv) == 2 and argv[1] in ("--guide", "--check") else None
    if len(argv) > 1 and not mode:
        sys.exit("usage: instructors/syllabus.py [--guide | --check]")
    chapters, sections = toc_sections()
    shares = prose_shares()
    exercises, times = manifest(), star_times()
    problems, lines = [], []
    # Each section's pages: from its first page to the next section's (at least one).
    info = {}
    order = list(chapters)
    for i, ch in enumerate(order):
        secs = sections[ch]
        end = chapters[order[i + 1]][1] if i + 1 < len(order) else None
        # chapters/NN-*.nw, and appendix A, B, C... from chapters/A1-*.nw, A2-*.nw...
        nw = ch.zfill(2) if ch.isdigit() else f"A{ord(ch) - ord('A') + 1}"
        sh = shares.get(nw, [])
        if len(sh) != len(secs):
            problems.append(f"chapter {ch}: {len(secs)} sections in the book, {len(sh)} in its .nw")
            sh = [1.0] * len(secs)
        for j, (num, title, page) in enumerate(secs):
            nxt = secs[j + 1][2] if j + 1 < len(secs) else end
            pages = max(1, (nxt - page) if nxt else 1)
            info[num] = (title, page, pages, sh[j])
    plan = [l.split(None, 4) for l in read("instructors/syllabus.txt").splitlines()
            if l.strip() and not l.startswith("#")]
    tracks = []
    for row in plan:
        if len(row) < 5:
            problems.append(f"instructors/syllabus.txt: {' '.join(row)}: expected TRACK WEEK READ DUE RUN")
            continue
        tracks.append(row)
    titles = {"semester": "A 13-week semester: the whole book",
              "module": "A 6-week module: chapters 0 to 6",
              "advanced": "An advanced track: chapters 7 to 11, after the module"}
    for track in dict.fromkeys(r[0] for r in tracks):
        lines += [f"### {titles.get(track, track)}", "",
                  "| week | read (pages: prose pages of all) | of which mostly code | skip | run in the lecture | due (points, expected time) |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for _, week, read_spec, due, run in (r for r in tracks if r[0] == track):
            wanted, marked = [], set()
            for part in ([] if read_spec == "-" else read_spec.split(",")):
                skim = part.startswith("~")
                part = part.lstrip("~")
                before = len(wanted)
                if "-" in part:
                    a, b = part.split("-")
                    ch = a.split(".")[0]
                    nums = [n for n, *_ in sections.get(ch, [])]
                    if a not in nums or b not in nums:
                        problems.append(f"week {week} of {track}: no section {a} or {b}")
                        continue
                    wanted += nums[nums.index(a):nums.index(b) + 1]
                elif part in sections:
                    wanted += [n for n, *_ in sections[part]]
                elif part in info:
                    wanted.append(part)
                else:
                    problems.append(f"week {week} of {track}: no chapter or section {part}")
                if skim:
                    marked.update(wanted[before:])
            read_secs = [n for n in wanted if n not in marked]
            code_secs = [n for n in read_secs if info[n][3] < 1 - SKIM]
            skip_secs = [n for n in wanted if n in marked]
            pages = sum(info[n][2] for n in wanted)
            prose = sum(info[n][2] * info[n][3] for n in read_secs)
            if prose > MAX_PROSE:
                problems.append(f"week {week} of {track}: {prose:.0f} prose pages, more than {MAX_PROSE}")

            def spans(nums):
                # Consecutive sections of one chapter as one range: "1.1-1.8, 1.11".
                out, run_ = [], []
                for n in nums:
                    if run_ and n.split(".")[0] == run_[-1].split(".")[0] and \
                            int(n.split(".")[1]) == int(run_[-1].split(".")[1]) + 1:
                        run_.append(n)
                    else:
                        if run_:
                            out.append(run_)
                        run_ = [n]
                if run_:
                    out.append(run_)
                return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in out)

            first = min((info[n][1] for n in wanted), default=0)
            last = max((info[n][1] + info[n][2] - 1 for n in wanted), default=0)
            due_cells, lo, hi, pts = [], 0.0, 0.0, 0
            for e in ([] if due == "-" else due.split(",")):
                if e not in exercises:
                    problems.append(f"week {week} of {track}: no exercise {e}")
                    continue
                name, stars, points, _ = exercises[e]
                t = times.get(stars, (0, 0))
                lo, hi, pts = lo + t[0], hi + t[1], pts + points
                due_cells.append(f"{e} ({points})")
            due_text = "–" if not due_cells else \
                f"{', '.join(due_cells)}: {pts} points, {hours(lo)} to {hours(hi)}"
            where = f" (pp. {first}–{last}: {prose:.0f} of {pages})" if wanted else ""
            lines.append(f"| {week} | {spans(read_secs) or '–'}{where} | {spans(code_secs) or '–'} | "
                         f"{spans(skip_secs) or '–'} | {run.strip()} | {due_text} |")
        lines.append("")
    lines += [f"Prose pages are the read sections' pages times each one's share of prose lines in "
              f"its chapter's source (at most {MAX_PROSE} a week). A section whose lines are more "
              f"than {SKIM:.0%} code is named again under \"mostly code\": read its prose, skim its "
              f"listings. \"Skip\" is the plan's choice (the CUDA device, for a course without "
              f"GPUs). "
              f"Pages are those of the book as built; the expected times are the guide's per "
              f"star (above), not measured on students. Made by `make syllabus` from "
              f"instructors/syllabus.txt, the built book and exercises/MANIFEST.", ""]
    text = "\n".join(lines)
    if mode:
        guide = read("instructors/GUIDE.md")
        m = re.search(r"(<!-- syllabus: make syllabus writes it -->\n)(.*?)(<!-- end syllabus -->)",
                      guide, re.S)
        if not m:
            problems.append("instructors/GUIDE.md has no syllabus marks")
        elif mode == "--check":
            if m.group(2).strip() != text.strip():
                problems.append("instructors/GUIDE.md's syllabus is not the book's as built now "
                                "(pages move as the chapters change): run make syllabus")
        else:
            with open(os.path.join(ROOT, "instructors/GUIDE.md"), "w", encoding="utf-8") as f:
                f.write(guide[:m.start(2)] + text.strip() + "\n" + guide[m.end(2):])
            print("syllabus: instructors/GUIDE.md's syllabus written from the book as built")
    else:
        sys.stdout.write(text)
    for p in problems:
        print(f"syllabus: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
