package layout

import (
	"copperhead/internal/circuit"
	"regexp"
	"strings"
	"unicode"
)

// role is what a part is for placement: it decides where the part goes.
type role int

const (
	roleOther      role = iota
	roleAntenna         // an RF module or antenna: antenna end at a board edge, keepout honoured
	roleConnector       // on a board edge, mating side outward
	roleMounting        // a mounting hole: in a corner
	roleIC              // an integrated circuit: anchors its decoupling and crystal
	roleCrystal         // next to the IC it clocks
	roleDecoupling      // a capacitor between a power net and ground shared with an IC
	roleLoadCap         // a crystal's load capacitor: beside the crystal pin it loads
)

func (r role) String() string {
	return [...]string{"other", "antenna", "connector", "mounting hole", "IC", "crystal", "decoupling", "load capacitor"}[r]
}

// refPrefix is a reference's letters: "J" for J12, "IC" for IC3.
func refPrefix(ref string) string {
	i := strings.IndexFunc(ref, func(r rune) bool { return !unicode.IsLetter(r) })
	if i < 0 {
		return strings.ToUpper(ref)
	}
	return strings.ToUpper(ref[:i])
}

// fpLib is the library nickname of a footprint id ("Connector_USB").
func fpLib(id string) string {
	lib, _, _ := strings.Cut(id, ":")
	return lib
}

// rfHint matches library ids of parts that radiate: modules with a printed
// or chip antenna, and antennas themselves.
var rfHint = regexp.MustCompile(`(?i)(^RF_Module:|^RF_Antenna:|^RF_|antenna|ESP32|ESP8266|ESP-\d|WROOM|WROVER|nRF52.*module|RFM9|XBee|HC-05|CC1101)`)

// isAntenna: a part whose footprint or symbol names an RF module or an
// antenna, or whose footprint carries a rule area next to an "Antenna" note.
func isAntenna(p *part) bool {
	if rfHint.MatchString(p.FootprintID) || rfHint.MatchString(p.LibID) {
		// A bare RF IC (an nRF52 QFN) has no antenna on the part itself: only
		// module footprints (a rule area, an Antenna note or an RF_Module
		// library) count.
		return len(p.fp.Keepouts) > 0 || p.fp.HasAntennaText || strings.HasPrefix(p.FootprintID, "RF_Module:") || strings.HasPrefix(p.FootprintID, "RF_Antenna:")
	}
	return len(p.fp.Keepouts) > 0 && p.fp.HasAntennaText
}

// isConnector: J, P, CN, USB references, or any footprint from a Connector library.
func isConnector(p *part) bool {
	switch refPrefix(p.Refdes) {
	case "J", "P", "CN", "USB", "CON", "X":
		if refPrefix(p.Refdes) == "X" && isCrystalPart(p) {
			return false
		}
		return true
	}
	return strings.HasPrefix(fpLib(p.FootprintID), "Connector")
}

func isMountingHole(p *part) bool {
	return strings.HasPrefix(fpLib(p.FootprintID), "MountingHole") || refPrefix(p.Refdes) == "H" && strings.Contains(strings.ToLower(p.FootprintID), "mountinghole")
}

var crystalHint = regexp.MustCompile(`(?i)(crystal|resonator|oscillator|xtal)`)

func isCrystalPart(p *part) bool {
	return crystalHint.MatchString(p.FootprintID) || crystalHint.MatchString(p.LibID)
}

func isIC(p *part) bool {
	switch refPrefix(p.Refdes) {
	case "U", "IC":
		return true
	}
	return false
}

// baseName strips a hierarchical prefix: "/Power/VBUS" is "VBUS".
func baseName(net string) string {
	if i := strings.LastIndexByte(net, '/'); i >= 0 {
		return net[i+1:]
	}
	return net
}

// netKinds classifies nets: ground, and power (which includes ground).
type netKinds struct {
	ground map[string]bool
	power  map[string]bool
}

// classifyNets decides which nets carry power: the nets of power symbols,
// nets with a power pin on them, and nets named like a supply
// (circuit.IsSupplyName); grounds are circuit.IsGround's.
func classifyNets(nets []netInfo, powerSymbolNets []string) netKinds {
	k := netKinds{ground: map[string]bool{}, power: map[string]bool{}}
	sym := map[string]bool{}
	for _, n := range powerSymbolNets {
		sym[n] = true
	}
	for _, n := range nets {
		name := n.Name
		if strings.HasPrefix(name, "unconnected-(") || strings.HasPrefix(name, "Net-(") {
			continue
		}
		powerPin := false
		for _, nd := range n.Nodes {
			if strings.HasPrefix(nd.PinType, "power_in") || strings.HasPrefix(nd.PinType, "power_out") {
				powerPin = true
			}
		}
		if circuit.IsGround(name) {
			k.ground[name] = true
			k.power[name] = true
			continue
		}
		if sym[name] || sym[baseName(name)] || powerPin || circuit.IsSupplyName(name) {
			k.power[name] = true
		}
	}
	return k
}
