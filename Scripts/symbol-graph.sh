#!/usr/bin/env bash
# Writes the symbol graph of a module of this package (its public declarations, as
# swift-symbolgraph-extract sees them) from the built module into a directory; run `swift build`
# first. Used by public-symbols.sh and docs.sh.
# Usage: Scripts/symbol-graph.sh MODULE DIRECTORY
set -euo pipefail
module=${1:?usage: Scripts/symbol-graph.sh MODULE DIRECTORY}
directory=${2:?usage: Scripts/symbol-graph.sh MODULE DIRECTORY}
cd "$(dirname "$0")/.."
build=$(swift build --show-bin-path)
# The triple is the name of the build directory's parent (.build/<triple>/debug).
triple=$(basename "$(dirname "$build")")
flags=$(Scripts/module-search-flags.sh)
mapfile -t includes <<< "$flags"
mkdir -p "$directory"
swift-symbolgraph-extract -module-name "$module" -target "$triple" \
    "${includes[@]}" -minimum-access-level public -skip-synthesized-members -output-dir "$directory" >/dev/null
