package outputs

import (
	"fmt"
	"maps"
	"slices"

	"copperhead/internal/fab"
	"copperhead/internal/kicadcli"
)

// FabProfile is how one board house wants its Gerbers and drill files.
type FabProfile struct {
	Name   string // "jlcpcb", the --fab value
	Label  string // "JLCPCB", for humans
	Gerber kicadcli.GerberOptions
	Drill  kicadcli.DrillOptions
	// Supplier is the default BOM supplier for this fab's assembly service.
	Supplier string
	// Source says where the settings come from, for the manifest's reader.
	Source string
}

// fabLayers are the layers both houses ask for: copper (every inner layer a
// board may have: kicad-cli skips the ones it lacks), paste for the stencil,
// silkscreen, solder mask and the outline. Fab, courtyard and user layers
// are left out: a fab's CAM would read them as artwork.
var fabLayers = func() []string {
	l := []string{"F.Cu", "B.Cu"}
	for i := 1; i <= 30; i++ {
		l = append(l, fmt.Sprintf("In%d.Cu", i))
	}
	return append(l, "F.Paste", "B.Paste", "F.Silkscreen", "B.Silkscreen", "F.Mask", "B.Mask", "Edge.Cuts")
}()

// Profiles are the fab profiles copperhead ships. Both follow the houses'
// published KiCad guides (and the Gerber Zipper plugin's recipes that encode
// them): Protel file extensions (kicad-cli's default), 4.6 coordinates, no X2
// attributes or netlist, absolute drill origin, metric Excellon.
//
//   - JLCPCB: silkscreen clipped by the solder mask; PTH and NPTH in separate
//     drill files, decimal zeros, alternate oval-hole mode, full header, and a
//     Gerber X2 drill map (JLCPCB asks for one: it tells plated from
//     non-plated holes and counts slots).
//   - PCBWay: PTH and NPTH merged into one drill file, leading zeros
//     suppressed, oval holes as routed slots, minimal header, no map.
var Profiles = map[string]FabProfile{
	"jlcpcb": {
		Name: "jlcpcb", Label: "JLCPCB", Supplier: "jlcpcb",
		Gerber: kicadcli.GerberOptions{Layers: fabLayers, SubtractSoldermask: true, NoX2: true, NoNetlist: true, Precision: 6},
		Drill:  kicadcli.DrillOptions{Units: "mm", Zeros: "decimal", OvalFormat: "alternate", SeparateTH: true, MapFormat: "gerberx2"},
		Source: "JLCPCB's KiCad Gerber/drill guide",
	},
	"pcbway": {
		Name: "pcbway", Label: "PCBWay", Supplier: "digikey",
		Gerber: kicadcli.GerberOptions{Layers: fabLayers, NoX2: true, NoNetlist: true, Precision: 6},
		Drill:  kicadcli.DrillOptions{Units: "mm", Zeros: "suppressleading", OvalFormat: "route", MinimalHeader: true},
		Source: "PCBWay's KiCad Gerber/drill guide",
	},
}

// FabNames lists the profiles, sorted: what --fab accepts. The houses are
// internal/fab's table (the one the layout engine takes its board rules
// from); Profiles holds a recipe for each of them (TestProfilesAreFabHouses).
func FabNames() []string { return slices.Sorted(maps.Keys(Profiles)) }

// Profile returns the named fab profile ("" is fab.Default).
func Profile(name string) (FabProfile, error) {
	h, err := fab.Lookup(name)
	if err != nil {
		return FabProfile{}, err
	}
	p, ok := Profiles[h.Name]
	if !ok {
		return FabProfile{}, fmt.Errorf("no Gerber recipe for fab %q", h.Name)
	}
	return p, nil
}
