#!/usr/bin/env bash
# Prints the options of every build the test scripts make (Scripts/test.sh, sanitizers.sh, fuzz.sh),
# one per line, for `mapfile -t options < <(Scripts/test-build-options.sh)`: debug information reduced
# to line tables, enough for the sanitizers' reports and Swift's backtraces to name files and lines,
# at a fraction of the compile and link work. (The index store stays: on Linux, SwiftPM finds the
# tests through it.) A later plain `swift build` in the same folder builds everything again.
set -euo pipefail
printf '%s\n' -Xswiftc -gline-tables-only -Xcc -gline-tables-only
