package schedit

import (
	"slices"
	"strconv"

	"copperhead/internal/kicad"
	"copperhead/internal/sexpr"
)

// design is what every sheet of one Design shares to resolve a placed
// symbol's references per sheet instance through kicad's one instance
// model (kicad.PickInstance).
type design struct {
	project  string // kicad.ProjectName of the root
	rootUUID string
	// legacy indexes a KiCad 6 root's (symbol_instances (path ..)) entries
	// by path; nil for KiCad 7+ designs.
	legacy map[string]*sexpr.Node
}

// symInstance is one placed symbol seen through one instance of its sheet.
type symInstance struct {
	sheet kicad.SheetInstance
	ref   string
	unit  int
	// legacy is the root's KiCad 6 (symbol_instances (path ..)) entry
	// for this instance, nil when the symbol annotates itself (KiCad 7+).
	legacy *sexpr.Node
}

// instanceEntry is one (instances (project P (path ..))) entry of a symbol.
type instanceEntry struct {
	project string
	node    *sexpr.Node // the (path ..)
}

// readLegacy indexes a KiCad 6 root's (symbol_instances ..) by path (the
// first entry of a path wins, as in the read model).
func readLegacy(root *sexpr.Node) map[string]*sexpr.Node {
	si := root.Child("symbol_instances")
	if si == nil {
		return nil
	}
	out := map[string]*sexpr.Node{}
	for p := range si.All("path") {
		if _, dup := out[p.Arg(0)]; !dup {
			out[p.Arg(0)] = p
		}
	}
	return out
}

// instancesOf resolves symbol n of sheet sh in every instance of sh, in
// hierarchy order: this design's KiCad 7+ entry, else the root's KiCad 6
// symbol_instances entry, else the symbol's Reference property (as the
// read model does). Other projects' entries are ignored.
func (sh *Sheet) instancesOf(n *sexpr.Node) []symInstance {
	var entries []instanceEntry
	for inst := range n.All("instances") {
		for proj := range inst.All("project") {
			for pa := range proj.All("path") {
				entries = append(entries, instanceEntry{proj.Arg(0), pa})
			}
		}
	}
	ref := propertyValue(n, "Reference")
	unit := atoiDefault(n.Value1("unit"), 1)
	id := n.Value1("uuid")
	var out []symInstance
	for _, si := range sh.insts {
		in := symInstance{sheet: si, ref: ref, unit: unit}
		var path *sexpr.Node
		if e := kicad.PickInstance(entries, func(e *instanceEntry) (string, string) { return e.project, e.node.Arg(0) },
			sh.design.project, sh.design.rootUUID, si.UUIDPath); e != nil {
			path = e.node
		} else if p, ok := sh.design.legacy[kicad.LegacyInstancePath(si.UUIDPath, id)]; ok {
			path, in.legacy = p, p
		}
		if path != nil {
			if r := path.Value1("reference"); r != "" {
				in.ref = r
			}
			if u := atoiDefault(path.Value1("unit"), 0); u > 0 {
				in.unit = u
			}
		}
		out = append(out, in)
	}
	return out
}

// refsOf is the distinct references of insts, in order.
func refsOf(insts []symInstance) []string {
	var refs []string
	for _, in := range insts {
		if in.ref != "" && !slices.Contains(refs, in.ref) {
			refs = append(refs, in.ref)
		}
	}
	return refs
}

// atoiDefault parses a decimal integer, or returns dflt.
func atoiDefault(s string, dflt int) int {
	if v, err := strconv.Atoi(s); err == nil {
		return v
	}
	return dflt
}
