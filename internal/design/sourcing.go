package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/kicad"
	"copperhead/internal/sourcing"
)

// SourcingKeyPrefix starts every sourcing snapshot's key in constraints.json:
// "sourcing.<refdes>" (design D7).
const SourcingKeyPrefix = "sourcing."

// SourcingHeading is the BOM.md section holding one human-readable line per
// sourcing snapshot, the doc half of the D7 dual write.
const SourcingHeading = "Sourcing"

// sourcingIntro is the paragraph under a new ## Sourcing section.
const sourcingIntro = "Part availability as a part-data provider reported it (`search_parts`). " +
	"The snapshots themselves are the `sourcing.<refdes>` entries of `.copperhead/constraints.json`; " +
	"`copperhead check` judges them offline: an ended lifecycle fails, zero stock and age warn.\n"

// SourcingKey is the constraints.json key of refdes's snapshot.
func SourcingKey(refdes string) string { return SourcingKeyPrefix + refdes }

// RecordSourcing dual-writes the sourcing snapshot of part refdes (D7): the
// entry "sourcing.<refdes>" of .copperhead/constraints.json (the snapshot's
// fields, source = the provider, affects = [refdes]) and the line for refdes
// under ## Sourcing in BOM.md, which names the key so that doc and registry
// stay paired. Both files are written atomically.
//
// Only those two things change: every other constraints.json entry and every
// other BOM.md line keep their bytes (a canonically formatted registry is
// re-rendered, which is the same thing; a hand-formatted one is spliced). A
// BOM.md that does not exist yet is left absent; the registry is still
// written. Recording the same snapshot again changes nothing.
//
// It returns the repo-relative paths of the files it wrote.
func RecordSourcing(repoRoot string, cfg config.Config, refdes string, snap sourcing.Snapshot) (changed []string, err error) {
	refdes = strings.TrimSpace(refdes)
	if !sourcingRefdes(refdes) {
		return nil, fmt.Errorf("record sourcing: %q is not a reference designator", refdes)
	}
	if strings.TrimSpace(snap.MPN) == "" {
		return nil, fmt.Errorf("record sourcing for %s: the snapshot has no MPN", refdes)
	}
	snap.Retrieved = snap.Retrieved.UTC().Truncate(time.Second) // the record is per retrieval, not per nanosecond
	key := SourcingKey(refdes)

	regPath := filepath.Join(repoRoot, filepath.FromSlash(config.ConstraintsPath))
	old, err := os.ReadFile(regPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("record sourcing for %s: read %s: %w", refdes, config.ConstraintsPath, err)
	}
	entry, err := sourcingConstraint(refdes, snap)
	if err != nil {
		return nil, fmt.Errorf("record sourcing for %s: %w", refdes, err)
	}
	next, err := putConstraint(old, key, entry)
	if err != nil {
		return nil, fmt.Errorf("record sourcing for %s: %w", refdes, err)
	}
	if !bytes.Equal(next, old) {
		if err := atomicfile.Write(regPath, next, 0o644); err != nil {
			return nil, fmt.Errorf("record sourcing for %s: %w", refdes, err)
		}
		changed = append(changed, config.ConstraintsPath)
	}

	bomRel := cfg.DocPath(BOMDoc)
	bomPath := filepath.Join(repoRoot, filepath.FromSlash(bomRel))
	doc, err := os.ReadFile(bomPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return changed, nil
	case err != nil:
		return changed, fmt.Errorf("record sourcing for %s: read %s: %w", refdes, bomRel, err)
	}
	if nextDoc, ok := setSourcingLine(doc, refdes, SourcingLine(refdes, snap)); ok {
		if err := atomicfile.Write(bomPath, nextDoc, 0o644); err != nil {
			return changed, fmt.Errorf("record sourcing for %s: %w", refdes, err)
		}
		changed = append(changed, bomRel)
	}
	return changed, nil
}

// sourcingRefdes reports whether refdes can name a sourcing entry: not
// empty, and nothing that would end the key inside its BOM.md line (blank,
// backtick, colon) or break a table (pipe).
func sourcingRefdes(refdes string) bool {
	return refdes != "" && !strings.ContainsFunc(refdes, func(r rune) bool { return r <= ' ' || strings.ContainsRune("`|:", r) })
}

// SourcingLine is the BOM.md list item for refdes's snapshot:
// "- `sourcing.U1`: TPS63020DSJR: Active, 15465 in stock at 2 distributors,
// 1.20 USD at 1k (nexar, retrieved 2026-03-01)".
func SourcingLine(refdes string, snap sourcing.Snapshot) string {
	return "- `" + SourcingKey(refdes) + "`: " + strings.Join(strings.Fields(sourcing.Summary(snap)), " ")
}

// sourcingConstraint is the registry entry for a snapshot: D7's fields, with
// the provider as its source and the part as what it affects.
// Encoding fails only for values JSON cannot hold (a NaN price, a year
// beyond 9999).
func sourcingConstraint(refdes string, snap sourcing.Snapshot) (Constraint, error) {
	c := Constraint{Source: snap.Provider, Affects: []string{refdes}, Extra: map[string]json.RawMessage{}}
	raw, err := json.Marshal(snap)
	if err != nil {
		return Constraint{}, fmt.Errorf("encode the snapshot of %s: %w", snap.MPN, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Constraint{}, fmt.Errorf("encode the snapshot of %s: %w", snap.MPN, err)
	}
	for k, v := range fields {
		if k != "source" {
			c.Extra[k] = v
		}
	}
	return c, nil
}

// SnapshotOf reads a sourcing entry of constraints.json back into a
// snapshot. An entry with a field of the wrong type, no MPN or an unreadable
// retrieval time is an error naming the field.
func SnapshotOf(c Constraint) (sourcing.Snapshot, error) {
	fields := map[string]json.RawMessage{}
	for k, v := range c.Extra {
		fields[k] = v
	}
	src, _ := json.Marshal(c.Source)
	fields["source"] = src
	var s sourcing.Snapshot
	for _, f := range []struct {
		key string
		dst any
	}{
		{"mpn", &s.MPN}, {"source", &s.Provider}, {"lifecycle", &s.Lifecycle},
		{"stockTotal", &s.Stock}, {"distributors", &s.Distributors},
		{"price1k", &s.Price1k}, {"currency", &s.Currency},
	} {
		if raw, ok := fields[f.key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return sourcing.Snapshot{}, fmt.Errorf("field %q: %s", f.key, config.TypeErrorText(err))
			}
		}
	}
	if strings.TrimSpace(s.MPN) == "" {
		return sourcing.Snapshot{}, errors.New(`field "mpn" is missing`)
	}
	if raw, ok := fields["retrieved"]; ok && string(raw) != "null" {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return sourcing.Snapshot{}, fmt.Errorf("field \"retrieved\": %s", config.TypeErrorText(err))
		}
		t, err := time.Parse(time.RFC3339, text)
		if err != nil {
			return sourcing.Snapshot{}, fmt.Errorf("field \"retrieved\": %q is not an RFC 3339 time (2026-03-01T12:00:00Z)", text)
		}
		s.Retrieved = t.UTC()
	}
	return s, nil
}

// putConstraint returns constraints.json bytes with key set to c. When key
// already holds an equal entry the bytes come back unchanged. A registry in
// Marshal's own format is re-rendered by Marshal (other entries keep their
// bytes, keys stay sorted); any other formatting is kept by splicing only the
// entry's value, or appending the entry before the closing brace.
func putConstraint(data []byte, key string, c Constraint) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Constraints{key: c}.Marshal(), nil
	}
	reg, err := ParseConstraints(data, config.ConstraintsPath)
	if err != nil {
		return nil, err
	}
	want, err := c.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", config.ConstraintsPath, key, err)
	}
	if old, ok := reg[key]; ok {
		if have, err := old.MarshalJSON(); err == nil && bytes.Equal(have, want) {
			return data, nil
		}
	}
	canonical := bytes.Equal(reg.Marshal(), data)
	reg[key] = c
	if canonical {
		return reg.Marshal(), nil
	}
	return spliceTopLevel(data, key, want)
}

// spliceTopLevel sets key of the top-level JSON object in data to value
// (compact JSON), re-indented as Marshal would indent it; nothing else in
// data changes. data must already be a valid JSON object.
func spliceTopLevel(data []byte, key string, value []byte) ([]byte, error) {
	var indented bytes.Buffer
	if err := json.Indent(&indented, value, "  ", "  "); err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", config.ConstraintsPath, key, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: top level must be a JSON object", config.ConstraintsPath)
	}
	open := int(dec.InputOffset()) - 1
	lastEnd := -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", config.ConstraintsPath, err)
		}
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: %w", config.ConstraintsPath, err)
		}
		end := int(dec.InputOffset())
		if tok == key {
			start := afterKey + bytes.IndexFunc(data[afterKey:end], func(r rune) bool { return r != ':' && r != ' ' && r != '\t' && r != '\n' && r != '\r' })
			return concat(data[:start], indented.Bytes(), data[end:]), nil
		}
		lastEnd = end
	}
	keyJSON, _ := json.Marshal(key)
	entry := append(append(keyJSON, ": "...), indented.Bytes()...)
	if lastEnd < 0 {
		closing := open + 1 + bytes.IndexByte(data[open+1:], '}')
		return concat(data[:open+1], []byte("\n  "), entry, []byte("\n"), data[closing:]), nil
	}
	return concat(data[:lastEnd], []byte(",\n  "), entry, data[lastEnd:]), nil
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	// sourcingHeadingRE matches the ## Sourcing heading line.
	sourcingHeadingRE = regexp.MustCompile(`^##[ \t]+` + SourcingHeading + `[ \t#]*$`)
	// sectionEndRE matches a heading that ends a level-2 section.
	sectionEndRE = regexp.MustCompile(`^#{1,2}[ \t]`)
	// sourcingItemRE matches a sourcing line and captures its refdes.
	sourcingItemRE = regexp.MustCompile("^[-*+][ \\t]+`?" + regexp.QuoteMeta(SourcingKeyPrefix) + "([^`:\\s]+)`?")
)

// setSourcingLine puts line as refdes's item under ## Sourcing in doc:
// replacing the item that names the same key, else inserted among the other
// items in refdes order, else as the section's first item; the section is
// appended at the end of the doc when it has none. It reports whether doc
// changed.
func setSourcingLine(doc []byte, refdes, line string) ([]byte, bool) {
	eol := "\n"
	if bytes.Contains(doc, []byte("\r\n")) {
		eol = "\r\n"
	}
	lines := strings.SplitAfter(string(doc), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	heading := slices.IndexFunc(lines, func(l string) bool { return sourcingHeadingRE.MatchString(strings.TrimRight(l, "\r\n")) })
	if heading < 0 {
		text := string(doc)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += eol
		}
		if strings.TrimSpace(text) != "" && !strings.HasSuffix(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
			text += eol
		}
		text += "## " + SourcingHeading + eol + eol + strings.ReplaceAll(sourcingIntro, "\n", eol) + eol + line + eol
		return []byte(text), true
	}
	end := len(lines)
	for i := heading + 1; i < len(lines); i++ {
		if sectionEndRE.MatchString(lines[i]) {
			end = i
			break
		}
	}
	insertAt, lastItem := -1, -1
	for i := heading + 1; i < end; i++ {
		m := sourcingItemRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		lastItem = i
		text := strings.TrimRight(lines[i], "\r\n")
		switch c := kicad.CompareRefdes(m[1], refdes); {
		case c == 0:
			ending := lines[i][len(text):]
			if text == line && ending != "" {
				return doc, false
			}
			if ending == "" {
				ending = eol // the doc's last line: end it
			}
			lines[i] = line + ending
			return []byte(strings.Join(lines, "")), true
		case c > 0 && insertAt < 0:
			insertAt = i
		}
	}
	insert := []string{line + eol}
	switch {
	case insertAt >= 0:
	case lastItem >= 0:
		insertAt = lastItem + 1
	default:
		// The section's first item: after its last non-blank line, with a
		// blank line before it, and one after it when a heading follows.
		last := end - 1
		for last > heading && strings.TrimSpace(lines[last]) == "" {
			last--
		}
		insertAt = last + 1
		insert = append([]string{eol}, insert...)
		if insertAt == end && end < len(lines) {
			insert = append(insert, eol)
		}
	}
	if !strings.HasSuffix(lines[insertAt-1], "\n") {
		lines[insertAt-1] += eol
	}
	lines = slices.Insert(lines, insertAt, insert...)
	return []byte(strings.Join(lines, "")), true
}
