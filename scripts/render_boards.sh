#!/usr/bin/env bash
# render_boards.sh: PNG renders of each test circuit's drafted schematic and
# board, so a person can look at what the engines drew.
#
#   scripts/render_boards.sh [OUT]
#
# OUT (default: a new temporary folder) holds one drafted repository per
# circuit, as bench/route_share.sh leaves them; circuits not drafted there
# yet are drafted first (bench/route_share.sh with OUT). For each it writes
# OUT/renders/<circuit>-board.png (B.Cu under F.Cu, silkscreen, outline, on
# white) and OUT/renders/<circuit>-schematic.png. Needs kicad-cli and
# rsvg-convert (Debian librsvg2-bin, installed by scripts/setup.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
for tool in kicad-cli rsvg-convert; do
  command -v "$tool" >/dev/null || { echo "render_boards.sh: $tool is not installed" >&2; exit 2; }
done
need=0
for intent in "$here"/internal/draft/testdata/circuits/*.json; do
  name=$(basename "$intent" .json)
  ls "$out/$name"/hardware/*.kicad_pcb >/dev/null 2>&1 || need=1
done
if [[ $need == 1 ]]; then
  OUT="$out" "$here/bench/route_share.sh" >"$out/route_share.md"
fi
mkdir -p "$out/renders"
status=0
for intent in "$here"/internal/draft/testdata/circuits/*.json; do
  name=$(basename "$intent" .json)
  pcb=$(ls "$out/$name"/hardware/*.kicad_pcb 2>/dev/null | head -1 || true)
  sch=$(ls "$out/$name"/hardware/*.kicad_sch 2>/dev/null | head -1 || true)
  if [[ -z "$pcb" || -z "$sch" ]]; then
    echo "$name: not drafted (see $out/$name)" >&2
    status=1
    continue
  fi
  tmp=$(mktemp -d)
  kicad-cli pcb export svg --layers B.Cu,F.Cu,F.Silkscreen,Edge.Cuts --mode-single --exclude-drawing-sheet \
    --page-size-mode 2 -o "$tmp/board.svg" "$pcb" >/dev/null
  rsvg-convert --width 1600 --keep-aspect-ratio --background-color white -o "$out/renders/$name-board.png" "$tmp/board.svg"
  kicad-cli sch export svg --exclude-drawing-sheet -o "$tmp" "$sch" >/dev/null
  svg=$(ls "$tmp"/*.svg | grep -v '/board.svg$' | head -1)
  rsvg-convert --width 2000 --keep-aspect-ratio --background-color white -o "$out/renders/$name-schematic.png" "$svg"
  rm -rf "$tmp"
  echo "$out/renders/$name-board.png"
  echo "$out/renders/$name-schematic.png"
done
exit $status
