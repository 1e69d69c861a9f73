package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"copperhead/internal/fab"
	"copperhead/internal/kicad/kigen"
)

// powerClass is the net class the draft puts power nets in: the house's
// power width, the Default class's clearance and vias.
const powerClass = "Power"

// projectFile returns the drafted .kicad_pro: the one at pro (a new one when
// it is missing) with the house's board rules as DRC's constraints
// (clearance, track width, via diameter and drill, minimum hole, annular
// ring, hole-to-hole, hole clearance), the Default net class set to what the
// draft routes with, a Power net class (wider tracks) holding the power nets
// by name, and with markDraft unconnected items as warnings. Every other
// setting, and any other net class, is kept.
func projectFile(pro string, h fab.House, markDraft bool, powerNets []string) ([]byte, error) {
	doc := map[string]any{}
	data, err := os.ReadFile(pro)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("read %s: %w", pro, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", pro, err)
	}
	obj := func(m map[string]any, k string) map[string]any {
		if v, ok := m[k].(map[string]any); ok {
			return v
		}
		v := map[string]any{}
		m[k] = v
		return v
	}
	r := h.Rules
	ds := obj(obj(doc, "board"), "design_settings")
	rules := obj(ds, "rules")
	for k, v := range map[string]float64{
		"min_clearance":             r.MinClearance,
		"min_track_width":           r.MinTrackWidth,
		"min_via_diameter":          r.MinViaDiameter,
		"min_through_hole_diameter": r.MinThroughHole,
		"min_via_annular_width":     r.MinAnnularRing,
		"min_hole_to_hole":          r.MinHoleToHole,
		"min_hole_clearance":        r.MinHoleClearance,
		"min_copper_edge_clearance": r.EdgeClearance,
	} {
		rules[k] = v
	}
	if markDraft {
		obj(ds, "rule_severities")["unconnected_items"] = "warning"
	}
	ns := obj(doc, "net_settings")
	var classes []any
	if cs, ok := ns["classes"].([]any); ok {
		classes = cs
	}
	var def map[string]any
	kept := []any{}
	for _, c := range classes {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		switch m["name"] {
		case "Default":
			def = m
		case powerClass:
			continue // rewritten below
		}
		kept = append(kept, m)
	}
	if def == nil {
		def = defaultNetClass()
		kept = append([]any{def}, kept...)
	}
	def["clearance"], def["track_width"] = r.Clearance, r.TrackWidth
	def["via_diameter"], def["via_drill"] = r.ViaDiam, r.ViaDrill
	power := map[string]any{}
	for k, v := range def {
		power[k] = v
	}
	power["name"], power["track_width"], power["priority"] = powerClass, r.PowerWidth, 0
	kept = append(kept, power)
	ns["classes"] = kept
	var patterns []any
	if ps, ok := ns["netclass_patterns"].([]any); ok {
		for _, p := range ps {
			if m, ok := p.(map[string]any); ok && m["netclass"] == powerClass {
				continue
			}
			patterns = append(patterns, p)
		}
	}
	names := slices.Clone(powerNets)
	slices.Sort(names)
	for _, n := range names {
		patterns = append(patterns, map[string]any{"netclass": powerClass, "pattern": n})
	}
	if patterns == nil {
		patterns = []any{}
	}
	ns["netclass_patterns"] = patterns
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// defaultNetClass is KiCad 9's Default net class, for a project file that
// has none.
func defaultNetClass() map[string]any {
	return map[string]any{
		"bus_width": 12, "clearance": 0.2, "diff_pair_gap": 0.25, "diff_pair_via_gap": 0.25,
		"diff_pair_width": 0.2, "line_style": 0, "microvia_diameter": 0.3, "microvia_drill": 0.1,
		"name": "Default", "pcb_color": "rgba(0, 0, 0, 0.000)", "priority": 2147483647,
		"schematic_color": "rgba(0, 0, 0, 0.000)", "track_width": 0.25, "via_diameter": 0.6,
		"via_drill": 0.3, "wire_width": 6,
	}
}

// boardRulesText says a house's rules in one line, for the CLI and the
// Draft quality section.
func boardRulesText(h fab.House) string {
	r := h.Rules
	n := kigen.Num
	return fmt.Sprintf("%s (%s): clearance %s mm (minimum %s), tracks %s mm and %s mm for power (minimum %s), vias %s/%s mm (minimum %s/%s, ring %s), holes from %s mm, hole to hole %s mm",
		h.Label, h.Source, n(r.Clearance), n(r.MinClearance), n(r.TrackWidth), n(r.PowerWidth), n(r.MinTrackWidth),
		n(r.ViaDiam), n(r.ViaDrill), n(r.MinViaDiameter), n(r.MinViaDrill), n(r.MinAnnularRing), n(r.MinThroughHole), n(r.MinHoleToHole))
}
