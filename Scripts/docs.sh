#!/usr/bin/env bash
# Builds the DocC catalog of every module that has one (`Sources/<Module>/*.docc`) from the built
# modules, and fails on any DocC warning: a link to a symbol that is not public, a parameter left
# undocumented. Run `swift build` first.
# Usage: Scripts/docs.sh [OUTPUT_DIRECTORY]   (default .build/docs; one .doccarchive per module)
set -euo pipefail
cd "$(dirname "$0")/.."
output=${1:-.build/docs}
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
mkdir -p "$output"
status=0
for catalog in Sources/*/*.docc; do
    module=$(basename "$(dirname "$catalog")")
    Scripts/symbol-graph.sh "$module" "$graphs/$module"
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --warnings-as-errors --output-path "$output/$module.doccarchive" >"$graphs/$module.log" 2>&1; then
        echo "error: the documentation of $module has problems:" >&2
        cat "$graphs/$module.log" >&2
        status=1
    else
        echo "$module: $output/$module.doccarchive"
    fi
done
exit $status
