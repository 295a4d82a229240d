# notangle's output without its #line directives, and without the line of indentation
# alone that notangle -L writes before a directive when a chunk is used inside a line:
# what clang-format is given (scripts/relines.awk then puts the directives back).
/^#line [0-9]+ "/ { held = ""; next }
held != "" { print held; held = "" }
/^[ \t]+$/ { held = $0; next }
{ print }
END { if (held != "") print held }
