#!/bin/sh
# SPDX-License-Identifier: MIT
# fails.sh TEXT CMD...: CMD (a compile) must fail, and its messages must hold
# TEXT: a build mistake gets an error that says what to do.
text=$1
shift
if out=$("$@" 2>&1); then
    echo "compiled, but should have failed with: $text"
    exit 1
fi
echo "$out" | head -5
echo "$out" | grep -qF -- "$text" || { echo "the error does not say: $text"; exit 1; }
