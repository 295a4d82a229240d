#!/usr/bin/env python3
"""make handout-check's second half: no function of the handout answers an exercise.

    scripts/substitutes.py HANDOUT_DIR OUT_DIR

Every function whose prototype fits an exercise's (the same return type and parameter types,
`const` aside, so that a call compiles with casts at most) is a candidate answer a student
could take: a function of the handout's library, of its programs or of its public tests, a
static one as well as an exported one, and every member of the Comm or the Device the
exercise is handed. For each, this writes a submission to OUT_DIR/chN/NAME--HOW.c that
answers the exercise with it, as a student would:
  - a library function (exported by build/libdps.a): called;
  - any other function (static, or in a program or a public test): its whole file pasted,
    with the file's exported functions renamed out of the way and its Criterion tests made
    plain functions, then called;
  - a member of the handed Comm or Device: called through the handle.
and lists them in OUT_DIR/list ("chN NAME FILE", one a line), for `tests/grade.sh
substitute OUT_DIR` to grade with the check of calls off (GRADE_CALLS=all: a paste is a
call the check cannot see). The prototypes are the compiler's (gcc -aux-info), read from
the handout's files with their #line directives removed, so a pasted file's lines are its
own. A file that does not compile alone without its own build's flags (the MPI backend, which
mpicc builds) is named on stderr and skipped: its functions take an MPI communicator, which no
test hands an exercise. The jail's proxies (tests/jail) are skipped: each forwards a call to
the judge, which serves only the exercise under test.
"""
import os
import re
import subprocess
import sys

KEYWORDS = {"int", "char", "long", "short", "float", "double", "void", "unsigned", "signed",
            "_Bool", "bool", "const", "struct", "volatile", "restrict"}


def norm(t):
    """A type as the comparison sees it: `const` and `restrict` dropped, one space."""
    t = re.sub(r"\b(const|restrict|__restrict|volatile)\b", " ", t)
    t = t.replace("_Bool", "bool")
    t = re.sub(r"\s*\*\s*", " * ", t)
    return " ".join(t.split())


def split_params(s):
    """The parameters of a prototype's list, split at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


AUX = re.compile(r"^/\* (?P<file>[^:]+):(?P<line>\d+):(?P<kind>[NO][CF]) \*/ "
                 r"(?P<store>extern|static) (?P<ret>.*?)\b(?P<name>[A-Za-z_]\w*) \((?P<params>.*)\);"
                 r"(?: /\* \((?P<names>[^)]*)\)(?P<decls>.*)\*/)?$")


def functions(path, includes):
    """Every function declared or defined in file `path` (not in what it includes):
    (name, return type, [parameter types], static?, defined?)."""
    aux = path + ".aux"
    cmd = ["gcc", "-std=c11", "-D_GNU_SOURCE", "-DHAVE_BLAS", "-fsyntax-only", "-w",
           "-aux-info", aux] + includes + ["-x", "c", path]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["?"])[0]
        print(f"substitutes: {path} does not compile alone here, skipped ({first})",
              file=sys.stderr)
        return []
    out = []
    for line in open(aux):
        m = AUX.match(line.strip())
        if not m or os.path.realpath(m["file"]) != os.path.realpath(path):
            continue
        params = split_params(m["params"])
        if m["kind"][1] == "F" and m["names"] is not None:
            # A definition lists its parameters with their names: drop each name.
            names = [n.strip() for n in m["names"].split(",") if n.strip()]
            if len(names) != len(params):
                continue
            params = [re.sub(r"\b%s\b" % re.escape(n), " ", p, count=1)
                      for p, n in zip(params, names)]
        out.append((m["name"], norm(m["ret"]), [norm(p) for p in params],
                    m["store"] == "static", m["kind"][1] == "F", int(m["line"])))
    os.unlink(aux)
    return out


MEMBER = re.compile(r"(?P<ret>[A-Za-z_][\w\s\*]*?)\(\s*\*\s*(?P<name>\w+)\s*\)\s*\((?P<params>[^;]*)\)\s*;")


def members(header, struct):
    """The function-pointer members of `typedef struct X {...} struct;` in header."""
    text = open(header).read()
    m = re.search(r"typedef\s+struct\s+\w*\s*\{(.*?)\}\s*%s\s*;" % struct, text, re.S)
    if not m:
        return []
    body = re.sub(r"/\*.*?\*/", " ", m[1], flags=re.S)
    body = re.sub(r"//[^\n]*", " ", body)
    out = []
    for f in MEMBER.finditer(body):
        params = []
        for p in split_params(" ".join(f["params"].split())):
            q = re.match(r"^(.*?[\s\*])([A-Za-z_]\w*)$", p)
            if q and q[2] not in KEYWORDS and q[1].strip() not in ("", "struct", "unsigned",
                                                                   "signed", "const"):
                p = q[1]
            params.append(norm(p))
        out.append((f["name"], norm(f["ret"]), params))
    return out


def main(handout, out_dir):
    handout = os.path.realpath(handout)
    out_dir = os.path.abspath(out_dir)       # a pasted file is #included by this path
    unlined = os.path.join(out_dir, "unlined")
    os.makedirs(unlined, exist_ok=True)
    sources = []
    for top in ("tangled", "tests", "exercises"):
        for dirpath, dirs, files in os.walk(os.path.join(handout, top)):
            dirs[:] = sorted(d for d in dirs if d != "hidden")   # never in a handout
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, f), handout)
                    dst = os.path.join(unlined, rel)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    with open(os.path.join(handout, rel)) as src, open(dst, "w") as d:
                        d.writelines(l for l in src if not l.startswith("#line "))
                    sources.append(rel)
    dirs = sorted({os.path.dirname(s) for s in sources})
    includes = ["-I" + os.path.join(unlined, d) for d in dirs]
    manifest = [l.split() for l in open(os.path.join(handout, "exercises", "MANIFEST"))
                if l.strip() and not l.startswith("#")]

    library = set()                          # what libdps.a exports
    r = subprocess.run(["nm", "--defined-only", "-g", "build/libdps.a"], capture_output=True,
                       text=True)
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in ("T", "W"):
            library.add(p[2])

    found = {}                               # every function of the handout, by file
    for rel in sources:
        if rel.startswith("exercises/"):
            continue                         # the skeletons: the exercises themselves
        if rel.startswith("tests/jail/"):
            # The autograder's proxies: each forwards a call to the judge over the jail's
            # socket, which exists only in the jail, where the judge serves the calls of the
            # exercise under test alone (tests/jail/judge.c).
            continue
        found[rel] = functions(os.path.join(unlined, rel), includes)

    declared = {}                            # a library function: the header declaring it
    for rel, fns in found.items():
        if rel.startswith("tangled/") and rel.endswith(".h"):
            for f in fns:
                if not f[3]:
                    declared.setdefault(f[0], rel)
    listing, n = [], 0
    for entry in manifest:
        ch, name = entry[0], entry[1]
        skel = functions(os.path.join(unlined, "exercises", ch, name + ".c"), includes)
        mine = [f for f in skel if f[4] and not f[3]]
        if not mine:
            print(f"substitutes: {ch}/{name}: its skeleton defines no function", file=sys.stderr)
            return 1
        fn, ret, params = mine[0][0], mine[0][1], mine[0][2]
        args = [f"a{i}" for i in range(len(params))]
        head_params = ", ".join(f"{p.replace(' * ', ' *').strip()} {a}"
                                for p, a in zip(raw_params(os.path.join(unlined, "exercises", ch,
                                                                        ch + ".h"), fn), args))
        seen = set()

        def emit(how, body_pre, call):
            nonlocal n
            path = os.path.join(out_dir, ch, f"{name}--{how}.c")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            ret_kw = "" if ret == "void" else "return "
            with open(path, "w") as f:
                f.write(f"/* {ch}/{name} answered by {how} (scripts/substitutes.py). */\n")
                f.write(body_pre)
                f.write(f'#include "{ch}.h"\n\n')
                f.write(f"{raw_ret(os.path.join(unlined, 'exercises', ch, ch + '.h'), fn)} "
                        f"{fn}({head_params})\n{{\n    {ret_kw}{call};\n}}\n")
            listing.append(f"{ch} {name} {path}")
            n += 1

        casts = ", ".join(f"({p.replace('bool', '_Bool')}){a}" for p, a in zip(params, args))
        for rel, fns in found.items():
            for (cand, cret, cparams, static, defined, line) in fns:
                if cand == fn or cret != ret or cparams != params or cand in seen:
                    continue
                if cand in library and not static and cand in declared:
                    seen.add(cand)
                    emit(cand, f'#include "{os.path.basename(declared[cand])}"\n',
                         f"{cand}({casts})")
                    continue
                if not defined:
                    continue
                seen.add(cand)
                emit(f"{cand}-pasted", paste(os.path.join(unlined, rel), fns, cand),
                     f"{cand}({casts})")
        for (header, struct) in (("tangled/comm/comm.h", "Comm"),
                                 ("tangled/device/device.h", "Device")):
            handles = [i for i, p in enumerate(params) if p == f"{struct} *"]
            if not handles:
                continue
            for (mem, mret, mparams) in members(os.path.join(unlined, header), struct):
                if mret == ret and mparams == params:
                    h = args[handles[0]]
                    emit(f"{struct.lower()}-{mem}", "", f"{h}->{mem}({casts})")
    with open(os.path.join(out_dir, "list"), "w") as f:
        f.write("\n".join(listing) + ("\n" if listing else ""))
    print(f"substitutes: {n} functions of the handout fit an exercise's prototype "
          f"({len(manifest)} exercises, {sum(len(v) for v in found.values())} functions in "
          f"{len(found)} files)")
    return 0


def paste(path, fns, keep):
    """A file pasted whole: its exported functions renamed, its Criterion tests made plain
    static functions, so that it compiles beside the test that grades it."""
    lines = ["/* pasted whole: */\n", "#include <criterion/criterion.h>\n",
             "#undef Test\n",
             "#define Test(suite, name, ...) static void suite##_##name##_pasted(void)\n",
             "#undef TestSuite\n",
             "#define TestSuite(...) static int pasted_suite_##__LINE__ __attribute__((unused))\n"]
    for (name, _, _, static, defined, _) in fns:
        if defined and not static:
            lines.append(f"#define {name} pasted_{name}\n")
    lines.append(f'#include "{path}"\n')
    for (name, _, _, static, defined, _) in fns:
        if defined and not static:
            lines.append(f"#undef {name}\n")
    if not any(f[0] == keep and not f[3] for f in fns):
        return "".join(lines)
    # The candidate itself was renamed: call it by its new name.
    lines.append(f"#define {keep} pasted_{keep}\n")
    return "".join(lines)


def raw_decl(header, fn):
    text = open(header).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    m = re.search(r"([A-Za-z_][\w\s\*]*?)\b%s\s*\(([^;]*)\)\s*;" % fn, text)
    if not m:
        raise SystemExit(f"substitutes: {header} declares no {fn}")
    return m[1].strip(), m[2]


def raw_ret(header, fn):
    return raw_decl(header, fn)[0]


def raw_params(header, fn):
    """The exercise's parameters as its header writes them, names dropped."""
    out = []
    for p in split_params(" ".join(raw_decl(header, fn)[1].split())):
        q = re.match(r"^(.*?[\s\*])([A-Za-z_]\w*)$", p)
        out.append(q[1].strip() if q and q[2] not in KEYWORDS else p)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/substitutes.py HANDOUT_DIR OUT_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
