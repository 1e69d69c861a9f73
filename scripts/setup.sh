#!/usr/bin/env bash
# setup.sh: install what copperhead needs on Debian 12 (bookworm), idempotently and
# non-interactively. Rerunning on a ready machine installs nothing.
#
#   kicad-cli 9 (package kicad), kicad-symbols, kicad-footprints, kicad-demos (bookworm-backports)
#   poppler-utils (pdftotext), git, strace, tmux, jq, curl (used by the test suite)
#   librsvg2-bin (rsvg-convert: the render scripts' PNGs)
#   Node >= 20 and the OpenSpec CLI pinned below
#   the SARIF validator (@microsoft/sarif-multitool, pinned below; the test suite
#   validates check --format sarif with it)
#   optionally, the Claude Code and Codex CLIs (pinned below; a failed install warns)
#
# The backports mirror is derived from the machine's existing apt sources, so the
# script works behind whatever mirror the machine already trusts.
set -euo pipefail

OPENSPEC_VERSION="1.13.2"
SARIF_MULTITOOL_VERSION="5.7.0"
# The MCP Inspector drives `copperhead mcp` in the interop test (cmd/copperhead/mcp_test.go).
MCP_INSPECTOR_VERSION="2.12.0"
# Debian ships kicad-cli inside the "kicad" package; kicad-demos holds the real
# projects the test suite runs against.
KICAD_PKGS=(kicad kicad-symbols kicad-footprints kicad-demos kicad-doc-en)
say() { printf 'setup: %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

have_kicad9() {
	command -v kicad-cli >/dev/null 2>&1 || return 1
	local v
	v=$(kicad-cli version 2>/dev/null | head -n1) || return 1
	[ "${v%%.*}" -ge 9 ] 2>/dev/null
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# mirror_uri prints the first Debian main-archive URI found in the apt sources
# (deb822 .sources files or one-line .list files), skipping security archives.
mirror_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
			/^[[:space:]]*$/ { if (uri != "" && suites ~ /bookworm/ && uri !~ /security/) { print uri; exit } uri=""; suites=""; next }
			/^URIs:/ { uri=$2 }
			/^Suites:/ { suites=$0 }
			END { if (uri != "" && suites ~ /bookworm/ && uri !~ /security/) print uri }
		' "$f"
	done | head -n1 | grep . && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" && $0 ~ /bookworm/ && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit }
		}' | head -n1 | grep .
}

ensure_backports() {
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	local uri
	uri=$(mirror_uri) || { say "cannot find a Debian mirror in /etc/apt/sources*; add bookworm-backports by hand"; exit 2; }
	say "enabling bookworm-backports from $uri"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" |
		$SUDO tee /etc/apt/sources.list.d/copperhead-backports.sources >/dev/null
}

APT_UPDATED=0
APT_LOG="${TMPDIR:-/tmp}/copperhead-setup-apt.log"
# apt_install keeps apt's chatter in a log and shows it only when apt fails.
apt_install() {
	if [ "$APT_UPDATED" -eq 0 ]; then
		$SUDO apt-get update -qq >"$APT_LOG" 2>&1 || { cat "$APT_LOG"; exit 2; }
		APT_UPDATED=1
	fi
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >>"$APT_LOG" 2>&1 ||
		{ tail -n 40 "$APT_LOG"; say "apt-get install $* failed (full log: $APT_LOG)"; exit 2; }
}

missing=()
for p in "${KICAD_PKGS[@]}"; do pkg_installed "$p" || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ] || ! have_kicad9; then
	ensure_backports
	say "installing ${KICAD_PKGS[*]} from bookworm-backports"
	apt_install -t bookworm-backports "${KICAD_PKGS[@]}"
fi
have_kicad9 || { say "kicad-cli 9 is not available after install (found: $(kicad-cli version 2>&1 | head -n1))"; exit 2; }

base=()
command -v pdftotext >/dev/null 2>&1 || base+=(poppler-utils)
command -v git >/dev/null 2>&1 || base+=(git)
# strace lets the test suite prove that `check` opens no network connection.
command -v strace >/dev/null 2>&1 || base+=(strace)
# tmux runs the agent shell in a real terminal for its end-to-end test.
command -v tmux >/dev/null 2>&1 || base+=(tmux)
# The GitHub Action's steps (scripts/action/run.sh, tested here) use jq and curl.
command -v jq >/dev/null 2>&1 || base+=(jq)
command -v curl >/dev/null 2>&1 || base+=(curl)
# The viewer's acceptance test (copperhead watch) drives headless Chromium.
command -v chromium >/dev/null 2>&1 || base+=(chromium)
# carter's regression suite renders the man pages of git, make, strace and poppler-utils.
command -v man >/dev/null 2>&1 || base+=(man-db)
# The firmware stage's gate is "the vendor toolchain builds it": with these the
# tests compile generated AVR and Cortex-M scaffolds for real (each installs in under a minute).
command -v make >/dev/null 2>&1 || base+=(make)
command -v avr-gcc >/dev/null 2>&1 || base+=(gcc-avr avr-libc)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || base+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
# scripts/render_circuits.sh and render_boards.sh turn SVG plots into PNGs with rsvg-convert.
command -v rsvg-convert >/dev/null 2>&1 || base+=(librsvg2-bin)
node_major=0
if command -v node >/dev/null 2>&1; then node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0); fi
if [ "$node_major" -lt 20 ]; then base+=(nodejs npm); fi
if [ "${#base[@]}" -gt 0 ]; then
	say "installing ${base[*]}"
	apt_install "${base[@]}"
fi
if command -v node >/dev/null 2>&1; then node_major=$(node -p 'process.versions.node.split(".")[0]'); fi
[ "$node_major" -ge 20 ] || { say "Node >= 20 is required (found $(node --version 2>&1))"; exit 2; }

have_openspec=""
if command -v openspec >/dev/null 2>&1; then have_openspec=$(openspec --version 2>/dev/null || true); fi
if [ "$have_openspec" != "$OPENSPEC_VERSION" ]; then
	say "installing @fission-ai/openspec@$OPENSPEC_VERSION"
	$SUDO npm install -g --no-fund --no-audit --loglevel=error "@fission-ai/openspec@$OPENSPEC_VERSION" >/dev/null
fi

have_sarif=""
if command -v sarif-multitool >/dev/null 2>&1; then have_sarif=$(sarif-multitool --version 2>&1 | sed -n 's/^SARIF Multitool \([0-9.]*\).*/\1/p' || true); fi
if [ "$have_sarif" != "$SARIF_MULTITOOL_VERSION" ]; then
	say "installing @microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION"
	$SUDO npm install -g --no-fund --no-audit --loglevel=error "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION" >/dev/null
fi

have_inspector=""
if command -v mcp-inspector >/dev/null 2>&1; then have_inspector=$(mcp-inspector --version 2>/dev/null | tail -n1 || true); fi
if [ "$have_inspector" != "$MCP_INSPECTOR_VERSION" ]; then
	say "installing @modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION"
	$SUDO npm install -g --no-fund --no-audit --loglevel=error "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION" >/dev/null
fi

# Optional: the saved-login backends' CLIs (claude-code, codex), pinned. The
# tests run them logged out (and use fakes otherwise); a failed install only
# warns. They need Node >= 22 and may print an engine warning on 20.
CLAUDE_CODE_VERSION=2.1.328
CODEX_VERSION=0.169.0
have_claude=""
if command -v claude >/dev/null 2>&1; then have_claude=$(claude --version 2>/dev/null | sed -n 's/^\([0-9.]*\).*/\1/p' || true); fi
if [ "$have_claude" != "$CLAUDE_CODE_VERSION" ]; then
	say "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION (optional)"
	$SUDO npm install -g --no-fund --no-audit --loglevel=error "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >/dev/null ||
		say "warning: @anthropic-ai/claude-code did not install; the claude-code backend's real-CLI test will be skipped"
fi
have_codex=""
if command -v codex >/dev/null 2>&1; then have_codex=$(codex --version 2>/dev/null | sed -n 's/^codex-cli \([0-9.]*\).*/\1/p' || true); fi
if [ "$have_codex" != "$CODEX_VERSION" ]; then
	say "installing @openai/codex@$CODEX_VERSION (optional)"
	$SUDO npm install -g --no-fund --no-audit --loglevel=error "@openai/codex@$CODEX_VERSION" >/dev/null ||
		say "warning: @openai/codex did not install; the codex backend's real-CLI test will be skipped"
fi

# draft layout fills its ground pour with KiCad's zone filler: the pcbnew
# module the kicad package installs for the system python3 (a dependency of
# kicad).
/usr/bin/python3 -c 'import pcbnew' >/dev/null 2>&1 || { say "KiCad's pcbnew module does not import in /usr/bin/python3 (reinstall the kicad package)"; exit 2; }

say "ready: $(kicad-cli version | head -n1) kicad-cli, openspec $(openspec --version), sarif-multitool $SARIF_MULTITOOL_VERSION, mcp-inspector $MCP_INSPECTOR_VERSION, $(git --version), node $(node --version), $(pdftotext -v 2>&1 | head -n1)"
