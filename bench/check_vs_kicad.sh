#!/usr/bin/env bash
# check_vs_kicad.sh: compare `copperhead check` wall time with kicad-cli's own
# ERC + DRC on the same project.
#
#   bench/check_vs_kicad.sh [PROJECT_DIR ...]   (default: the bundled fixture and three KiCad demos)
#   RUNS=5 bench/check_vs_kicad.sh             (repetitions; the median is reported)
#
# Each project is copied to a temp folder. Reported per project, in seconds:
#   kicad      kicad-cli sch erc, then kicad-cli pcb drc --schematic-parity (sequential, as a CI script would)
#   check      copperhead check --no-cache (ERC, DRC, netlist, drift, constraints; kicad-cli runs concurrently)
#   cached     copperhead check on the unchanged project (results reused)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"
RUNS="${RUNS:-3}"
bin="$(mktemp -d)/copperhead"
(cd "$here" && go build -o "$bin" ./cmd/copperhead)
export COPPERHEAD_CACHE_DIR="$(mktemp -d)"

projects=("$@")
if [ "${#projects[@]}" -eq 0 ]; then
	projects=("$here/examples/open-telegraph" /usr/share/kicad/demos/pic_programmer /usr/share/kicad/demos/video /usr/share/kicad/demos/kit-dev-coldfire-xilinx_5213)
fi

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
elapsed() { local s; s=$(now); "$@" >/dev/null 2>&1 || true; awk -v a="$(now)" -v b="$s" 'BEGIN {print a - b}'; }

printf '%-34s %8s %8s %8s %8s\n' project kicad check cached ratio
for src in "${projects[@]}"; do
	work="$(mktemp -d)"
	cp -R "$src/." "$work/"
	"$bin" --repo "$work" init --no-hooks >/dev/null 2>&1 || true
	sch=$("$bin" --repo "$work" init --json --no-hooks 2>/dev/null | sed -n 's/.*"schematic": "\(.*\)".*/\1/p')
	brd=$("$bin" --repo "$work" init --json --no-hooks 2>/dev/null | sed -n 's/.*"board": "\(.*\)".*/\1/p')
	out="$(mktemp -d)"
	kicad_run() {
		kicad-cli sch erc --format json --severity-all -o "$out/erc.json" "$work/$sch"
		if [ -n "$brd" ]; then kicad-cli pcb drc --format json --severity-all --schematic-parity -o "$out/drc.json" "$work/$brd"; fi
	}
	k=$(for _ in $(seq "$RUNS"); do elapsed kicad_run; done | median)
	c=$(for _ in $(seq "$RUNS"); do elapsed "$bin" --repo "$work" check --no-cache; done | median)
	w=$(for _ in $(seq "$RUNS"); do elapsed "$bin" --repo "$work" check; done | median)
	printf '%-34s %8.2f %8.2f %8.2f %7.0f%%\n' "$(basename "$src")" "$k" "$c" "$w" "$(awk -v c="$c" -v k="$k" 'BEGIN {print 100 * c / k}')"
	rm -rf "$work" "$out"
done
echo "ratio = check / kicad (below 100% means check, with everything it adds, finishes before kicad-cli's own ERC + DRC run one after the other)"
