#!/bin/sh
# SPDX-License-Identifier: MIT
# Every header, source file and script carries the licence line in its first
# two lines (after a #! line), and LICENSE is the MIT licence.
set -eu
grep -q '^MIT License$' LICENSE
missing=0
for f in $(git ls-files -co --exclude-standard '*.h' '*.c' '*.cu' '*.sh' '*.mk' '*.cmake' '*.cmake.in' \
           'Makefile' '.ci/run' 'CMakeLists.txt' '*/CMakeLists.txt'); do
    head -2 "$f" | grep -q 'SPDX-License-Identifier: MIT' || { echo "no SPDX line: $f"; missing=1; }
done
for f in $(git ls-files -co --exclude-standard 'xrt*.h'); do
    awk '/MIT licence, whose text every copy must carry:$/ { on = 1; getline; next }
         on && /^--------------------/ { exit }
         on { print }' "$f" | cmp -s - LICENSE || { echo "no LICENSE text at the end: $f"; missing=1; }
done
[ "$missing" -eq 0 ]
