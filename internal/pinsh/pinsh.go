package pinsh

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"copperhead/internal/repofs"
)

// Dir is where pin headers are looked for, repo-relative; HeaderName is
// their file name.
const (
	Dir        = "firmware"
	HeaderName = "pins.h"
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

// Define is one #define PIN_... line of a pins.h.
type Define struct {
	Macro string
	Value string // as written
	GPIO  int    // -1 when Value is not a GPIO number
}

var (
	defineLine = regexp.MustCompile(`^\s*#\s*define\s+(PIN_[A-Za-z0-9_]+)\s+(.*?)\s*(?://.*|/\*.*)?$`)
	gpioValue  = regexp.MustCompile(`^\(?\s*(?:GPIO_NUM_)?([0-9]+)[uU]?\s*\)?$`)
)

// Parse reads the PIN_ defines of a pins.h, in file order.
func Parse(src []byte) []Define {
	var out []Define
	for _, line := range strings.Split(string(src), "\n") {
		m := defineLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		d := Define{Macro: m[1], Value: m[2], GPIO: -1}
		if v := gpioValue.FindStringSubmatch(m[2]); v != nil {
			if n, err := strconv.Atoi(v[1]); err == nil {
				d.GPIO = n
			}
		}
		out = append(out, d)
	}
	return out
}

// Marker is what a pins.h that copperhead firmware generated says about
// itself, on one line of its opening comment:
//
//	copperhead:pins family=<f> target=<t> refdes=<ref> source=<PINOUT.md path> [osc=<pin>,<pin>] sha256=<hex>
//
// Sum is the sha256 of the header below that comment, so a hand edit can be
// told from a stale header.
type Marker struct {
	Family, Target, Refdes, Source string
	Osc                            string // the crystal's MCU pins, comma-separated; "" when the clock is assumed
	Sum                            string // hex sha256 of the body
}

// markerPrefix starts the marker line.
const markerPrefix = "copperhead:pins "

var markerRE = regexp.MustCompile(`copperhead:pins family=(\S+) target=(\S+) refdes=(\S+) source=(\S+)(?: osc=([^\s,]+(?:,[^\s,]+)*))? sha256=([0-9a-f]{64})`)

// Line is the marker line's text.
func (m Marker) Line() string {
	osc := ""
	if m.Osc != "" {
		osc = " osc=" + m.Osc
	}
	return fmt.Sprintf("%sfamily=%s target=%s refdes=%s source=%s%s sha256=%s", markerPrefix, m.Family, m.Target, m.Refdes, m.Source, osc, m.Sum)
}

// ReadMarker parses a pins.h's marker; ok is false for a header copperhead
// did not generate (or whose marker no longer parses: it is then judged as
// the user's own).
func ReadMarker(src []byte) (Marker, bool) {
	m := markerRE.FindSubmatch(src)
	if m == nil {
		return Marker{}, false
	}
	return Marker{Family: string(m[1]), Target: string(m[2]), Refdes: string(m[3]), Source: string(m[4]), Osc: string(m[5]), Sum: string(m[6])}, true
}

// Body is the part of a generated header its marker's Sum covers: what
// follows the opening comment.
func Body(src []byte) []byte {
	_, body, ok := bytes.Cut(src, []byte("\n */\n"))
	if !ok {
		return nil
	}
	return body
}

// skipDir is a folder below firmware/ that holds no pin header of the
// design: hidden folders (.git, .pio, .vscode), dependencies (node_modules)
// and build output (build, where a toolchain may copy pins.h).
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "build"
}

// ReadAll reads every pins.h below repo's firmware/ folder, keyed by
// slash-separated repo-relative path, through repofs (a header leading out
// of the repository is refused). Folders skipDir names are not searched. No
// firmware/ folder is no headers, not an error. It is the one walker: sync's
// pin audit and check's drift gate see the same headers.
func ReadAll(repo string) (map[string][]byte, error) {
	out := map[string][]byte{}
	root := filepath.Join(repo, Dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() && p != root && skipDir(d.Name()) {
			return fs.SkipDir
		}
		if d.IsDir() || d.Name() != HeaderName {
			return nil
		}
		data, err := repofs.ReadFile(repo, p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", Dir, err)
	}
	return out, nil
}
