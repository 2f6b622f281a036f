#!/usr/bin/env bash
# Builds the first example of Docs/GettingStarted.md as an app would: a package of its own that
# depends on RollingSync exactly as the guide's "Add the package" block says (its dependency lines
# copied verbatim into a manifest), with the guide's "Bind a database and sync" code as its source.
# A guide whose wiring or code no longer builds against the package fails here.
# Usage: Scripts/guide-package.sh   (its build folder is .build-guide, kept between runs)
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

# The guide's `.package(path: "../RollingSync")` names a sibling folder called RollingSync.
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
block "Bind a database and sync" > "$work/NotesApp/Sources/NotesApp/Notebook.swift"

swift build --package-path "$work/NotesApp" --scratch-path "$root/.build-guide" 2>&1 | tee "$work/build.log"
if grep -E "/NotesApp/Sources/[^:]+:[0-9]+:[0-9]+: warning:" "$work/build.log"; then
    echo "error: the guide's example builds with warnings" >&2
    exit 1
fi
echo "the guide's package wiring and first example build"
