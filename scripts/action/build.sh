#!/usr/bin/env bash
# build.sh OUT: builds copperhead from this checkout into OUT, the GitHub
# Action's "Build copperhead" step. With ACTION_REPOSITORY (owner/name, what
# GitHub names the action's repository), SARIF names it as where copperhead
# comes from (tool.driver.informationUri); without it the address is left
# out rather than made up.
set -euo pipefail
out=${1:?usage: build.sh OUT}
here="$(cd "$(dirname "$0")/../.." && pwd)"
uri=""
if [ -n "${ACTION_REPOSITORY:-}" ]; then
	uri="https://github.com/${ACTION_REPOSITORY}"
fi
cd "$here"
go build -ldflags "-X copperhead/internal/checkfmt.InformationURI=$uri" -o "$out" ./cmd/copperhead
