// Package devplan writes the deterministic skeleton of docs/DEVPLAN.md
// (spec §2.5, create stage 8): bring-up steps in power-tree order (rails
// before the MCU), test points, what to measure first, a risk list from the
// BOM rows nobody has verified, and a prototype order plan. Everything in it
// is derived from the design docs and the schematic, with no model; the
// create pipeline's devplan stage refines the prose later.
//
// It must never import llm, agent or research.
package devplan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

// DocName is the devplan's file name inside the docs folder.
const DocName = "DEVPLAN.md"

// Defaults of the order plan. Both houses' minimum PCB order is five boards;
// assembling two lets one be brought up while the other stays a known-good
// reference for comparison (ASSUMED, stated as such in the doc).
const (
	DefaultBoards    = 5
	DefaultAssembled = 2
)

// Input is what the skeleton is built from. Every field is optional: a
// missing one leaves its section saying what is missing.
type Input struct {
	Project   string
	Pinout    []design.PinoutRow // docs/PINOUT.md
	BOM       []design.BOMRow    // docs/BOM.md
	PowerNets []string           // the schematic's power-symbol nets
	Nets      []string           // every named net (labels, power nets, PINOUT nets)
	Budgets   map[string]float64 // SPEC.md's ## Budgets
	MCU       string             // "U1 (ESP32-S3-WROOM-1)", "" when none
	MCURef    string             // "U1"
	Firmware  string             // the firmware stage's status line (firmware.BuildStatus.Line)
	HappyPath string             // what the firmware scaffold does (firmware.HappyPath)
	Boards    int                // PCBs to order; 0 is DefaultBoards
	Assembled int                // boards to assemble; 0 is DefaultAssembled
}

// rail is one supply net in the power tree.
type rail struct {
	name      string
	depth     int      // 0: nothing in PINOUT.md produces it (an input, or a discrete power path)
	producers []string // "U4 (AP2112K-3.3) from VSYS"
}

// powerTree orders the supply rails: a rail produced by an IC's power_out
// pin comes after every rail on that IC's power_in pins. Rails come from
// power symbols, from power pins in PINOUT.md, and from rail-shaped net
// names (circuit.IsRail, the same rule sync's leakage model uses).
func powerTree(in Input) []rail {
	values := map[string]string{}
	for _, b := range in.BOM {
		values[b.Refdes] = b.Value
	}
	isRail := func(n string) bool {
		return n != "" && n != design.NCMarker && !circuit.IsGround(n) && !strings.HasPrefix(n, "Net-(") && !strings.HasPrefix(n, "unconnected-(")
	}
	names := map[string]bool{}
	for _, n := range in.PowerNets {
		if isRail(n) {
			names[n] = true
		}
	}
	for _, n := range in.Nets {
		if isRail(n) && circuit.IsRail(n) {
			names[n] = true
		}
	}
	ins := map[string][]string{}  // refdes -> rails on its power_in pins
	outs := map[string][]string{} // refdes -> rails on its power_out pins
	for _, r := range in.Pinout {
		if !isRail(r.Net) {
			continue
		}
		switch r.Type {
		case "power_in":
			names[r.Net] = true
			if !slices.Contains(ins[r.Refdes], r.Net) {
				ins[r.Refdes] = append(ins[r.Refdes], r.Net)
			}
		case "power_out":
			names[r.Net] = true
			if !slices.Contains(outs[r.Refdes], r.Net) {
				outs[r.Refdes] = append(outs[r.Refdes], r.Net)
			}
		}
	}
	producedBy := map[string][]string{} // rail -> refdes
	for ref, made := range outs {
		for _, n := range made {
			producedBy[n] = append(producedBy[n], ref)
		}
	}
	depth := map[string]int{}
	var visit func(n string, seen map[string]bool) int
	visit = func(n string, seen map[string]bool) int {
		if d, ok := depth[n]; ok {
			return d
		}
		if seen[n] { // a loop (charger and power path feeding each other): cut it
			return 0
		}
		seen[n] = true
		d := 0
		for _, ref := range producedBy[n] {
			for _, src := range ins[ref] {
				if src != n {
					d = max(d, visit(src, seen)+1)
				}
			}
		}
		depth[n] = d
		return d
	}
	var rails []rail
	for n := range names {
		r := rail{name: n, depth: visit(n, map[string]bool{})}
		refs := slices.Clone(producedBy[n])
		slices.SortFunc(refs, kicad.CompareRefdes)
		for _, ref := range refs {
			var from []string
			for _, src := range ins[ref] {
				if src != n {
					from = append(from, src)
				}
			}
			slices.Sort(from)
			p := ref
			if v := values[ref]; v != "" {
				p += " (" + v + ")"
			}
			if len(from) > 0 {
				p += " from " + strings.Join(from, ", ")
			}
			r.producers = append(r.producers, p)
		}
		rails = append(rails, r)
	}
	slices.SortFunc(rails, func(a, b rail) int {
		if a.depth != b.depth {
			return a.depth - b.depth
		}
		return strings.Compare(a.name, b.name)
	})
	return rails
}

// debugNet recognises programming and debug nets by their words: SWD, JTAG,
// reset and boot straps, UART, USB data, AVR ISP and UPDI.
var debugNet = regexp.MustCompile(`^(SWDIO|SWCLK|SWO|SWD|NRST|RESET|RST|EN|CHIP_EN|BOOT[0-9]?|BOOTSEL|TXD?[0-9]?|RXD?[0-9]?|UART[0-9]?_?(TX|RX)?|USB_D[PN+-]|D[+-]|MOSI|MISO|SCK|UPDI|TCK|TMS|TDI|TDO|JTAG\w*)$`)

// isDebugNet reports whether a net is for programming or debugging.
func isDebugNet(net string) bool {
	base := strings.ToUpper(net[strings.LastIndex(net, "/")+1:])
	return debugNet.MatchString(base)
}

// Generate renders the DEVPLAN.md skeleton. It is a pure function of in:
// the same design yields the same bytes.
func Generate(in Input) []byte {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	title := in.Project
	if title == "" {
		title = "Board"
	}
	w("# %s — Development plan\n\n", title)
	w("> Skeleton generated by copperhead from the design docs and the schematic, with no model. The create pipeline's devplan stage refines it; TODO(human) marks what a person must decide. Values marked ASSUMED are defaults nobody has confirmed.\n\n")

	rails := powerTree(in)
	mcuRails := map[string]bool{}
	for _, r := range in.Pinout {
		if r.Refdes == in.MCURef && r.Type == "power_in" && !circuit.IsGround(r.Net) {
			mcuRails[r.Net] = true
		}
	}

	w("## Bring-up\n\n")
	w("Power first, MCU last: every rail is checked, in power-tree order, before anything is programmed.\n\n")
	step := 0
	next := func(format string, a ...any) { step++; w("%d. "+format+"\n", append([]any{step}, a...)...) }
	next("Inspect the bare and the assembled board: solder bridges on fine-pitch parts, part orientation (diodes, ICs, polarised capacitors).")
	if len(rails) > 0 {
		next("Unpowered: measure the resistance from each rail to GND (%s). A reading near 0 Ω is a short: stop and find it.", railList(rails))
		var sources []string
		for _, r := range rails {
			if r.depth == 0 {
				sources = append(sources, r.name)
			}
		}
		next("Power the input from a current-limited bench supply (limit ASSUMED: 100 mA) and watch the current. Source rails (nothing in PINOUT.md regulates them: an input or a discrete power path): %s.", strings.Join(sources, ", "))
		for _, r := range rails {
			if r.depth == 0 {
				continue
			}
			mark := ""
			if mcuRails[r.name] {
				mark = " It supplies the MCU."
			}
			next("Measure %s (made by %s) against its nominal value before going on.%s", r.name, strings.Join(r.producers, "; "), mark)
		}
	} else {
		next("TODO(human): no supply rails found in PINOUT.md or the schematic's power symbols; list them and measure each before powering the MCU.")
	}
	if in.MCU != "" {
		var pins []string
		for _, r := range in.Pinout {
			if r.Refdes == in.MCURef && r.Type == "power_in" && !circuit.IsGround(r.Net) {
				pins = append(pins, fmt.Sprintf("pin %s %s", r.Pin, r.Net))
			}
		}
		if len(pins) > 0 {
			next("At the MCU %s, measure its supply pins: %s.", in.MCU, strings.Join(pins, ", "))
		}
		next("Connect the programmer on the programming/debug test points and program the firmware scaffold.")
	} else {
		next("TODO(human): no MCU recognised in the schematic: describe how the board is brought to life.")
	}
	if in.HappyPath != "" {
		next("Check the firmware happy path: %s.", in.HappyPath)
	}
	fw := in.Firmware
	if fw == "" {
		fw = "not generated yet (run `copperhead firmware`)"
	}
	w("\nFirmware: %s.\n\n", strings.TrimSuffix(fw, "."))

	w("## Test points\n\n")
	var power, debug []string
	for _, r := range rails {
		power = append(power, r.name)
	}
	nets := uniqueSorted(append(append(slices.Clone(in.Nets), in.PowerNets...), pinoutNets(in.Pinout)...))
	hasGND := false
	for _, n := range nets {
		switch {
		case circuit.IsGround(n):
			hasGND = hasGND || strings.EqualFold(n, "GND")
		case isDebugNet(n):
			debug = append(debug, n)
		}
	}
	if hasGND {
		power = append(power, "GND")
	}
	w("- Power: %s\n", orNone(power))
	w("- Programming and debug: %s\n", orNone(debug))
	w("\nCheck that each has a pad or via reachable by a probe on the board; add test points in the layout where one is missing.\n\n")

	w("## What to measure first\n\n")
	if len(rails) > 0 {
		w("- Each rail's resistance to GND (unpowered), then its voltage, in the order above.\n")
		w("- The input current at power-up, before and after the MCU starts.\n")
	}
	keys := make([]string, 0, len(in.Budgets))
	for k := range in.Budgets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w("- Budget `%s`: %s (SPEC.md); measure it on the assembled board.\n", k, formatNumber(in.Budgets[k]))
	}
	if len(rails) == 0 && len(keys) == 0 {
		w("- TODO(human): no rails or budgets found.\n")
	}
	w("\n")

	w("## Risks\n\n")
	var risks []string
	var passives []string
	for _, r := range in.BOM {
		flag := riskFlag(r)
		if flag == "" {
			continue
		}
		if isPassive(r.Refdes) && flag == design.MPNUnverified {
			passives = append(passives, r.Refdes)
			continue
		}
		risks = append(risks, fmt.Sprintf("- %s %s (%s): %s: confirm the part and its footprint against the datasheet before ordering.", r.Refdes, r.Value, r.Footprint, flag))
	}
	if len(passives) > 0 {
		risks = append(risks, fmt.Sprintf("- Passives with no verified MPN (%d): %s: choose parts (value, voltage, tolerance, size) before ordering.", len(passives), strings.Join(passives, ", ")))
	}
	if strings.HasPrefix(in.Firmware, "not compiled here") || strings.HasPrefix(in.Firmware, "build failed") {
		risks = append(risks, "- Firmware "+strings.TrimSuffix(in.Firmware, ".")+": build it on a machine with the toolchain before bring-up.")
	}
	if len(risks) == 0 {
		risks = append(risks, "- None recorded: no BOM row is marked UNVERIFIED or ASSUMED.")
	}
	w("%s\n\n", strings.Join(risks, "\n"))

	boards, assembled := in.Boards, in.Assembled
	if boards <= 0 {
		boards = DefaultBoards
	}
	if assembled <= 0 || assembled > boards {
		assembled = min(DefaultAssembled, boards)
	}
	w("## Order plan\n\n")
	w("Prototype run (ASSUMED): %d bare PCBs (the usual fab minimum), %d assembled. Parts for %d boards plus attrition: chip passives +10%% (at least 5), everything else +1.\n\n", boards, assembled, assembled)
	w("| Designators | Value | Footprint | Per board | Order |\n| --- | --- | --- | --- | --- |\n")
	for _, g := range groupBOM(in.BOM) {
		per := len(g.refs)
		order := per*assembled + 1
		if isPassive(g.refs[0]) {
			order = per*assembled + max(5, (per*assembled+9)/10)
		}
		w("| %s | %s | %s | %d | %d |\n", strings.Join(g.refs, ", "), escape(g.value), escape(g.footprint), per, order)
	}
	return []byte(b.String())
}

// Write writes the skeleton to docs/DEVPLAN.md (per cfg) in repo,
// atomically, and returns its repo-relative path.
func Write(repo string, cfg config.Config, doc []byte) (string, error) {
	rel := cfg.DocPath(DocName)
	if err := atomicfile.Write(filepath.Join(repo, filepath.FromSlash(rel)), doc, 0o644); err != nil {
		return "", err
	}
	return rel, nil
}

// FromRepo gathers the Input from a repository's docs and its loaded
// schematic (sch may be nil). firmwareLine and happyPath come from the
// firmware stage; mcu and mcuRef from its detection ("" when none). Missing
// docs leave their parts of the plan empty; a doc that cannot be read is an
// error.
func FromRepo(repo string, cfg config.Config, sch *kicad.Schematic, mcu, mcuRef, firmwareLine, happyPath string) (Input, error) {
	in := Input{MCU: mcu, MCURef: mcuRef, Firmware: firmwareLine, HappyPath: happyPath}
	read := func(name string) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(cfg.DocPath(name))))
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", cfg.DocPath(name), err)
		}
		return data, nil
	}
	if doc, err := read(design.PinoutDoc); err != nil {
		return in, err
	} else if doc != nil {
		in.Pinout, _ = design.ParsePinout(doc) // no table: no pins
	}
	if doc, err := read(design.BOMDoc); err != nil {
		return in, err
	} else if doc != nil {
		in.BOM, _ = design.ParseBOM(doc)
	}
	if doc, err := read(design.SpecDoc); err != nil {
		return in, err
	} else if doc != nil {
		in.Budgets = design.ParseBudgets(doc).Values
	}
	if sch != nil {
		in.Project = strings.TrimSuffix(filepath.Base(sch.Root), ".kicad_sch")
		in.PowerNets = slices.Clone(sch.PowerNets)
		for _, l := range sch.Labels {
			in.Nets = append(in.Nets, l.Name)
		}
	}
	return in, nil
}

// riskFlag is why a BOM row is a risk: UNVERIFIED or ASSUMED in its MPN or
// rationale, or "" when it is not one.
func riskFlag(r design.BOMRow) string {
	cells := strings.ToUpper(r.MPN + " " + r.Rationale)
	switch {
	case strings.HasPrefix(strings.ToUpper(r.Rationale), "DNP") || strings.HasPrefix(strings.ToUpper(r.Rationale), "NOT IN BOM"):
		return ""
	case strings.Contains(cells, "ASSUMED"):
		return "ASSUMED"
	case strings.TrimSpace(r.MPN) == "" || strings.Contains(cells, design.MPNUnverified):
		return design.MPNUnverified
	}
	return ""
}

// isPassive reports whether a reference names a chip passive (R, C, L, FB).
func isPassive(ref string) bool {
	p := strings.TrimRight(ref, "0123456789")
	return p == "R" || p == "C" || p == "L" || p == "FB"
}

type bomGroup struct {
	refs             []string
	value, footprint string
}

// groupBOM groups BOM rows by value and footprint, leaving out rows the
// generator flagged DNP or not in BOM; groups in order of first reference.
func groupBOM(rows []design.BOMRow) []bomGroup {
	index := map[[2]string]int{}
	var out []bomGroup
	for _, r := range rows {
		ra := strings.ToUpper(r.Rationale)
		if strings.HasPrefix(ra, "DNP") || strings.HasPrefix(ra, "NOT IN BOM") {
			continue
		}
		k := [2]string{r.Value, r.Footprint}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, bomGroup{value: r.Value, footprint: r.Footprint})
		}
		out[i].refs = append(out[i].refs, r.Refdes)
	}
	for i := range out {
		slices.SortFunc(out[i].refs, kicad.CompareRefdes)
	}
	slices.SortFunc(out, func(a, b bomGroup) int { return kicad.CompareRefdes(a.refs[0], b.refs[0]) })
	return out
}

func railList(rails []rail) string {
	var n []string
	for _, r := range rails {
		n = append(n, r.name)
	}
	return strings.Join(n, ", ")
}

func pinoutNets(rows []design.PinoutRow) []string {
	var out []string
	for _, r := range rows {
		if r.Net != design.NCMarker {
			out = append(out, r.Net)
		}
	}
	return out
}

func uniqueSorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none found"
	}
	return strings.Join(s, ", ")
}

func formatNumber(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".")
}

// escape keeps a table cell one cell: a "|" in a value would split it.
func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
