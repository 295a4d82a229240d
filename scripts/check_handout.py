#!/usr/bin/env python3
"""make handout-check: no answer to a problem reaches the students.

    scripts/check_handout.py HANDOUT_DIR INSTRUCTOR_PDF

The answers are read from the instructor's tree at HEAD (the commit the handout packs): the
body of every \\answer{...} of chapters/*.nw, found by matching braces (not with
scripts/strip_answers.awk, the program under test). Each answer becomes runs of six
consecutive words (lower-case words and numbers; LaTeX commands and the arguments of \\cell,
\\ref and \\cite dropped; no run across a formula with letters, whose order a PDF's text
scrambles, while a formula of numbers keeps them: so the source and a PDF's text read
alike). A run is distinctive when the chapters' text outside the answers does not hold it.
The check fails if any distinctive run appears in any file of the unpacked handout that
reads as text (its chapters, README, tests, code, data) or in the text of its book/book.pdf,
and if that PDF is missing.

It fails too when it could not have seen a leak: every answer must have a distinctive run,
and every answer must be found in the instructor's edition of the book (INSTRUCTOR_PDF), so
the words read from a PDF are known to match the words read from the source.
"""
import os
import re
import subprocess
import sys
import unicodedata

RUN = 6


def git_chapters():
    names = subprocess.run(["git", "ls-tree", "--name-only", "HEAD", "chapters/"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"HEAD:{n}"], capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(".nw")}


def split_answers(text):
    """The bodies of \\answer{...}, and the text with them removed."""
    answers, rest, i = [], [], 0
    for m in re.finditer(r"\\answer\{", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth and j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        answers.append(text[m.end():j - 1])
        rest.append(text[i:m.start()])
        i = j
    rest.append(text[i:])
    return answers, " ".join(rest)


def prose(nw):
    """A noweb file's documentation: code chunks and [[quoted code]] cut out."""
    nw = re.sub(r"(?ms)^<<[^\n]*>>=\n.*?^@(?= |$)", " | ", nw)
    nw = re.sub(r"(?s)\\begin\{verbatim\}.*?\\end\{verbatim\}", " | ", nw)
    return re.sub(r"\[\[.*?\]\]", " | ", nw, flags=re.S)


def latex_words(text):
    """The words of LaTeX: comments, formulas (within a paragraph), commands and the
    arguments of \\cell, \\ref and \\cite left out; a formula stops a run ("|")."""
    text = re.sub(r"(?m)(?<!\\)%.*$", " ", text)
    text = re.sub(r"\\(cell\w*|ref|cite|label|eqref)(\[[^]]*\])?(\{[^}]*\})*", " | ", text)
    text = "\n\n".join(re.sub(r"(?<!\\)\$([^$]*)\$", formula, p)
                       for p in re.split(r"\n\s*\n", text))
    return words(re.sub(r"\\[A-Za-z]+", " ", text))


def formula(m):
    """A formula of numbers reads the same in a PDF (its numbers); one with letters does not."""
    f = re.sub(r"\\[A-Za-z]+", " ", m[1])
    return " | " if re.search(r"[A-Za-z]", f) else " " + " ".join(re.findall(r"\d+", f)) + " "


def pdf_words(text):
    """The words of a PDF's text, its line-end hyphens joined."""
    return words(re.sub(r"(?<=[a-z])-\n(?=[a-z])", "", text))


def words(text):
    text = unicodedata.normalize("NFKC", text)
    return re.findall(r"[a-z]+|\d+|\|", text.lower())


def runs(ws):
    """Runs of RUN words that do not cross a formula (a "|")."""
    out = set()
    for part in " ".join(ws).split("|"):
        p = part.split()
        out |= {" ".join(p[i:i + RUN]) for i in range(len(p) - RUN + 1)}
    return out


def pdf_text(path):
    return subprocess.run(["pdftotext", "-enc", "UTF-8", path, "-"], capture_output=True,
                          text=True, check=True).stdout


def main(handout, instructor_pdf):
    answers, outside = [], set()
    for name, text in sorted(git_chapters().items()):
        found, rest = split_answers(prose(text))
        answers += [(name, k + 1, a) for k, a in enumerate(found)]
        outside |= runs(latex_words(rest))
    problems = []
    if not answers:
        problems.append("no \\answer{} in chapters/*.nw at HEAD: nothing to check")
    marks = []
    for name, k, body in answers:
        mine = runs(latex_words(body)) - outside
        if not mine:
            problems.append(f"{name}: answer {k} has no run of {RUN} words of its own, so its "
                            f"leak could not be seen")
        marks.append((name, k, mine))

    instructor = runs(pdf_words(pdf_text(instructor_pdf)))
    for name, k, mine in marks:
        if mine and not mine & instructor:
            problems.append(f"{name}: answer {k} is not found in {instructor_pdf}: the words of "
                            f"the PDF and of the source no longer match")

    if not os.path.isfile(os.path.join(handout, "book", "book.pdf")):
        problems.append(f"{handout} has no book/book.pdf: the student's book was not checked")
    targets = []
    for dirpath, _, files in os.walk(handout):
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            if f.endswith(".pdf"):
                targets.append((path, pdf_words(pdf_text(path))))
                continue
            try:
                text = open(path, encoding="utf-8").read()
                targets.append((path, latex_words(text) + ["|"] + words(text)))
            except (UnicodeDecodeError, OSError):
                pass                                    # archives, images, binaries
    leaks = 0
    for path, ws in targets:
        seen = runs(ws)
        for name, k, mine in marks:
            hit = mine & seen
            if hit:
                leaks += 1
                problems.append(f"{os.path.relpath(path, handout)} holds answer {k} of {name}: "
                                f"\"{sorted(hit)[0]}\"")
    for p in problems:
        print(f"handout-check: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"handout-check: none of the {len(answers)} answers' sentences is in the handout's "
          f"{len(targets)} text files or its book's PDF; each was found in the instructor's "
          f"edition ({sum(len(m) for _, _, m in marks)} runs of {RUN} words checked)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/check_handout.py HANDOUT_DIR INSTRUCTOR_PDF")
    sys.exit(main(sys.argv[1], sys.argv[2]))
