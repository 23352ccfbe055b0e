#!/bin/sh
# SPDX-License-Identifier: MIT
# The maps of the long headers are true: the list of ">> " markers in a
# header's top comment (after "How this file is laid out") and, for xrt.h,
# the one in DESIGN.md (after "<!-- xrt.h's implementation, checked by
# tests/layout.sh -->") name the header's markers, in their order.
# A marker is a line "/* >> NAME" where NAME ends at ". ", " (", " */" or
# the line's end; a list line is ">> NAME" then two spaces or more before a
# note. In xrt.h the list names every marker after ">> implementation" and,
# before it, the top-level ones it shows (">> api" stands for ">> api: ...").
# Each difference is printed; the exit status is 0 when there is none.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-layout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
bad=0

# markers FILE: the names of FILE's markers, one a line.
markers() {
    sed -n 's|^/\* >> ||p' "$1" | sed 's/\( (\|\. \| \*\/\).*//; s/\.$//'
}
# listed FILE: the names its top comment's layout list gives, one a line.
listed() {
    awk '/How this file is laid out/ { on = 1; next }
         on && /\*\// { exit }
         on && /^ *>> / { sub(/^ *>> /, ""); sub(/  .*/, ""); n = split($0, part, /, >> /)
                          for (i = 1; i <= n; i++) print part[i] }' "$1"
}
# compare WHAT EXPECTED ACTUAL: the lines of two files, in order.
compare() {
    if ! cmp -s "$2" "$3"; then
        echo "FAILED: $1 (- the list, + the markers):"
        diff "$2" "$3" | sed -n 's/^</  -/p; s/^>/  +/p'
        bad=1
    fi
}

for h in xrt.h xrt_cache.h xrt_check.h; do
    markers "$h" > "$tmp/markers"
    listed "$h" > "$tmp/listed"
    [ -s "$tmp/listed" ] || { echo "FAILED: $h: no layout list in its top comment"; bad=1; continue; }
    if grep -qx implementation "$tmp/listed"; then
        # the public part: each name listed is a marker (or a family of them), in order
        sed '/^implementation$/q' "$tmp/listed" > "$tmp/public"
        sed '/^implementation$/q' "$tmp/markers" > "$tmp/public_markers"
        awk 'NR == FNR { have[++m] = $0; next }
             { for (j = at + 1; j <= m && have[j] != $0 && index(have[j], $0 ":") != 1; j++) {}
               if (j <= m) at = j; else print }' "$tmp/public_markers" "$tmp/public" > "$tmp/lost"
        if [ -s "$tmp/lost" ]; then
            echo "FAILED: $h: the layout list names markers that are not there (or not in this order):"
            sed 's/^/  /' "$tmp/lost"
            bad=1
        fi
        sed '1,/^implementation$/d' "$tmp/listed" > "$tmp/listed_impl"
        sed '1,/^implementation$/d' "$tmp/markers" > "$tmp/markers_impl"
        compare "$h: its layout list of the implementation" "$tmp/listed_impl" "$tmp/markers_impl"
    else
        compare "$h: its layout list" "$tmp/listed" "$tmp/markers"
    fi
done

# DESIGN.md's list of xrt.h's implementation: every `>> NAME` of its block
# (up to a blank line).
awk '/^ *<!-- xrt.h.s implementation, checked by tests\/layout.sh -->$/ { on = 1; next }
     on && /^$/ { exit }
     on { sub(/^ */, ""); text = text " " $0 } # a name may be wrapped: the block as one line
     END { while (match(text, /`>> [^`]*`/)) { print substr(text, RSTART + 4, RLENGTH - 5); text = substr(text, RSTART + RLENGTH) } }' \
    DESIGN.md > "$tmp/design"
if [ -s "$tmp/design" ]; then
    markers xrt.h | sed '1,/^implementation$/d' > "$tmp/markers_impl"
    compare "DESIGN.md: its list of xrt.h's implementation" "$tmp/design" "$tmp/markers_impl"
else
    echo "FAILED: DESIGN.md: no list of xrt.h's implementation (after \"<!-- xrt.h's implementation, checked by tests/layout.sh -->\")"
    bad=1
fi
[ "$bad" -eq 0 ] && echo "layout: the lists of xrt.h, xrt_cache.h, xrt_check.h and DESIGN.md name their markers"
exit "$bad"
