#!/usr/bin/env bash
# Checks the first example of Docs/GettingStarted.md as an app would use it, against the built
# package (`swift build` first):
# 1. the wiring: a package of its own whose manifest holds the guide's "Add the package" lines
#    verbatim resolves against this package (a product or package name the guide gets wrong fails
#    when SwiftPM loads the package graph);
# 2. the code: the guide's "Bind a database and sync" block imports only modules its wiring names
#    as products, and type-checks, in Swift 6 mode and with no warning, against the built modules,
#    importing them as an app does (public declarations only: no `@testable`, no package name).
# This replaces building the example package, which compiled the package and every dependency a
# second time (over two minutes of every CI run) to check the same two things.
# Usage: Scripts/guide-package.sh   (its resolution folder is .build-guide, kept between runs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The n-th ```swift block after the heading $1 in the guide.
block() {
    python3 - "$root/Docs/GettingStarted.md" "$1" <<'PY'
import sys, re
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("\n## " + sys.argv[2] + "\n", 1)[1]
print(re.search(r"```swift\n(.*?)```", section, re.S).group(1), end="")
PY
}

# 1. The guide's `.package(path: "../RollingSync")` names a sibling folder called RollingSync.
mkdir -p "$work/RollingSync" "$work/NotesApp/Sources/NotesApp"
tar -C "$root" --exclude=./.build --exclude='./.build-*' --exclude='./.build_*' --exclude=./.test-servers \
    --exclude=./.test-tools --exclude=./.git -cf - . | tar -C "$work/RollingSync" -xf -

wiring="$(block "Add the package")"
package_dependencies="${wiring%%// in your target:*}"
target_dependencies="${wiring#*// in your target:}"
cat > "$work/NotesApp/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "NotesApp",
    $package_dependencies
    targets: [
        .target(
            name: "NotesApp",
            $target_dependencies
        ),
    ]
)
SWIFT
touch "$work/NotesApp/Sources/NotesApp/Empty.swift"
if ! swift package --package-path "$work/NotesApp" --scratch-path "$root/.build-guide" show-dependencies \
    > "$work/resolve.log" 2>&1; then
    cat "$work/resolve.log" >&2
    echo "error: the guide's package wiring does not resolve against this package" >&2
    exit 1
fi

# 2. The guide's code, against the modules `swift build` built. The build has every module of the
#    package, so what the code may import is checked against the wiring first.
block "Bind a database and sync" > "$work/Notebook.swift"
for module in $(sed -n 's/^import \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$work/Notebook.swift"); do
    if ! grep -q "\.product(name: \"$module\"" <<< "$target_dependencies"; then
        echo "error: the guide's example imports $module, which its package wiring does not name as a product" >&2
        exit 1
    fi
done
built="$(swift build --package-path "$root" --show-bin-path)/Modules"
[ -e "$built/SyncCore.swiftmodule" ] || { echo "error: no built modules in $built: run swift build first" >&2; exit 1; }
flags=$("$root/Scripts/module-search-flags.sh")
mapfile -t includes <<< "$flags"
if ! swiftc -typecheck -swift-version 6 -parse-as-library -module-name NotesApp "${includes[@]}" "$work/Notebook.swift" \
    > "$work/check.log" 2>&1 || grep -qE "Notebook\.swift:[0-9]+:[0-9]+: warning:" "$work/check.log"; then
    cat "$work/check.log" >&2
    echo "error: the guide's example does not type-check cleanly against the built modules" >&2
    exit 1
fi
echo "the guide's package wiring resolves and its first example type-checks"
