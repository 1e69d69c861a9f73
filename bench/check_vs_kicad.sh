#!/usr/bin/env bash
# check_vs_kicad.sh: compare `copperhead check --no-cache` wall time with
# kicad-cli's own slowest single call on the same project.
#
#   bench/check_vs_kicad.sh [PROJECT_DIR[#schematic-only] ...]
#   RUNS=5 bench/check_vs_kicad.sh       (rounds; medians are reported)
#
# Default projects: the bundled fixture, three KiCad demos, one of them again
# without its board (schematic-only), and the largest demo board (vme-wren,
# whose DRC alone takes minutes: set BIG=0 to leave it out, BIG_RUNS for its
# rounds, default 1). A PROJECT_DIR#schematic-only is checked with its
# .kicad_pcb files removed.
#
# Each project is copied to a temp folder. One round runs, one after the
# other: kicad-cli sch erc alone, kicad-cli pcb drc --schematic-parity alone
# (the same options check passes), then copperhead check --no-cache (ERC, DRC,
# netlist export, our own parse, drift, constraints). Ratios are taken within
# a round, so a machine whose load drifts compares like with like; the table
# shows the median over the rounds of each time and of each ratio:
#   erc, drc    seconds of the call alone
#   check       seconds of check --no-cache
#   cached      seconds of check on the unchanged project (results reused)
#   /erc /drc   check divided by the call alone
#   /slowest    check divided by the slower of ERC and DRC in that round
# The load average is printed before and after each project.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"
RUNS="${RUNS:-5}"
bin="$(mktemp -d)/copperhead"
(cd "$here" && go build -o "$bin" ./cmd/copperhead)
export COPPERHEAD_CACHE_DIR="$(mktemp -d)"

projects=("$@")
if [ "${#projects[@]}" -eq 0 ]; then
	demos=/usr/share/kicad/demos
	projects=("$here/examples/open-telegraph" "$demos/pic_programmer" "$demos/video" "$demos/kit-dev-coldfire-xilinx_5213" "$demos/video#schematic-only")
	if [ "${BIG:-1}" != 0 ]; then projects+=("$demos/vme-wren"); fi
fi

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }
elapsed() { local s; s=$(now); "$@" >/dev/null 2>&1 || true; awk -v a="$(now)" -v b="$s" 'BEGIN {printf "%.3f\n", a - b}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == "" || b == 0) print "-"; else printf "%.3f\n", a / b}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

printf '%-36s %5s %8s %8s %8s %8s %6s %6s %8s  %s\n' project runs erc drc check cached /erc /drc /slowest load
for spec in "${projects[@]}"; do
	src="${spec%%#*}"
	name="$(basename "$src")"
	runs="$RUNS"
	if [ "$name" = vme-wren ] && [ $# -eq 0 ]; then runs="${BIG_RUNS:-1}"; fi
	work="$(mktemp -d)"
	cp -R "$src/." "$work/"
	if [ "$spec" != "$src" ]; then
		find "$work" -name '*.kicad_pcb' -delete
		name="$name (${spec#*#})"
	fi
	"$bin" --repo "$work" init --no-hooks >/dev/null 2>&1 || true
	info=$("$bin" --repo "$work" init --json --no-hooks 2>/dev/null || true)
	sch=$(sed -n 's/.*"schematic": "\(.*\)".*/\1/p' <<<"$info")
	brd=$(sed -n 's/.*"board": "\(.*\)".*/\1/p' <<<"$info")
	out="$(mktemp -d)"
	erc() { kicad-cli sch erc --format json --units mm --severity-all -o "$out/erc.json" "$work/$sch"; }
	drc() { kicad-cli pcb drc --format json --units mm --schematic-parity --severity-all -o "$out/drc.json" "$work/$brd"; }
	before=$(load)
	E=() D=() C=() W=() RE=() RD=() RS=()
	for _ in $(seq "$runs"); do
		e=$(elapsed erc)
		d=""
		if [ -n "$brd" ]; then d=$(elapsed drc); fi
		c=$(elapsed "$bin" --repo "$work" check --no-cache)
		w=$(elapsed "$bin" --repo "$work" check)
		slow=$(awk -v e="$e" -v d="${d:-0}" 'BEGIN {print (d > e) ? d : e}')
		E+=("$e") C+=("$c") W+=("$w") RE+=("$(div "$c" "$e")") RS+=("$(div "$c" "$slow")")
		if [ -n "$d" ]; then D+=("$d") RD+=("$(div "$c" "$d")"); fi
	done
	m() { printf '%s\n' "$@" | sed '/^$/d' | median; }
	printf '%-36s %5s %8s %8s %8s %8s %6s %6s %8s  %s -> %s\n' "$name" "$runs" \
		"$(m "${E[@]}")" "$(m "${D[@]:-}")" "$(m "${C[@]}")" "$(m "${W[@]}")" \
		"$(m "${RE[@]}")" "$(m "${RD[@]:-}")" "$(m "${RS[@]}")" "$before" "$(load)"
	rm -rf "$work" "$out"
done
echo "check = copperhead check --no-cache; ratios are per round (check / the call alone in the same round), then the median"
