#!/bin/bash
# Weave the chapters into LaTeX for the book, with an identifier index that helps:
# noweave -n -delay -index, with two filters of ours (book/cdefs.awk marks C
# definitions; book/uses.awk, after finduses, keeps only real uses).
# Usage: book/weave.sh chapters/*.nw > chapters.tex
set -eo pipefail
lib=$(sed -n 's/^LIB=//p' "$(command -v noweave)")
"$lib/markup" "$@" | awk -f book/cdefs.awk | "$lib/finduses" | awk -f book/uses.awk \
  | "$lib/noidx" -delay | "$lib/totex" -delay
