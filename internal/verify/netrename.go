package verify

import (
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/netdiff"
)

// NetRename is a net of the baseline revision that the working tree holds
// under another name with the very same pins: netdiff's exact rename, the
// one rule copperhead diff reports renames by.
type NetRename struct {
	Old string `json:"old"`
	New string `json:"new"`
}

// RenameNets is the part of a netlist that ApplyBaseline reads to find the
// nets renamed since a baseline: its nets with their pins (netdiff's rename
// rule counts pins only). A baseline result kept for later (check's cache)
// needs no more of it: vme-wren's whole netlist is 4.3 MB of JSON, its nets
// 0.6 MB. nil for nil.
func RenameNets(nl *kicad.Netlist) *kicad.Netlist {
	if nl == nil {
		return nil
	}
	return &kicad.Netlist{Nets: nl.Nets}
}

// exactRenames lists the nets renamed between base and cur with their pin
// sets unchanged. A rename that also gained or lost pins is not one: the
// net really changed, so what KiCad says about it is news.
func exactRenames(base, cur *kicad.Netlist) []NetRename {
	if base == nil || cur == nil {
		return nil
	}
	var out []NetRename
	for _, r := range netdiff.DiffNetlists(base, cur).Renamed {
		if r.Exact {
			out = append(out, NetRename{Old: r.Old, New: r.New})
		}
	}
	return out
}

// netAliases rewrites the net names in KiCad's violation text so that a
// violation matches across a rename: each renamed net's old name becomes
// its new one, on both sides. The baseline's text then reads as the working
// tree's would, and the working tree's board, which names a net by the
// board's own net names until it is updated from the schematic (DRC items
// such as "Track [KEY_DAH] on F.Cu"), still matches a baseline that used
// the old name too. An old name is gone from the working tree's schematic
// (netdiff renames only names gone from one side and new on the other), so
// rewriting it there never merges two nets the schematic keeps apart.
//
// A name is replaced only whole, delimited as KiCad's texts delimit it
// ("[NET]" in a board item, "(NET)" in a parity message, "'LABEL'" in a
// schematic label); a net whose name is part of another's is left alone.
// A schematic label names its net by the label's text, not the net's full
// name: "Label 'SIG'" on sheet /Power/ is net /Power/SIG. Those short names
// are rewritten only in ERC violations on their own sheet.
type netAliases struct {
	full  map[string]string            // net name -> new net name
	short map[string]map[string]string // sheet path -> label text -> new label text
}

// newNetAliases indexes renames; nil when there are none.
func newNetAliases(renames []NetRename) *netAliases {
	if len(renames) == 0 {
		return nil
	}
	a := &netAliases{full: map[string]string{}, short: map[string]map[string]string{}}
	for _, r := range renames {
		a.full[r.Old] = r.New
		sheet, label, ok := splitNetName(r.Old)
		if !ok {
			continue
		}
		_, newLabel, _ := splitNetName(r.New)
		if a.short[sheet] == nil {
			a.short[sheet] = map[string]string{}
		}
		a.short[sheet][label] = newLabel
	}
	return a
}

// splitNetName cuts a hierarchical net name ("/Power/SIG") into its sheet
// path ("/Power/") and the label text ("SIG"); ok is false for a global
// name, which has no sheet path.
func splitNetName(name string) (sheet, label string, ok bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 || i == len(name)-1 {
		return "", name, false
	}
	return name[:i+1], name[i+1:], true
}

// rewrite is s with every renamed net's old name, as a whole name, replaced
// by its new one; sheet is the ERC violation's sheet ("" for DRC), whose
// label texts are rewritten too. One pass, longest name first at each
// position, so a replacement is never rewritten again.
func (a *netAliases) rewrite(s, sheet string) string {
	if a == nil {
		return s
	}
	tables := []map[string]string{a.full}
	if t := a.short[sheet]; sheet != "" && t != nil {
		tables = append(tables, t)
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && !isNameDelimiter(s[i-1]) {
			continue
		}
		from, to := longestName(s[i:], tables)
		if from == "" {
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(to)
		i += len(from) - 1
		done = i + 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// longestName is the longest old name of tables that s starts with as a
// whole name (followed by a delimiter or the end), and its replacement.
func longestName(s string, tables []map[string]string) (from, to string) {
	for _, t := range tables {
		for old, repl := range t {
			if len(old) <= len(from) || !strings.HasPrefix(s, old) {
				continue
			}
			if len(s) > len(old) && !isNameDelimiter(s[len(old)]) {
				continue
			}
			from, to = old, repl
		}
	}
	return from, to
}

// isNameDelimiter reports whether c ends a net name in KiCad's violation
// texts: "Pad 2 [GND] of C3", "Pad net (GND) doesn't match", "Label 'GND'",
// "Both GND and VCC are attached", "[GND, Power input, Line]".
func isNameDelimiter(c byte) bool {
	switch c {
	case ' ', '[', ']', '(', ')', '\'', '"', ',', ';':
		return true
	}
	return false
}
