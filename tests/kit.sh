#!/bin/sh
# SPDX-License-Identifier: MIT
# The core's kit is declared: every private name (xrt__*, XRT__*) that xrt.h
# defines and another header of the library uses is declared in the kit,
# the block under "/* >> impl: the kit" at the start of xrt.h's
# implementation, and every name the kit declares is used by another header.
#   A name is defined by a header when, outside comments and strings, it is
#   #defined there, is an enumerator there, or is the name a declaration
#   starting in column 0 declares (a function's, or else the last name
#   before "=", ";", "[" or "{"); a name pasted as PREFIX##x defines the
#   family PREFIX<x>. xrt.h's names are the ones it mentions that no other
#   header defines.
#   The kit declares the names its declarations declare and the names that
#   open its comment lines ("/* NAME: contract */", "/* NAME, NAME: ... */";
#   NAME<x> for a family).
# Each difference is printed with the name and the header; the exit status
# is 0 when there is none.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-kit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
others="xrt_backends.h xrt_cache.h xrt_check.h xrt_cpu.h xrt_cuda.h xrt_gpu.h xrt_hip.h xrt_rdma.h"
bad=0

# strip FILE: FILE without its comments and the insides of its strings and
# character constants; lines stay where they were.
strip() {
    awk '{ out = ""; n = length($0); i = 1
           while (i <= n) {
               c = substr($0, i, 1); two = substr($0, i, 2)
               if (incomment) { if (two == "*/") { incomment = 0; i += 2; out = out " " } else i++; continue }
               if (two == "/*") { incomment = 1; i += 2; continue }
               if (two == "//") break
               if (c == "\"" || c == "'\''") {
                   q = c; out = out q; i++
                   while (i <= n && substr($0, i, 1) != q) i += substr($0, i, 1) == "\\" ? 2 : 1
                   out = out q; i++; continue
               }
               out = out c; i++
           }
           print out }' "$1"
}

# defined: the names the stripped text on stdin defines, one a line
# (a family as PREFIX<x>).
defined() {
    awk 'function name_at_end(s) { return match(s, /(xrt__|XRT__)[A-Za-z0-9_]*[^A-Za-z0-9_]*$/) ? substr(s, RSTART, RLENGTH) : "" }
         { line = $0 }
         # families: xrt__unsupported_##op
         { s = line; while (match(s, /(xrt__|XRT__)[A-Za-z0-9_]*[ ]*##/)) { f = substr(s, RSTART, RLENGTH); sub(/[ ]*##$/, "", f); print f "<x>"; s = substr(s, RSTART + RLENGTH) } }
         line ~ /^[ \t]*#[ \t]*define[ \t]/ { s = line; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", s); sub(/[^A-Za-z0-9_].*/, "", s); if (s ~ /^(xrt__|XRT__)/) print s; prev = line; next }
         # enumerators: the first name of each item of an enum body
         inenum || line ~ /(^|[^A-Za-z0-9_])enum([^A-Za-z0-9_]|$)/ {
             s = line
             if (!inenum) { if (!sub(/^[^{]*\{/, "", s)) { prev = line; next } inenum = 1; item = 1 }
             while (s != "") {
                 if (item && match(s, /^[ \t]*(xrt__|XRT__)[A-Za-z0-9_]*/)) { t = substr(s, RSTART, RLENGTH); gsub(/[ \t]/, "", t); print t }
                 if (match(s, /[,}]/)) { item = substr(s, RSTART, 1) == ","; if (!item) { inenum = 0; break } s = substr(s, RSTART + 1) }
                 else { item = 0; s = "" }
             }
             prev = line; next
         }
         # "} NAME;" closes a typedef or a variable of a struct type
         line ~ /^}[ \t]*(xrt__|XRT__)[A-Za-z0-9_]*/ { s = line; sub(/^}[ \t]*/, "", s); sub(/[^A-Za-z0-9_].*/, "", s); print s; prev = line; next }
         line ~ /^[A-Za-z_]/ && line !~ /^extern "/ {
             # a function whose name opens the line after its return type
             if (match(line, /^xrt__[A-Za-z0-9_]*[ ]*\(/)) {
                 if (prev ~ /^[A-Za-z_]/ && prev !~ /[;{})\\][ \t]*$/) { s = substr(line, 1, RLENGTH); sub(/[ ]*\($/, "", s); print s }
                 prev = line; next
             }
             if (line ~ /^[A-Z_0-9]+[ ]*\(/) { prev = line; next } # a macro call
             # a function (or a pointer to one) before any initialiser or body
             head = line; sub(/[={].*/, "", head)
             if (match(head, /[^A-Za-z0-9_]xrt__[A-Za-z0-9_]*[ ]*\(|\(\*xrt__[A-Za-z0-9_]*\)/)) {
                 s = substr(head, RSTART + 1, RLENGTH - 1); sub(/^\*/, "", s); sub(/[ ]*[()]$/, "", s); print s; prev = line; next
             }
             # variables or a type: the last name of each declarator before its
             # initialiser, bound or attributes (a "(" left there is another
             # function declaration)
             s = line; while (gsub(/\{[^{}]*\}/, "", s)) {}
             sub(/[;{].*/, "", s); sub(/(__attribute__|__asm__).*/, "", s)
             n = split(s, decl, ",")
             for (i = 1; i <= n; i++) {
                 d = decl[i]; sub(/[=[].*/, "", d)
                 if (d ~ /\(/) break
                 d = name_at_end(d); sub(/[^A-Za-z0-9_].*/, "", d); if (d != "") print d
             }
         }
         { if (line !~ /^[ \t]*$/) prev = line }' | sort -u
}

# names: the xrt__ and XRT__ names the stripped text on stdin mentions.
names() { grep -o '\(xrt__\|XRT__\)[A-Za-z0-9_]*' | sort -u; }

# contracts: the names that open the kit's contract lines on stdin,
# "/* NAME, NAME: contract */" (a family NAME<op> as NAME<x>).
contracts() {
    awk 'match($0, /^\/\* (xrt__|XRT__)[A-Za-z0-9_<>]*(, (xrt__|XRT__)[A-Za-z0-9_<>]*)*: /) {
             n = split(substr($0, 4, RLENGTH - 5), w, ", ")
             for (i = 1; i <= n; i++) { sub(/<[a-z]*>$/, "<x>", w[i]); print w[i] }
         }' | sort -u
}

# The kit: its block, its declarations and its comment lines.
awk '/^\/\* >> impl: the kit/ { on = 1; print; next } on && /^\/\* >> / { exit } on' xrt.h > "$tmp/kit"
if [ ! -s "$tmp/kit" ]; then
    echo "FAILED: xrt.h: no kit (a block under \"/* >> impl: the kit\")"
    exit 1
fi
strip "$tmp/kit" | defined > "$tmp/prototyped"
contracts < "$tmp/kit" > "$tmp/contracts"
sort -u "$tmp/prototyped" "$tmp/contracts" > "$tmp/declared"
for n in $(comm -23 "$tmp/prototyped" "$tmp/contracts"); do
    echo "FAILED: the kit declares $n without its contract line (\"/* $n: ... */\")"
    bad=1
done

# The core's names: mentioned by xrt.h, defined by no other header.
for h in $others; do strip "$h" > "$tmp/$h.stripped"; defined < "$tmp/$h.stripped"; done | sort -u > "$tmp/elsewhere"
strip xrt.h > "$tmp/xrt.h.stripped"
{
    names < "$tmp/xrt.h.stripped"
    defined < "$tmp/xrt.h.stripped" | grep '<x>$'
} | sort -u | comm -23 - "$tmp/elsewhere" > "$tmp/core"
sed -n 's/<x>$//p' "$tmp/core" > "$tmp/families"

# The names each other header uses of the core's (a family's member as the family).
: > "$tmp/crossing"
for h in $others; do
    names < "$tmp/$h.stripped" | awk -v h="$h" 'FILENAME == ARGV[1] { fam[$0] = 1; next }
        { n = $0; for (f in fam) if (index(n, f) == 1 && length(n) > length(f)) n = f "<x>"; print n, h }' \
        "$tmp/families" - >> "$tmp/crossing"
done
sort -u "$tmp/crossing" | awk 'FILENAME == ARGV[1] { core[$0] = 1; next } core[$1]' "$tmp/core" - > "$tmp/used"

awk 'FILENAME == ARGV[1] { kit[$0] = 1; next }
     !kit[$1] { print "FAILED: " $2 " uses " $1 ", a name of xrt.h that the kit does not declare (\"/* >> impl: the kit\" in xrt.h)"; bad = 1 }
     END { exit bad }' "$tmp/declared" "$tmp/used" || bad=1
awk 'FILENAME == ARGV[1] { used[$1] = 1; next }
     !used[$0] { print "FAILED: the kit declares " $0 ", which no header but xrt.h uses (stale)"; bad = 1 }
     END { exit bad }' "$tmp/used" "$tmp/declared" || bad=1
[ "$bad" -eq 0 ] && echo "kit: the $(wc -l < "$tmp/declared") names of xrt.h that other headers use are the ones its kit declares"
exit "$bad"
