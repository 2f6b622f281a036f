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
includes=(-I "$build/Modules" -I "$build")
# The C modules SyncCore and the backends import, which the built Swift modules do not carry:
# this package's own, and GRDB's SQLite wrapper wherever the dependency was resolved.
grdb=$(swift package show-dependencies --format json | python3 -c '
import json, sys
def walk(node):
    for dependency in node.get("dependencies", []):
        if dependency["identity"] == "grdb.swift":
            print(dependency["path"])
            return True
        if walk(dependency):
            return True
    return False
walk(json.load(sys.stdin))')
for map in Sources/C*/module.modulemap Sources/C*/include/module.modulemap "$grdb/Sources/GRDBSQLite/module.modulemap"; do
    if [ -f "$map" ]; then includes+=(-Xcc "-fmodule-map-file=$(realpath "$map")"); fi
done
mkdir -p "$directory"
swift-symbolgraph-extract -module-name "$module" -target "$triple" \
    "${includes[@]}" -minimum-access-level public -skip-synthesized-members -output-dir "$directory" >/dev/null
