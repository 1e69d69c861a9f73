#!/usr/bin/env bash
# install.sh: kicad-cli 9 (and git, jq, curl) for the GitHub Action. On Debian
# it is scripts/setup.sh's own install (bookworm-backports); on Ubuntu runners
# KiCad's official PPA. Nothing is installed when kicad-cli 9 is already there.
set -euo pipefail
say() { printf 'copperhead action: %s\n' "$*"; }
have_kicad9() {
	command -v kicad-cli >/dev/null 2>&1 || return 1
	local v
	v=$(kicad-cli version 2>/dev/null | head -n1) || return 1
	[ "${v%%.*}" -ge 9 ] 2>/dev/null
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if have_kicad9 && command -v jq >/dev/null && command -v curl >/dev/null; then
	say "kicad-cli $(kicad-cli version | head -n1) is installed"
	exit 0
fi
. /etc/os-release
case "${ID:-}" in
debian)
	bash "$(dirname "$0")/../setup.sh"
	;;
ubuntu)
	$SUDO add-apt-repository --yes ppa:kicad/kicad-9.0-releases >/dev/null
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		kicad kicad-symbols kicad-footprints git jq curl >/dev/null
	;;
*)
	say "unsupported runner OS ${ID:-unknown}: install kicad-cli 9 before this action"
	exit 2
	;;
esac
have_kicad9 || { say "kicad-cli 9 is not available after install"; exit 2; }
say "installed kicad-cli $(kicad-cli version | head -n1)"
