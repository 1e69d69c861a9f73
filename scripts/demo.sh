#!/usr/bin/env bash
# demo.sh: the main job on the bundled demo board, from a fresh machine.
# Installs what is missing (scripts/setup.sh), builds copperhead, copies
# examples/open-telegraph into a new git repository in a temporary folder and
# runs `copperhead init`, `copperhead check` and the fab exports
# (`copperhead outputs`) there. No API key is needed;
# with a model configured it also runs one agent request.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"

bash "$here/scripts/setup.sh"

bin="$here/bin/copperhead"
echo "demo: building $bin"
ver="$(git -C "$here" describe --always --dirty 2>/dev/null || echo devel)"
(cd "$here" && go build -ldflags "-X copperhead/internal/cli.Version=$ver" -o "$bin" ./cmd/copperhead)

work="$(mktemp -d "${TMPDIR:-/tmp}/copperhead-demo.XXXXXX")"
cp -R "$here/examples/open-telegraph/." "$work/"
# A board that already carries docs is re-initialised from its schematic.
rm -rf "$work/docs"
cd "$work"
git init -q -b main
git add -A
git -c user.name=copperhead-demo -c user.email=demo@copperhead.invalid commit -qm "open-telegraph: hardware only"

echo "demo: copperhead init  (in $work)"
"$bin" init --no-hooks
echo
echo "demo: copperhead check"
status=0
"$bin" check || status=$?
echo
echo "demo: copperhead outputs  (gerbers + drill, DXF, STEP, SVGs, 3D render, ordering BOM)"
"$bin" outputs || status=$?

# With a model configured (ANTHROPIC_API_KEY, OPENAI_API_KEY, COPPERHEAD_MODEL
# or compat:), the agent gets the money demo: a request that would break the
# 25 uA sleep budget, which it must refuse or answer with an alternative.
if "$bin" models >/dev/null 2>&1; then
	git add -A && git -c user.name=copperhead-demo -c user.email=demo@copperhead.invalid commit -qm "copperhead init"
	echo
	echo "demo: copperhead do \"add a 100kΩ pullup on KEY_DAH\""
	"$bin" do "add a 100kΩ pullup on KEY_DAH" || status=$?
else
	echo
	echo "demo: no model configured, so no agent run (see 'copperhead models')"
fi

echo
echo "demo: the design docs are in $work/docs:"
ls -1 "$work/docs"
echo "demo: config in $work/.copperhead/config.json"
echo "demo: the fab package is in $work/outputs:"
ls -1 "$work/outputs" 2>/dev/null || true
exit "$status"
