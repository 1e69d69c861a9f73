package consistency

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/design"
)

// FirmwareDir is where pin headers are looked for; PinHeaderName is their
// file name.
const (
	FirmwareDir   = "firmware"
	PinHeaderName = "pins.h"
)

// PinMacro is the define a net gets in pins.h: PIN_ and the net name in upper
// case, "+" as P, "-" as N, anything else outside [A-Z0-9] as "_"
// (USB_D+ is PIN_USB_DP, /power/CHG_STAT is PIN_POWER_CHG_STAT).
func PinMacro(net string) string {
	var b strings.Builder
	under := true // no leading underscore
	for _, r := range strings.ToUpper(net) {
		switch {
		case r == '+':
			b.WriteByte('P')
		case r == '-':
			b.WriteByte('N')
		case (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		default:
			if !under {
				b.WriteByte('_')
			}
			under = true
			continue
		}
		under = false
	}
	return "PIN_" + strings.TrimRight(b.String(), "_")
}

// PinDefine is one #define PIN_... line of a pins.h.
type PinDefine struct {
	Macro string
	Value string // as written
	GPIO  int    // -1 when Value is not a GPIO number
}

var (
	defineLine = regexp.MustCompile(`^\s*#\s*define\s+(PIN_[A-Za-z0-9_]+)\s+(.*?)\s*(?://.*|/\*.*)?$`)
	gpioValue  = regexp.MustCompile(`^\(?\s*(?:GPIO_NUM_)?([0-9]+)[uU]?\s*\)?$`)
)

// ParsePinHeader reads the PIN_ defines of a pins.h, in file order.
func ParsePinHeader(src []byte) []PinDefine {
	var out []PinDefine
	for _, line := range strings.Split(string(src), "\n") {
		m := defineLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		d := PinDefine{Macro: m[1], Value: m[2], GPIO: -1}
		if v := gpioValue.FindStringSubmatch(m[2]); v != nil {
			if n, err := strconv.Atoi(v[1]); err == nil {
				d.GPIO = n
			}
		}
		out = append(out, d)
	}
	return out
}

// readPinHeaders finds every pins.h below firmware/.
func readPinHeaders(repo string) (design.Files, error) {
	out := design.Files{}
	root := filepath.Join(repo, FirmwareDir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		if d.IsDir() || d.Name() != PinHeaderName {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", FirmwareDir, err)
	}
	return out, nil
}

// expectedPin is the define PINOUT.md implies for one net.
type expectedPin struct {
	gpio int
	row  design.PinoutRow
}

// pinHeaderInconsistencies compares every pins.h with PINOUT.md, its source
// of truth. PINOUT.md itself is checked against the netlist by the drift
// check; a missing or unreadable PINOUT.md skips this check (drift reports it).
func pinHeaderInconsistencies(st State) (out []Inconsistency, skipped []string) {
	if len(st.PinHeaders) == 0 {
		return nil, []string{"pins.h: no " + FirmwareDir + "/**/" + PinHeaderName}
	}
	pinout := st.Config.DocPath(design.PinoutDoc)
	rows, err := design.ParsePinout(st.Files[pinout])
	if _, exists := st.Files[pinout]; !exists || err != nil {
		return nil, []string{"pins.h: " + pinout + " is missing or has no pin table"}
	}
	want := map[string]expectedPin{}
	ambiguous := map[string]bool{}
	for _, r := range rows {
		n, ok := gpioOf(r.Name)
		net := strings.TrimSpace(r.Net)
		if !ok || net == "" || strings.EqualFold(net, design.NCMarker) || net == "-" || net == "—" {
			continue
		}
		m := PinMacro(net)
		if prev, dup := want[m]; dup && prev.gpio != n {
			ambiguous[m] = true
			continue
		}
		want[m] = expectedPin{gpio: n, row: r}
	}
	for m := range ambiguous {
		delete(want, m)
		skipped = append(skipped, fmt.Sprintf("pins.h: %s: several GPIOs share the net in %s", m, pinout))
	}
	slices.Sort(skipped)
	for _, hdr := range slices.Sorted(maps.Keys(st.PinHeaders)) {
		have := map[string]PinDefine{}
		for _, d := range ParsePinHeader(st.PinHeaders[hdr]) {
			if _, dup := have[d.Macro]; !dup {
				have[d.Macro] = d
			}
		}
		for _, m := range slices.Sorted(maps.Keys(have)) {
			d := have[m]
			e, ok := want[m]
			switch {
			case ambiguous[m]:
			case !ok:
				out = append(out, Inconsistency{
					Kind: KindPinHeader, Doc: hdr, Subject: m,
					Claim:              fmt.Sprintf("#define %s %s", m, d.Value),
					Actual:             fmt.Sprintf("%s has no GPIO on a net named like %s", pinout, strings.TrimPrefix(m, "PIN_")),
					ProposedResolution: fmt.Sprintf("remove the %s define from %s: PINOUT.md is its source of truth", m, hdr),
					Resolvable:         true,
					Governing:          pinout,
				})
			case d.GPIO != e.gpio:
				out = append(out, Inconsistency{
					Kind: KindPinHeader, Doc: hdr, Subject: m,
					Claim:              fmt.Sprintf("#define %s %s", m, d.Value),
					Actual:             fmt.Sprintf("GPIO%d (%s: %s pin %s %s on %s)", e.gpio, pinout, e.row.Refdes, e.row.Pin, e.row.Name, e.row.Net),
					ProposedResolution: fmt.Sprintf("change it to \"#define %s %d\" in %s", m, e.gpio, hdr),
					Resolvable:         true,
					Governing:          pinout,
				})
			}
		}
		for _, m := range slices.Sorted(maps.Keys(want)) {
			if _, ok := have[m]; ok {
				continue
			}
			e := want[m]
			out = append(out, Inconsistency{
				Kind: KindPinHeader, Doc: hdr, Subject: m,
				Claim:              "(no define)",
				Actual:             fmt.Sprintf("GPIO%d (%s: %s pin %s %s on %s)", e.gpio, pinout, e.row.Refdes, e.row.Pin, e.row.Name, e.row.Net),
				ProposedResolution: fmt.Sprintf("add \"#define %s %d\" to %s", m, e.gpio, hdr),
				Resolvable:         true,
				Governing:          pinout,
			})
		}
	}
	return out, skipped
}
