#!/usr/bin/env bash
# Prints, one per line, the compiler flags that let a Swift tool outside SwiftPM import this
# package's built modules from the debug build (`swift build` first): the build's module folders,
# and the module maps of the C modules the built Swift modules import but do not carry (this
# package's own, and GRDB's SQLite wrapper wherever the dependency was resolved). Used by
# symbol-graph.sh and guide-package.sh.
# Usage: Scripts/module-search-flags.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(swift build --show-bin-path)
printf '%s\n' -I "$build/Modules" -I "$build"
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
    if [ -f "$map" ]; then printf '%s\n' -Xcc "-fmodule-map-file=$(realpath "$map")"; fi
done
