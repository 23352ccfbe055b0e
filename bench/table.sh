#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/table.sh [--update] FIGURES RESULTS: writes the table of current
# figures at the top of RESULTS (between its "current figures" markers) from
# FIGURES (the lines bench_target wrote: metric, value, target, verdict,
# command, tab-separated), one row each, in the order measured; a metric
# measured twice by one command keeps its last figure. Each row says when,
# at which commit and under which load its figure was measured.
#   (default)  the table is FIGURES' rows only (`make bench`: every figure)
#   --update   rows of the same metric and command are replaced in place,
#              new ones added at the end, the others kept as they are
#              (`make bench-compile`: its own rows)
set -eu
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
figures=$1
results=$2
[ -s "$figures" ] || { echo "bench/table.sh: no figures in $figures"; exit 1; }
grep -q '^<!-- current figures: begin -->$' "$results" && grep -q '^<!-- current figures: end -->$' "$results" ||
    { echo "bench/table.sh: $results has no current-figures markers"; exit 1; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
head=$(git rev-parse --short HEAD 2> /dev/null || echo "?")
git diff --quiet HEAD -- . ':!bench/RESULTS.md' 2> /dev/null || head="$head+" # changes not committed
when="$(date -u '+%Y-%m-%d %H:%M') UTC, \`$head\`, load $(cut -d' ' -f1 /proc/loadavg)"
table=$(mktemp)
trap 'rm -f "$table" "$table.rows"' EXIT
# the rows kept (--update): the table's own, as they are
if [ "$update" -eq 1 ]; then
    awk '/^<!-- current figures: begin -->$/ { on = 1; next } /^<!-- current figures: end -->$/ { on = 0 }
         on && /^\| / && !/^\|---/ && !/^\| benchmark \|/' "$results"
fi > "$table.rows"
{
    echo "<!-- current figures: begin -->"
    echo "The latest figure of each benchmark that has a target, on $(nproc) cores (${cpu:-unknown CPU})."
    echo "\`make bench\` rewrites the table, \`make bench-compile\` its own rows; \"measured\" gives"
    echo "the date, the commit (+: with changes not committed) and the load average (1 minute)."
    echo
    echo "| benchmark | figure | target | verdict | command | measured |"
    echo "|---|---|---|---|---|---|"
    awk -F'\t' -v when="$when" -v rows="$table.rows" '
        BEGIN { # the kept rows, keyed by metric and command
                while ((getline l < rows) > 0) {
                    n_f = split(l, f, / \| /); cmd = f[5]; gsub(/`/, "", cmd)
                    key = substr(f[1], 3) "\t" cmd
                    if (!(key in row)) order[n++] = key
                    row[key] = l
                } }
        NF >= 5 { key = $1 "\t" $5; if (!(key in row)) order[n++] = key
                  row[key] = "| " $1 " | " $2 " | " $3 " | " ($4 == "ok" ? "ok" : "**missed**") " | `" $5 "` | " when " |" }
        END { for (i = 0; i < n; i++) print row[order[i]] }' "$figures"
    echo "<!-- current figures: end -->"
} > "$table"
awk -v t="$table" '
    /^<!-- current figures: begin -->$/ { while ((getline l < t) > 0) print l; skip = 1; next }
    /^<!-- current figures: end -->$/ { skip = 0; next }
    !skip' "$results" > "$results.new"
mv "$results.new" "$results"
echo "bench/table.sh: $(grep -c '' "$figures") figures into $results"
