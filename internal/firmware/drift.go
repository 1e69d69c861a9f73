package firmware

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/pinsh"
	"copperhead/internal/repofs"
)

// Drift kinds; the values are part of --json output.
const (
	DriftStale      = "stale"       // PINOUT.md changed since pins.h was generated
	DriftHandEdited = "hand_edited" // pins.h no longer matches its own marker
	DriftNoPinout   = "no_pinout"   // the PINOUT.md pins.h names is missing or has no pin table
)

// DriftFinding is one generated pins.h that no longer says what PINOUT.md
// generates now.
type DriftFinding struct {
	Header  string `json:"header"` // repo-relative
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// CheckPinHeaders compares every copperhead-generated pins.h in headers
// (repo-relative path -> bytes, e.g. pinsh.ReadAll) with what
// the PINOUT.md its marker names (looked up in docs, repo-relative path ->
// bytes, e.g. design.ReadFiles) generates now. Headers without copperhead's
// marker are the user's own and are not judged here (sync's pin audit covers
// them). Findings are sorted by header path. It reads no files: Drift does.
func CheckPinHeaders(headers, docs design.Files) []DriftFinding {
	var out []DriftFinding
	for _, path := range slices.Sorted(maps.Keys(headers)) {
		src := headers[path]
		mk, ok := readMarker(src)
		if !ok {
			continue
		}
		fix := fmt.Sprintf("run `copperhead firmware` to regenerate it from %s", mk.source)
		pinout, ok := docs[mk.source]
		defs, err := PinDefs(pinout, mk.mcu)
		if !ok || err != nil {
			out = append(out, DriftFinding{Header: path, Kind: DriftNoPinout,
				Message: fmt.Sprintf("%s: generated from %s, which is missing or has no pin table", path, mk.source)})
			continue
		}
		want := PinsHeader(mk.mcu, mk.source, defs)
		if bytes.Equal(src, want) {
			continue
		}
		sum := sha256.Sum256(pinsh.Body(src))
		if hex.EncodeToString(sum[:]) != mk.sum {
			out = append(out, DriftFinding{Header: path, Kind: DriftHandEdited,
				Message: fmt.Sprintf("%s: edited by hand since copperhead generated it (%s is its source of truth); %s", path, mk.source, fix)})
			continue
		}
		out = append(out, DriftFinding{Header: path, Kind: DriftStale,
			Message: fmt.Sprintf("%s: %s changed since it was generated (%s); %s", path, mk.source, defineChanges(src, want), fix)})
	}
	return out
}

// defineChanges summarises how the PIN_ defines differ: "PIN_LED PB5 -> PB4,
// PIN_KEY added, PIN_OLD removed".
func defineChanges(have, want []byte) string {
	index := func(src []byte) map[string]string {
		m := map[string]string{}
		for _, d := range pinsh.Parse(src) {
			if _, dup := m[d.Macro]; !dup {
				m[d.Macro] = d.Value
			}
		}
		return m
	}
	h, w := index(have), index(want)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(w)) {
		switch hv, ok := h[k]; {
		case !ok:
			parts = append(parts, k+" added")
		case hv != w[k]:
			parts = append(parts, fmt.Sprintf("%s %s -> %s", k, hv, w[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if _, ok := w[k]; !ok {
			parts = append(parts, k+" removed")
		}
	}
	if len(parts) == 0 {
		return "same pins, different comments or happy-path choice"
	}
	return strings.Join(parts, ", ")
}

// Drift reads every pins.h below repo's firmware/ folder (pinsh.ReadAll) and the PINOUT.md
// each generated one names, and returns CheckPinHeaders' findings: what
// `check` adds to its drift gate.
func Drift(repo string) ([]DriftFinding, error) {
	headers, err := pinsh.ReadAll(repo)
	if err != nil {
		return nil, err
	}
	docs := design.Files{}
	for _, data := range headers {
		if mk, ok := readMarker(data); ok && filepath.IsLocal(filepath.FromSlash(mk.source)) {
			if doc, err := repofs.ReadFile(repo, filepath.Join(repo, filepath.FromSlash(mk.source))); err == nil {
				docs[mk.source] = doc
			}
		}
	}
	return CheckPinHeaders(headers, docs), nil
}
