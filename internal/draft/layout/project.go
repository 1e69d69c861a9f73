package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// designRules are the numbers from the project's .kicad_pro that decide
// whether a track or via passes DRC. Checks use the largest clearance any
// net class asks for, so a draft never depends on which class a net falls
// into.
type designRules struct {
	Clearance     float64 // copper to copper
	HoleClearance float64 // copper to a hole of another net
	EdgeClearance float64 // copper to the board edge
	HoleToHole    float64 // hole edge to hole edge
	SignalWidth   float64
	PowerWidth    float64
	ViaDiameter   float64
	ViaDrill      float64
}

// KiCad 9's defaults for a project without a .kicad_pro (or one that leaves
// a number out).
const (
	defaultClearance     = 0.2
	defaultHoleClearance = 0.25
	defaultEdgeClearance = 0.5
	defaultHoleToHole    = 0.25
	defaultTrackWidth    = 0.25
	defaultViaDiameter   = 0.6
	defaultViaDrill      = 0.3
	// powerTrackWidth is the draft's width for power nets when the project
	// has no Power class: twice a signal track, comfortably above 1 A on
	// outer 1 oz copper for short runs. A human sizes it properly (the
	// Draft quality section says so).
	powerTrackWidth = 0.5
)

// proFile is the part of a .kicad_pro the engine reads.
type proFile struct {
	Board struct {
		DesignSettings struct {
			Rules map[string]any `json:"rules"`
		} `json:"design_settings"`
	} `json:"board"`
	NetSettings struct {
		Classes []struct {
			Name        string  `json:"name"`
			Clearance   float64 `json:"clearance"`
			TrackWidth  float64 `json:"track_width"`
			ViaDiameter float64 `json:"via_diameter"`
			ViaDrill    float64 `json:"via_drill"`
		} `json:"classes"`
	} `json:"net_settings"`
}

// readDesignRules reads the design rules from the .kicad_pro at path; a
// missing file gives KiCad's defaults.
func readDesignRules(path string) (designRules, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return designRules{}, fmt.Errorf("read design rules: %w", err)
	}
	r, err := parseDesignRules(data)
	if err != nil {
		return r, fmt.Errorf("read design rules from %s: %w", filepath.Base(path), err)
	}
	return r, nil
}

// parseDesignRules reads the design rules from a .kicad_pro's bytes; nil
// gives KiCad's defaults. The Default class sets the clearance when there
// is one (else KiCad's default), every other class and min_clearance can
// only raise it.
func parseDesignRules(data []byte) (designRules, error) {
	r := designRules{
		Clearance: defaultClearance, HoleClearance: defaultHoleClearance, EdgeClearance: defaultEdgeClearance,
		HoleToHole: defaultHoleToHole, SignalWidth: defaultTrackWidth, PowerWidth: powerTrackWidth,
		ViaDiameter: defaultViaDiameter, ViaDrill: defaultViaDrill,
	}
	if data == nil {
		return r, nil
	}
	var pro proFile
	if err := json.Unmarshal(data, &pro); err != nil {
		return r, err
	}
	num := func(key string) (float64, bool) {
		v, ok := pro.Board.DesignSettings.Rules[key].(float64)
		return v, ok && v >= 0 && v < 100
	}
	sane := func(v float64) bool { return v > 0 && v < 100 }
	clearance := 0.0
	powerWidth := 0.0
	for _, c := range pro.NetSettings.Classes {
		if sane(c.Clearance) {
			clearance = math.Max(clearance, c.Clearance)
		}
		switch c.Name {
		case "Default":
			if sane(c.TrackWidth) {
				r.SignalWidth = c.TrackWidth
			}
			if sane(c.ViaDiameter) && sane(c.ViaDrill) && c.ViaDrill < c.ViaDiameter {
				r.ViaDiameter, r.ViaDrill = c.ViaDiameter, c.ViaDrill
			}
		case powerClass:
			if sane(c.TrackWidth) {
				powerWidth = c.TrackWidth
			}
		}
	}
	if clearance > 0 {
		r.Clearance = clearance
	}
	if v, ok := num("min_clearance"); ok {
		r.Clearance = math.Max(r.Clearance, v)
	}
	if v, ok := num("min_hole_clearance"); ok {
		r.HoleClearance = math.Max(r.HoleClearance, v)
	}
	if v, ok := num("min_hole_to_hole"); ok {
		r.HoleToHole = math.Max(r.HoleToHole, v)
	}
	if v, ok := num("min_copper_edge_clearance"); ok {
		r.EdgeClearance = math.Max(v, defaultEdgeClearance)
	}
	if v, ok := num("min_track_width"); ok {
		r.SignalWidth = math.Max(r.SignalWidth, v)
	}
	if v, ok := num("min_via_diameter"); ok {
		r.ViaDiameter = math.Max(r.ViaDiameter, v)
	}
	if powerWidth > 0 {
		r.PowerWidth = math.Max(powerWidth, r.SignalWidth)
	} else {
		r.PowerWidth = math.Max(powerTrackWidth, r.SignalWidth)
	}
	return r, nil
}

// symbolPaths maps each reference to the board path of the symbol it was
// placed from ("/<sheet uuids>/<symbol uuid>", the root sheet left out), the
// link KiCad's "Update PCB from Schematic" follows. The instance data of
// every sheet file is read; a multi-unit symbol links through its lowest
// unit. KiCad 6 files keep the same data in the root's symbol_instances.
func symbolPaths(sch *kicad.Schematic) (map[string]string, error) {
	rootDir := filepath.Dir(sch.Root)
	rootNode, _, err := sexpr.ParseFile(sch.Root)
	if err != nil {
		return nil, fmt.Errorf("read symbol paths: %w", err)
	}
	type best struct {
		path string
		unit int
	}
	found := map[string]best{}
	offer := func(ref, path string, unit int) {
		if b, ok := found[ref]; !ok || unit < b.unit {
			found[ref] = best{path, unit}
		}
	}
	if si := rootNode.Child("symbol_instances"); si != nil {
		for p := range si.All("path") {
			unit := atoiOr(p.Value1("unit"), 1)
			offer(p.Value1("reference"), p.Arg(0), unit)
		}
	}
	// Per sheet instance, the one entry kicad.PickInstance says is this
	// design's (another project's leftover entries never count).
	rootUUID, project := rootNode.Value1("uuid"), kicad.ProjectName(sch.Root)
	parsed := map[string]*sexpr.Node{sch.Root: rootNode}
	for _, si := range sch.Sheets {
		f := sch.Root
		if si.Path != "/" {
			f = filepath.Join(rootDir, filepath.FromSlash(si.File))
		}
		n, ok := parsed[f]
		if !ok {
			if n, _, err = sexpr.ParseFile(f); err != nil {
				return nil, fmt.Errorf("read symbol paths: %w", err)
			}
			parsed[f] = n
		}
		for sym := range n.All("symbol") {
			uuid := sym.Value1("uuid")
			if uuid == "" || sym.Child("lib_id") == nil {
				continue
			}
			var entries []*sexpr.Node
			names := map[*sexpr.Node]string{}
			for inst := range sym.All("instances") {
				for proj := range inst.All("project") {
					for p := range proj.All("path") {
						entries = append(entries, p)
						names[p] = proj.Arg(0)
					}
				}
			}
			e := kicad.PickInstance(entries, func(p **sexpr.Node) (string, string) { return names[*p], (*p).Arg(0) }, project, rootUUID, si.UUIDPath)
			if e == nil {
				continue
			}
			unit := atoiOr((*e).Value1("unit"), atoiOr(sym.Value1("unit"), 1))
			offer((*e).Value1("reference"), kicad.LegacyInstancePath(si.UUIDPath, uuid), unit)
		}
	}
	out := make(map[string]string, len(found))
	for ref, b := range found {
		out[ref] = b.path
	}
	return out, nil
}

func atoiOr(s string, dflt int) int {
	n := 0
	if s == "" {
		return dflt
	}
	for _, c := range s {
		if c < '0' || c > '9' || n > 1e6 {
			return dflt
		}
		n = n*10 + int(c-'0')
	}
	return n
}
