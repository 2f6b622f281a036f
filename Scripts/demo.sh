#!/usr/bin/env bash
# The README's main-job command: installs the Debian packages RollingSync builds with, builds the
# `rollsync` tool and runs its demo (three clients of a notes app syncing through a folder in a
# scratch directory, removed at the end). Arguments go to `rollsync demo` (e.g. --keep, --json).
#
# Needs the Swift 6 toolchain on PATH (swift.org's Linux tarball; /opt/swift/usr/bin on the CI image).
set -euo pipefail
cd "$(dirname "$0")/.."
# The whole package: ROLLSYNC_TEST_TARGETS, which leaves test targets out, is for Scripts/sanitizers.sh.
unset ROLLSYNC_TEST_TARGETS

Scripts/install-dependencies.sh
swift build --product rollsync
exec "$(swift build --show-bin-path)/rollsync" demo "$@"
