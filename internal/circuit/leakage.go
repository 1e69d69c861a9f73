package circuit

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"copperhead/internal/kicad"
)

// PullUp is one pull-up resistor and what it draws.
type PullUp struct {
	Refdes   string   `json:"refdes"`
	Value    string   `json:"value"`
	Ohms     float64  `json:"ohms"`
	Rail     string   `json:"rail"`
	Volts    float64  `json:"volts"`
	Net      string   `json:"net"`                 // the signal net it pulls up
	Keys     []string `json:"keys,omitempty"`      // key/connector pins on Net ("J3.2")
	PullDown []string `json:"pull_down,omitempty"` // resistors from Net to ground ("R11 47k")
	IdleUA   float64  `json:"idle_uA"`             // drawn while asleep (keys open)
	HeldUA   float64  `json:"held_uA"`             // drawn while a key on Net is held; 0 without a key
}

// Leakage is the model's result for a whole design.
type Leakage struct {
	PullUps []PullUp `json:"pull_ups"`
	IdleUA  float64  `json:"idle_uA"` // sum of PullUps[].IdleUA: what the budget counts
	HeldUA  float64  `json:"held_uA"` // sum of PullUps[].HeldUA: every key held at once
	// Budget is the strictest sleep_current_uA declared anywhere (SPEC.md,
	// config.json, constraints.json), nil when none is; BudgetSource says
	// where it is declared. SleepLeakage leaves both empty: the requirement
	// analysis (internal/consistency) fills them in.
	Budget       *float64 `json:"budget_uA"`
	BudgetSource string   `json:"budget_source,omitempty"`
	Notes        []string `json:"notes"`
}

// SleepLeakage applies the leakage model to a netlist: it estimates the
// current that resistors alone draw from the supply rails while the device
// sleeps, from the netlist and part values:
//
//   - A pull-up is a resistor (refdes R<n>) with one pin on a supply rail of
//     known voltage and the other on a signal net (not a rail, not ground,
//     not unconnected).
//   - The rail voltage comes from the net name: 3V3 and +3V3 are 3.3 V, 1V8 is
//     1.8 V, 5V and +3.3V read as written; VBAT, VBATT, BAT and BAT+ are 4.2 V,
//     a full Li-ion cell, the worst case. VBUS and USB rails are left out: they
//     exist only while USB powers the device, when battery drain is moot.
//     Other rails (VSYS, VCC) have no voltage in the name and are listed in
//     Notes, not counted. A rail-like name with a signal word (VBAT_SENSE,
//     3V3_EN) is a signal, not a rail.
//   - Sleep state: every key and switch is open and every MCU pin is an input.
//     A pull-up then draws current only through a DC path to ground that does
//     not pass a key: a resistor from its signal net to ground (a divider,
//     the classic battery-sense leak, or a pull-down added on a line that a
//     pull-up holds high), or a pull-up to a lower rail on the same net.
//     Every signal net settles where its resistor currents balance,
//     Vnet = Σ(Vi/Rup_i) / (Σ 1/Rup_i + Σ 1/Rdown_j), and each pull-up draws
//     (Vi − Vnet) / Rup_i from its rail: V / (Rup + Rdown) for one pull-up
//     and one pull-down. A pull-up to a key or an input, or several to the
//     same rail, draws nothing: this is what the budget counts (IdleUA).
//   - A resistor straight from a rail to ground (a bleeder) draws V / R in
//     every state; it is listed as a pull-up whose Net is the ground.
//   - A resistor marked do-not-populate (KiCad's dnp flag) is not fitted and
//     carries no current.
//   - Held state: a key closed holds its net at ground, and a pull-up on a
//     net with a key pin (refdes J, P, SW, S, K, CN, KEY) draws V / Rup. That
//     is HeldUA: reported for a reviewer, never checked against the sleep
//     budget, because a held key wakes the device. The bundled board's 10k
//     pull-ups on KEY_DIT and KEY_DAH draw 330 µA each while held and nothing
//     while open; a 100k pull-up on KEY_DAH (the AC-3.4 example) would draw
//     33 µA while held, nothing while open.
//
// Limits: IC quiescent and pin leakage currents are not modelled (they need
// datasheet numbers), nor LEDs, transistors, a net an IC output drives, or
// resistor chains longer than rail–net–ground. The idle total is therefore a lower bound on the sleep
// current: exceeding the budget with it is a certain violation, staying
// under it is not proof of compliance.
func SleepLeakage(nl *kicad.Netlist) Leakage {
	l := Leakage{PullUps: []PullUp{}, Notes: []string{}}
	if nl == nil {
		return l
	}
	comps := map[string]kicad.NetComponent{}
	for _, c := range nl.Components {
		comps[c.Refdes] = c
	}
	// Each resistor's two nets.
	resNets := map[string][]string{}
	onNet := map[string][]kicad.NetNode{}
	for _, n := range nl.Nets {
		onNet[n.Name] = n.Nodes
		for _, nd := range n.Nodes {
			if _, dnp := comps[nd.Refdes].Properties["dnp"]; dnp {
				continue // not fitted: no current path
			}
			if isResistor(nd.Refdes) && !slices.Contains(resNets[nd.Refdes], n.Name) {
				resNets[nd.Refdes] = append(resNets[nd.Refdes], n.Name)
			}
		}
	}
	unconnected := map[string]bool{}
	for _, n := range nl.Nets {
		unconnected[n.Name] = IsNoConnect(n)
	}
	ohms := func(ref string) (float64, bool) { return ParseOhms(comps[ref].Value) }

	// Pull-ups on signal nets, by net: their idle current depends on every
	// resistor on the net, so it is computed once the net is complete.
	bySig := map[string][]int{}
	downs := map[string][]float64{}
	for _, ref := range slices.SortedFunc(maps.Keys(resNets), kicad.CompareRefdes) {
		nets := resNets[ref]
		if len(nets) != 2 {
			continue
		}
		for i := range 2 {
			rail, sig := nets[i], nets[1-i]
			if !IsRail(rail) || IsRail(sig) || unconnected[sig] {
				continue
			}
			v, known := RailVolts(rail)
			if !known {
				if !excludedRail(rail) {
					l.Notes = append(l.Notes, fmt.Sprintf("%s pulls %s up to %s, whose voltage the name does not give: not counted", ref, sig, rail))
				}
				continue
			}
			r, ok := ohms(ref)
			if !ok || r <= 0 {
				l.Notes = append(l.Notes, fmt.Sprintf("%s pulls %s up to %s but its value %q is not a resistance: not counted", ref, sig, rail, comps[ref].Value))
				continue
			}
			pu := PullUp{Refdes: ref, Value: comps[ref].Value, Ohms: r, Rail: rail, Volts: v, Net: sig}
			if IsGround(sig) {
				// A bleeder straight across the rail: always drawing.
				pu.IdleUA = microamps(v / r)
				l.PullUps = append(l.PullUps, pu)
				continue
			}
			if _, seen := downs[sig]; !seen {
				downs[sig] = []float64{}
				for _, nd := range onNet[sig] {
					if nd.Refdes == ref || !isResistor(nd.Refdes) || len(resNets[nd.Refdes]) != 2 {
						continue
					}
					other := resNets[nd.Refdes][0]
					if other == sig {
						other = resNets[nd.Refdes][1]
					}
					if rd, ok := ohms(nd.Refdes); ok && rd > 0 && IsGround(other) {
						downs[sig] = append(downs[sig], rd)
					}
				}
			}
			for _, nd := range onNet[sig] {
				switch {
				case nd.Refdes == ref:
				case isKey(nd.Refdes):
					pu.Keys = appendNew(pu.Keys, nd.Refdes+"."+nd.Pin)
				case isResistor(nd.Refdes) && len(resNets[nd.Refdes]) == 2:
					other := resNets[nd.Refdes][0]
					if other == sig {
						other = resNets[nd.Refdes][1]
					}
					if rd, ok := ohms(nd.Refdes); ok && rd > 0 && IsGround(other) {
						pu.PullDown = appendNew(pu.PullDown, nd.Refdes+" "+comps[nd.Refdes].Value)
					}
				}
			}
			if len(pu.Keys) > 0 {
				pu.HeldUA = microamps(v / r)
			}
			bySig[sig] = append(bySig[sig], len(l.PullUps))
			l.PullUps = append(l.PullUps, pu)
		}
	}
	// Each signal net settles where the currents through its resistors
	// balance: Vnet = Σ(Vi/Ri) / (Σ 1/Ri + Σ 1/Rdown). A pull-up draws
	// (Vi − Vnet)/Ri from its rail; one on a net held at its own rail's
	// level draws nothing, and none draws a negative current (a rail fed
	// from a higher one is not a saving).
	for sig, idx := range bySig {
		num, den := 0.0, 0.0
		for _, i := range idx {
			num += l.PullUps[i].Volts / l.PullUps[i].Ohms
			den += 1 / l.PullUps[i].Ohms
		}
		for _, rd := range downs[sig] {
			den += 1 / rd
		}
		vnet := num / den
		for _, i := range idx {
			if a := (l.PullUps[i].Volts - vnet) / l.PullUps[i].Ohms; a > 0 {
				l.PullUps[i].IdleUA = microamps(a)
			}
		}
	}
	for _, p := range l.PullUps {
		l.IdleUA += p.IdleUA
		l.HeldUA += p.HeldUA
	}
	l.IdleUA, l.HeldUA = round3(l.IdleUA), round3(l.HeldUA)
	return l
}

var keyPrefixes = []string{"J", "P", "SW", "S", "K", "CN", "KEY"}

func isKey(refdes string) bool      { return slices.Contains(keyPrefixes, refdesPrefix(refdes)) }
func isResistor(refdes string) bool { return refdesPrefix(refdes) == "R" }

func refdesPrefix(refdes string) string {
	i := 0
	for i < len(refdes) && (refdes[i] < '0' || refdes[i] > '9') {
		i++
	}
	return strings.ToUpper(refdes[:i])
}

func microamps(a float64) float64 { return round3(a * 1e6) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
