#!/usr/bin/env bash
# carter_brief_times.sh: carter's time per brief (p50/p90) for each corpus of
# the shipped regression suite, over several runs of `carter regress`.
#
#   bench/carter_brief_times.sh [cases.json]   (default: tests/regression_cases.json)
#   RUNS=5 bench/carter_brief_times.sh        (repetitions, default 3; every brief of every run counts)
#
# A brief's time is what `carter run` reports for it: loading its corpus
# (rendering man pages, reading and indexing every document) plus the
# search, reading, extraction, synthesis (extractive: no model) and the
# checks. Percentiles are nearest-rank over all briefs of a corpus across
# the runs. Prints a Markdown table for bench/README.md.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"
RUNS="${RUNS:-3}"
cases="${1:-$here/tests/regression_cases.json}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/carter" ./cmd/carter)

for i in $(seq 1 "$RUNS"); do
	# A failing case still has a time; the table says how many failed.
	"$work/carter" regress --json "$cases" >"$work/run$i.json" 2>"$work/run$i.err" || true
	if ! jq -e 'type == "array"' "$work/run$i.json" >/dev/null 2>&1; then
		echo "carter regress failed:" >&2
		cat "$work/run$i.err" >&2
		exit 1
	fi
done

jq -rs '
	def pct(p): (sort) as $s | $s[([((p * ($s | length)) | ceil) - 1, 0] | max)];
	[.[][] | select(.skipped == null or .skipped == "")]
	| group_by(.corpus // "")
	| (["| corpus | briefs | failed | p50 | p90 |", "|---|---|---|---|---|"][]),
	  (.[] | "| \(.[0].corpus // "" | if . == "" then "default" else . end) | \(length) | \(map(select(.pass | not)) | length) | \(map(.elapsed_ms) | pct(0.5) / 1000 * 10 | round / 10) s | \(map(.elapsed_ms) | pct(0.9) / 1000 * 10 | round / 10) s |")
' "$work"/run*.json
echo
echo "$RUNS runs of $(jq 'length' "$work/run1.json") briefs; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
