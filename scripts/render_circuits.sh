#!/usr/bin/env bash
# render_circuits.sh: draft the six test circuits (internal/draft/testdata/circuits/*.json)
# with `copperhead draft schematic` into a scratch folder and write one schematic PNG
# per circuit, so a person can look at what the engine draws.
#
#   scripts/render_circuits.sh [OUTDIR]     (default: a new folder under ${TMPDIR:-/tmp})
#
# Needs kicad-cli 9 (sheet to SVG) and rsvg-convert (SVG to PNG, Debian librsvg2-bin);
# scripts/setup.sh installs both. Exits non-zero, naming the circuit, when a draft,
# its ERC or an export fails.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"

for tool in go kicad-cli rsvg-convert git; do
	command -v "$tool" >/dev/null 2>&1 || { echo "render_circuits: $tool not found (run scripts/setup.sh)" >&2; exit 2; }
done

out="${1:-}"
if [ -z "$out" ]; then
	out="$(mktemp -d "${TMPDIR:-/tmp}/copperhead-circuits.XXXXXX")"
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"

bin="$out/.bin/copperhead"
(cd "$here" && go build -o "$bin" ./cmd/copperhead)

# draft schematic runs inside a repository; a scratch one holds the sheets.
repo="$out/.repo"
mkdir -p "$repo"
[ -d "$repo/.git" ] || git -C "$repo" init -q

status=0
for intent in "$here"/internal/draft/testdata/circuits/*.json; do
	name="$(basename "$intent" .json)"
	dir="$out/$name"
	rm -rf "$dir"
	if ! summary="$("$bin" --repo "$repo" draft schematic --intent "$intent" --out "$dir" 2>&1)"; then
		echo "render_circuits: $name: draft failed:" >&2
		echo "$summary" >&2
		status=1
		continue
	fi
	sheet="$(ls "$dir"/*.kicad_sch)"
	if ! kicad-cli sch export svg --output "$dir" "$sheet" >/dev/null 2>&1; then
		echo "render_circuits: $name: kicad-cli sch export svg failed" >&2
		status=1
		continue
	fi
	svg="$dir/$(basename "$sheet" .kicad_sch).svg"
	rsvg-convert --background-color=white --width=3000 "$svg" --output "$out/$name.png"
	echo "$name: $(echo "$summary" | head -n1 | sed 's/^drafted [^:]*: //') -> $out/$name.png"
done
exit "$status"
