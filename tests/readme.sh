#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's first program, as a reader would paste it: the code block after
# "checked by tests/readme.sh: hello.c" is written to hello.c in an empty
# directory beside a copy of the headers, the commands of the block after
# "...: compile" run there as shown, and what they print must be the block
# after "...: output".
set -eu
repo=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xrt-readme.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# block NAME: the lines of the fenced block that follows the marker NAME.
block() {
    awk -v m="checked by tests/readme.sh: $1 -->" '
        index($0, m) { found = 1; next }
        found == 1 && /^```/ { found = 2; next }
        found == 2 && /^```/ { exit }
        found == 2 { print }' "$repo/README.md"
}
block hello.c > "$tmp/hello.c"
block compile > "$tmp/compile.sh"
block output > "$tmp/expected"
for f in hello.c compile.sh expected; do
    [ -s "$tmp/$f" ] || { echo "README.md: no block for $f after its marker"; exit 1; }
done
cp "$repo"/xrt*.h "$tmp/"
cd "$tmp"
echo "\$ $(cat compile.sh | tr '\n' ';')"
CC=${CC:-cc}
sed "s/^cc /$CC /" compile.sh > run.sh
sh -e run.sh > out 2> err || { cat out err; echo "the README's first program failed"; exit 1; }
cat out
[ ! -s err ] || { cat err; echo "it printed to stderr"; exit 1; }
diff expected out
