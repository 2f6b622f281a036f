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
includes=(-I "$build/Modules" -I "$build")
# The C modules SyncCore and the backends import, which the built Swift modules do not carry.
for map in Sources/C*/module.modulemap Sources/C*/include/module.modulemap \
    .build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap; do
    [ -f "$map" ] && includes+=(-Xcc "-fmodule-map-file=$(realpath "$map")")
done
mkdir -p "$directory"
swift-symbolgraph-extract -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" \
    "${includes[@]}" -minimum-access-level public -skip-synthesized-members -output-dir "$directory" >/dev/null
