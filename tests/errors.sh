#!/bin/sh
# SPDX-License-Identifier: MIT
# REFERENCE.md against the code: its error table ("Error codes in full") has
# one row for each status of xrt.h's status list and no row for a status that
# is not there, and the functions of xrt.h that return something other than an
# xrt_status are each named in its paragraph that lists them ("except these").
# Usage: sh tests/errors.sh [FILE.md]
set -eu
readme=${1:-REFERENCE.md}
bad=0
statuses=$(sed -n 's/^ *X(\(XRT_SUCCESS\|XRT_ERROR_[A-Z_]*\),.*/\1/p' xrt.h)
[ -n "$statuses" ] || { echo "xrt.h: no status list"; exit 1; }
for s in $statuses; do
    grep -q "^| \`$s\` |" "$readme" || { echo "$readme: the error table has no row for $s"; bad=1; }
done
for s in $(sed -n 's/^| `\(XRT_SUCCESS\|XRT_ERROR_[A-Z_]*\)` |.*/\1/p' "$readme"); do
    echo "$statuses" | grep -qx "$s" || { echo "$readme: the error table names $s, which xrt.h does not have"; bad=1; }
done
# The declarations of the public functions: XRT_API or static inline, a
# return type, then the name.
others=$(sed -n 's/^\(XRT_API\|static inline\) \(.*[ *]\)\(xrt_[a-z0-9_]*\)(.*/\2|\3/p' xrt.h |
         grep -v '^xrt_status |' | cut -d'|' -f2 | grep -v '^xrt__' | sort -u)
para=$(awk '/^Every function returns an `xrt_status`, except these/ { on = 1 } on && /^$/ { exit } on { print }' "$readme")
[ -n "$para" ] || { echo "$readme: no paragraph \"Every function returns an \`xrt_status\`, except these\""; exit 1; }
for f in $others; do
    echo "$para" | grep -q "\`$f\`" || { echo "$readme: $f does not return an xrt_status, and its "except these" paragraph does not say so"; bad=1; }
done
[ "$bad" -eq 0 ] && echo "error table: $(echo "$statuses" | wc -l) statuses; $(echo "$others" | wc -l) functions that return no status"
exit "$bad"
