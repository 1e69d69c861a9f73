#!/usr/bin/env bash
# route_share.sh: drafts each test circuit's schematic, then its board, with
# the built copperhead, and prints one Markdown table row per circuit:
# routed share (connections routed / connections), DRC state, board size and
# area utilisation. Speed is not measured here (see the Go benchmarks).
#
#   bench/route_share.sh [copperhead-binary] [intent.json ...]
#
# Defaults: the binary built from this checkout into a temporary folder, and
# every intent in internal/draft/testdata/circuits. The drafted repositories
# are kept in $OUT (default: a temporary folder), for scripts/render_boards.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
shift || true
if [[ -z "$bin" ]]; then
  bin=$(mktemp -d)/copperhead
  (cd "$here" && go build -o "$bin" ./cmd/copperhead)
fi
intents=("$@")
if [[ ${#intents[@]} -eq 0 ]]; then
  intents=("$here"/internal/draft/testdata/circuits/*.json)
fi
out=${OUT:-$(mktemp -d)}
echo "| circuit | parts | connections routed | routed share | vias | DRC violations | unconnected | board (mm) | utilisation |"
echo "|---|---|---|---|---|---|---|---|---|"
status=0
for intent in "${intents[@]}"; do
  name=$(basename "$intent" .json)
  repo="$out/$name"
  rm -rf "$repo" && mkdir -p "$repo"
  git -C "$repo" init -q
  if ! (cd "$repo" && "$bin" draft schematic --intent "$intent" >"$repo/schematic.log" 2>&1); then
    echo "| $name | schematic failed: $(tail -1 "$repo/schematic.log") |"
    status=1
    continue
  fi
  rc=0
  (cd "$repo" && "$bin" --json draft layout >"$repo/layout.json" 2>"$repo/layout.err") || rc=$?
  if ! jq -e .board "$repo/layout.json" >/dev/null 2>&1; then
    echo "| $name | layout failed (exit $rc): $(tail -1 "$repo/layout.err") |"
    status=1
    continue
  fi
  jq -r --arg n "$name" '"| \($n) | \(.parts|length) | \(.routed_connections) / \(.connections) | \(.routed_share*100|floor)% | \(.vias) | \(.drc.violations) | \(.drc.unconnected) | \(.outline.width_mm) x \(.outline.height_mm) | \(.utilisation*100|floor)% |"' "$repo/layout.json"
done
echo
echo "drafted repositories: $out" >&2
exit $status
