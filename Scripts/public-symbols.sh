#!/usr/bin/env bash
# Counts the public symbols of a module of this package, from its built module (run `swift build`
# first): declarations an importing app can name, as swift-symbolgraph-extract sees them.
# Usage: Scripts/public-symbols.sh MODULE [--list]
set -euo pipefail
module=${1:?usage: Scripts/public-symbols.sh MODULE [--list]}
cd "$(dirname "$0")/.."
build=$(swift build --show-bin-path)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
includes=(-I "$build/Modules" -I "$build")
for map in Sources/C*/module.modulemap Sources/C*/include/module.modulemap \
    .build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap; do
    [ -f "$map" ] && includes+=(-Xcc "-fmodule-map-file=$(realpath "$map")")
done
swift-symbolgraph-extract -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" \
    "${includes[@]}" -minimum-access-level public -skip-synthesized-members -output-dir "$out" >/dev/null
python3 - "$out/$module.symbols.json" "${2:-}" <<'PY'
import json, sys, collections
graph = json.load(open(sys.argv[1]))
symbols = graph["symbols"]
kinds = collections.Counter(s["kind"]["displayName"] for s in symbols)
types = sum(kinds[k] for k in ("Structure", "Class", "Enumeration", "Protocol", "Type Alias", "Actor"))
print(f"{len(symbols)} public symbols, {types} public types")
print(", ".join(f"{n} {k}" for k, n in kinds.most_common()))
if sys.argv[2] == "--list":
    for s in sorted(symbols, key=lambda s: ".".join(s["pathComponents"])):
        print(f'{s["kind"]["displayName"]:20} {".".join(s["pathComponents"])}')
PY
