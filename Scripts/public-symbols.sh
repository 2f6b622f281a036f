#!/usr/bin/env bash
# Counts the public symbols of a module of this package (declarations an importing app can name),
# from its built module: run `swift build` first.
# Usage: Scripts/public-symbols.sh MODULE [--list]
set -euo pipefail
module=${1:?usage: Scripts/public-symbols.sh MODULE [--list]}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
Scripts/symbol-graph.sh "$module" "$out"
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
