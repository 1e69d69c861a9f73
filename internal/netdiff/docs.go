package netdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

// Docs are the bytes of one side's doc and constraint files; nil is a file
// the side does not have.
type Docs struct {
	Spec        []byte // docs/SPEC.md
	Config      []byte // .copperhead/config.json
	Constraints []byte // .copperhead/constraints.json
	BOM         []byte // docs/BOM.md
}

// ValueChange is one budget added (Old nil), removed (New nil) or changed.
type ValueChange struct {
	Key string   `json:"key"`
	Old *float64 `json:"old"`
	New *float64 `json:"new"`
}

// EntryChange is one constraints.json entry added, removed or changed; Old
// and New are the entry's JSON (keys sorted), "" when absent.
type EntryChange struct {
	Key     string        `json:"key"`
	Change  string        `json:"change"` // "added", "removed", "changed"
	Old     string        `json:"old,omitempty"`
	New     string        `json:"new,omitempty"`
	Changes []FieldChange `json:"changes,omitempty"` // for "changed": each top-level key that differs
}

// RowChange is a BOM.md row on both sides whose cells differ.
type RowChange struct {
	Refdes  string        `json:"refdes"`
	Changes []FieldChange `json:"changes"`
}

// DocChanges is the docs' half of a diff.
type DocChanges struct {
	SpecBudgets   []ValueChange   `json:"spec_budgets"`
	ConfigBudgets []ValueChange   `json:"config_budgets"`
	Constraints   []EntryChange   `json:"constraints"`
	BOMAdded      []design.BOMRow `json:"bom_added"`
	BOMRemoved    []design.BOMRow `json:"bom_removed"`
	BOMChanged    []RowChange     `json:"bom_changed"`
	Notes         []string        `json:"notes"` // a file one side cannot read ("base: .copperhead/constraints.json: ...")
}

// Empty reports whether no doc change was found (notes aside).
func (d *DocChanges) Empty() bool {
	return len(d.SpecBudgets)+len(d.ConfigBudgets)+len(d.Constraints)+len(d.BOMAdded)+len(d.BOMRemoved)+len(d.BOMChanged) == 0
}

// DiffDocs compares the doc files of two sides. A file that does not parse
// on a side is noted and compared as absent.
func DiffDocs(base, head Docs) DocChanges {
	var d DocChanges
	note := func(side, file string, err error) {
		d.Notes = append(d.Notes, fmt.Sprintf("%s: %s: %v", side, file, err))
	}

	specBudgets := func(b []byte) map[string]float64 {
		if b == nil {
			return nil
		}
		return design.ParseBudgets(b).Values
	}
	d.SpecBudgets = diffValues(specBudgets(base.Spec), specBudgets(head.Spec))

	cfgBudgets := func(name string, b []byte) map[string]float64 {
		if b == nil {
			return nil
		}
		cfg, err := config.ParseConfig(b, config.ConfigPath)
		if err != nil {
			note(name, config.ConfigPath, err)
			return nil
		}
		return cfg.Budgets
	}
	d.ConfigBudgets = diffValues(cfgBudgets("base", base.Config), cfgBudgets("head", head.Config))

	entries := func(name string, b []byte) map[string]string {
		if b == nil {
			return nil
		}
		m, err := canonicalEntries(b)
		if err != nil {
			note(name, config.ConstraintsPath, err)
			return nil
		}
		return m
	}
	d.Constraints = diffEntries(entries("base", base.Constraints), entries("head", head.Constraints))

	bom := func(name string, b []byte) map[string]design.BOMRow {
		if b == nil {
			return nil
		}
		rows, err := design.ParseBOM(b)
		if err != nil {
			note(name, "BOM.md", err)
			return nil
		}
		out := map[string]design.BOMRow{}
		for _, r := range rows {
			if _, dup := out[r.Refdes]; !dup { // the first row of a duplicate, like drift reads it
				out[r.Refdes] = r
			}
		}
		return out
	}
	bb, hb := bom("base", base.BOM), bom("head", head.BOM)
	for _, ref := range sortedRefs(hb) {
		if _, ok := bb[ref]; !ok {
			d.BOMAdded = append(d.BOMAdded, hb[ref])
		}
	}
	for _, ref := range sortedRefs(bb) {
		h, ok := hb[ref]
		if !ok {
			d.BOMRemoved = append(d.BOMRemoved, bb[ref])
			continue
		}
		b := bb[ref]
		var ch []FieldChange
		for _, f := range [][3]string{{"value", b.Value, h.Value}, {"footprint", b.Footprint, h.Footprint}, {"mpn", b.MPN, h.MPN}, {"rationale", b.Rationale, h.Rationale}} {
			if f[1] != f[2] {
				ch = append(ch, FieldChange{Field: f[0], Old: f[1], New: f[2]})
			}
		}
		if len(ch) > 0 {
			d.BOMChanged = append(d.BOMChanged, RowChange{Refdes: ref, Changes: ch})
		}
	}
	return d
}

func sortedRefs[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, kicad.CompareRefdes)
	return keys
}

// unionKeys is every key of b or h, sorted.
func unionKeys[V any](b, h map[string]V) []string {
	keys := slices.Collect(maps.Keys(b))
	for k := range h {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// diffValues compares two budget maps key by key.
func diffValues(b, h map[string]float64) []ValueChange {
	keys := unionKeys(b, h)
	var out []ValueChange
	for _, k := range keys {
		bv, inB := b[k]
		hv, inH := h[k]
		if inB && inH && (bv == hv || bv != bv && hv != hv) {
			continue
		}
		c := ValueChange{Key: k}
		if inB {
			c.Old = &bv
		}
		if inH {
			c.New = &hv
		}
		out = append(out, c)
	}
	return out
}

// canonicalEntries reads constraints.json into key -> the entry's JSON with
// sorted keys, so formatting alone is no change.
func canonicalEntries(data []byte) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("top level must be a JSON object")
	}
	out := map[string]string{}
	for k, v := range raw {
		c, err := canonical(v)
		if err != nil {
			return nil, fmt.Errorf("constraint %q: %v", k, err)
		}
		out[k] = c
	}
	return out, nil
}

func canonical(v []byte) (string, error) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// diffEntries compares two canonical constraint registries.
func diffEntries(b, h map[string]string) []EntryChange {
	keys := unionKeys(b, h)
	var out []EntryChange
	for _, k := range keys {
		bv, inB := b[k]
		hv, inH := h[k]
		switch {
		case inB && inH && bv == hv:
		case !inB:
			out = append(out, EntryChange{Key: k, Change: "added", New: hv})
		case !inH:
			out = append(out, EntryChange{Key: k, Change: "removed", Old: bv})
		default:
			out = append(out, EntryChange{Key: k, Change: "changed", Old: bv, New: hv, Changes: entryFields(bv, hv)})
		}
	}
	return out
}

// entryFields lists the top-level keys of two entries' JSON that differ.
func entryFields(b, h string) []FieldChange {
	var bm, hm map[string]json.RawMessage
	if json.Unmarshal([]byte(b), &bm) != nil || json.Unmarshal([]byte(h), &hm) != nil {
		return []FieldChange{{Field: "", Old: b, New: h}}
	}
	var out []FieldChange
	for _, k := range unionKeys(bm, hm) {
		if string(bm[k]) != string(hm[k]) {
			out = append(out, FieldChange{Field: k, Old: string(bm[k]), New: string(hm[k])})
		}
	}
	return out
}

// formatValue shows a budget value, "—" when absent.
func formatValue(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
