#!/usr/bin/env bash
# run.sh: the GitHub Action's work, plain shell so it runs (and is tested)
# anywhere. It never fails the step itself: it records check's exit code in
# $GITHUB_OUTPUT so the SARIF upload still happens, and the action's last step
# sets the job status from it.
#
# Environment: COPPERHEAD (the binary), INPUT_PATH, INPUT_BASE, INPUT_COMMENT,
# GITHUB_TOKEN, and what GitHub sets: GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
# GITHUB_API_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP.
set -uo pipefail

say() { printf 'copperhead action: %s\n' "$*" >&2; }
bin=${COPPERHEAD:-copperhead}
repo=${INPUT_PATH:-.}
out=${RUNNER_TEMP:-$(mktemp -d)}
sarif="$out/copperhead.sarif"
comment="$out/copperhead-comment.md"
event=${GITHUB_EVENT_PATH:-}
marker='<!-- copperhead: electrical diff and check -->'

output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi; }

# The base: the input, else the pull request's base, else the push's
# previous commit, else the parent of HEAD.
base=${INPUT_BASE:-}
if [ -z "$base" ] && [ -n "$event" ] && [ -f "$event" ]; then
	base=$(jq -r '.pull_request.base.sha // (if (.before // "") | test("^0+$") then "" else .before end) // empty' "$event")
fi
[ -n "$base" ] || base="HEAD^"
say "base $base"

"$bin" --repo "$repo" check --baseline "$base" --format sarif >"$sarif"
check_rc=$?
output sarif "$sarif"
output check-exit "$check_rc"
if [ "$check_rc" -ge 2 ]; then
	say "copperhead check could not run (exit $check_rc)"
	output comment ""
	exit 0
fi

diff_md=$("$bin" --repo "$repo" diff --base "$base" --format markdown)
diff_rc=$?
if [ "$diff_rc" -ne 0 ]; then
	diff_md="copperhead diff could not run (exit $diff_rc); see the job log."
fi

# The check's verdict from its own SARIF: errors that are new since the base.
new_errors=$(jq '[.runs[].results[] | select(.level == "error" and (.baselineState // "new") == "new")] | length' "$sarif" 2>/dev/null || echo "?")
existing=$(jq '[.runs[].results[] | select(.baselineState == "unchanged")] | length' "$sarif" 2>/dev/null || echo "?")
if [ "$check_rc" -eq 0 ]; then
	verdict="**copperhead check passed**: no new violations since \`$base\` ($existing existing)."
else
	verdict="**copperhead check failed**: $new_errors new violations since \`$base\` ($existing existing); see the code-scanning results."
fi
{
	printf '%s\n' "$marker"
	printf '%s\n\n' "$verdict"
	printf '%s\n' "$diff_md"
} >"$comment"
output comment "$comment"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$comment" >>"$GITHUB_STEP_SUMMARY"; fi

# One comment per pull request, updated on every push.
pr=""
if [ -n "$event" ] && [ -f "$event" ]; then pr=$(jq -r '.pull_request.number // empty' "$event"); fi
if [ "${INPUT_COMMENT:-true}" != "true" ] || [ -z "$pr" ] || [ -z "${GITHUB_TOKEN:-}" ] || [ -z "${GITHUB_REPOSITORY:-}" ]; then
	exit 0
fi
api=${GITHUB_API_URL:-https://api.github.com}
auth=(-H "Authorization: Bearer $GITHUB_TOKEN" -H "Accept: application/vnd.github+json")
body=$(jq -Rs '{body: .}' <"$comment")
existing_id=$(curl -fsS "${auth[@]}" "$api/repos/$GITHUB_REPOSITORY/issues/$pr/comments?per_page=100" |
	jq -r --arg m "$marker" '[.[] | select(.body | startswith($m))][0].id // empty') || existing_id=""
if [ -n "$existing_id" ]; then
	curl -fsS -X PATCH "${auth[@]}" "$api/repos/$GITHUB_REPOSITORY/issues/comments/$existing_id" -d "$body" >/dev/null ||
		say "could not update comment $existing_id"
else
	curl -fsS -X POST "${auth[@]}" "$api/repos/$GITHUB_REPOSITORY/issues/$pr/comments" -d "$body" >/dev/null ||
		say "could not post the comment"
fi
exit 0
