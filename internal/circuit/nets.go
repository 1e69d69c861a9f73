package circuit

import (
	"regexp"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
)

var (
	railVnV = regexp.MustCompile(`(?:^|[^0-9.])([0-9]+)V([0-9]+)(?:$|[^0-9])`)
	railV   = regexp.MustCompile(`(?:^|[^0-9.A-Z])([0-9]+(?:\.[0-9]+)?)V(?:$|[^0-9A-Z])`)
	battery = regexp.MustCompile(`^V?BATT?\+?$`)
	// ground is every ground name either classifier knew before they were
	// one (sync's leakage model: GND…, AGND, DGND, VSS…, 0V; the layout
	// engine: PGND, SGND, CHASSISGND, EARTHGND, EARTH, any name starting
	// with GND), matched on the upper-cased base name.
	ground = regexp.MustCompile(`^(?:GND.*|(?:A|D|P|S|CHASSIS|EARTH)GND[A-Z0-9_]*|VSS[A-Z0-9_]*|0V|EARTH)$`)
	// supplyName is a net named like a supply by the broad rule placement
	// uses: +5V, -12V, 3V3, VCC, VDD_IO, VBUS, VBAT, VIN, VSYS, HT, -VAA.
	supplyName = regexp.MustCompile(`(?i)^[+-]|^\d+V\d*$|^\d+V\d*_|^V(CC|DD|BUS|BAT|IN|SYS|REF|CORE|IO|AA|SS|EE|PP|\d)|^(HT|VPP|AVCC|AVDD|DVDD|DVCC|PWR|VMOT|VLED)`)
	// railName is a supply rail by name alone, voltage or not.
	railName = regexp.MustCompile(`^(?:\+.+|V(?:CC|DD|SYS|IN|OUT|BATT?|BUS|USB|REF|IO)(?:[0-9]*|_[0-9A-Z]+)?)$`)
	// signalWord marks a net named after a rail that is a signal: a sense
	// divider's tap, an enable, a detect line (VBAT_SENSE, 3V3_EN).
	signalWord = regexp.MustCompile(`SENSE|SNS|ADC|DIV|MON|DET|_EN$|_EN_|PGOOD|_PG$`)
)

// netBase strips a hierarchical path and upper-cases: /power/VBAT is VBAT.
func netBase(net string) string {
	return strings.ToUpper(net[strings.LastIndex(net, "/")+1:])
}

// RailVolts is a supply rail's voltage as its name gives it (see the model).
func RailVolts(net string) (float64, bool) {
	n := netBase(net)
	if excludedRail(n) || signalWord.MatchString(n) {
		return 0, false
	}
	if battery.MatchString(n) {
		return 4.2, true
	}
	if m := railVnV.FindStringSubmatch(n); m != nil {
		v, err := strconv.ParseFloat(m[1]+"."+m[2], 64)
		return v, err == nil
	}
	if m := railV.FindStringSubmatch(n); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		return v, err == nil
	}
	return 0, false
}

// IsRail reports whether a net is a supply rail: a name that gives a voltage
// (3V3, +5V, VBAT) or a power-rail name (+…, VCC…, VDD…, VSYS, VIN, VBUS…).
func IsRail(net string) bool {
	n := netBase(net)
	if n == "" || IsGround(net) || signalWord.MatchString(n) {
		return false
	}
	_, known := RailVolts(net)
	return known || railName.MatchString(n)
}

// IsGround reports whether a net is a ground: GND and every name starting
// with it (GNDA, GNDPWR, GND_ISO), AGND, DGND, PGND, SGND, CHASSISGND,
// EARTHGND (each optionally followed by letters, digits or "_"), EARTH, VSS…
// and 0V, in any case, below any sheet path. It is the one ground rule: the
// leakage model, the dev plan and the layout engine all ask it.
func IsGround(net string) bool { return ground.MatchString(netBase(net)) }

// IsSupplyName reports whether a net's name reads like a supply by the broad
// rule the layout engine places decoupling by (see supplyName). It is wider
// than IsRail (a leading + or -, V<digit>, HT, VMOT, ... and no signal-word
// exception) and says nothing about grounds: ask IsGround first.
func IsSupplyName(net string) bool { return supplyName.MatchString(netBase(net)) }

func excludedRail(n string) bool {
	n = netBase(n)
	return strings.Contains(n, "VBUS") || strings.Contains(n, "VUSB")
}

// IsNoConnect reports whether a net means "this pin is connected to nothing":
// KiCad's own unconnected-(…) nets (unwired pins and no-connect flags), and a
// net with fewer than two pins that nobody named (KiCad's automatic "Net-(…)"
// names, or no name). A single-pin net that carries a user name — a label or a
// power symbol such as +3V3 — is a real net: power symbols are not pins in the
// netlist, so a VDD pin alone on +3V3 is very much connected.
func IsNoConnect(n kicad.Net) bool {
	if kicad.IsUnconnectedNet(n.Name) {
		return true
	}
	if twoPins(n) {
		return false
	}
	return n.Name == "" || strings.HasPrefix(n.Name, "Net-(")
}

// twoPins reports whether n joins at least two distinct pins. It stops at
// the first pin unlike the first: PINOUT.md asks it of every pin of a
// net, and counting GND's hundreds of pins for each of them made drift
// quadratic in the net's size.
func twoPins(n kicad.Net) bool {
	for _, nd := range n.Nodes {
		if first := n.Nodes[0]; nd.Refdes != first.Refdes || nd.Pin != first.Pin {
			return true
		}
	}
	return false
}

var ohmsValue = regexp.MustCompile(`^\s*([0-9]+)(?:[.,]([0-9]+))?\s*([RrKkMmGg]?)([0-9]*)\s*(?:\x{2126}|\x{03a9}|[oO][hH][mM][sS]?)?(?:[\s,;/(].*)?$`)

// ParseOhms reads a resistor value as schematics write it: 10k, 4k7, 2.2k,
// 100R, 1R5, 1M, 470, 10kΩ, "10k 1%". m is milli, M mega.
func ParseOhms(value string) (float64, bool) {
	m := ohmsValue.FindStringSubmatch(value)
	if m == nil || (m[2] != "" && m[4] != "") {
		return 0, false
	}
	num := m[1]
	if frac := m[2] + m[4]; frac != "" {
		num += "." + frac
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	mult := map[string]float64{"": 1, "R": 1, "r": 1, "k": 1e3, "K": 1e3, "M": 1e6, "m": 1e-3, "G": 1e9, "g": 1e9}[m[3]]
	return v * mult, true
}

// gpioName is an MCU pin named for its GPIO: GPIO<n> or IO<n>, leading
// zeros allowed (IO05 is GPIO5).
var gpioName = regexp.MustCompile(`^(?:GPIO|IO)0*([0-9]+)$`)

// GPIONumber is the GPIO a pin name stands for, GPIO<n> or IO<n> in any
// case (ESP32 and RP2040 symbols name pins so); ok is false for any other
// name (PB5, EN, a "/" list: see GPIOOf).
func GPIONumber(name string) (int, bool) {
	m := gpioName.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(name)))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// GPIOOf is the GPIO of the first "/" alternative of a pin name that is a
// GPIONumber ("SDA/IO4" is GPIO4).
func GPIOOf(name string) (int, bool) {
	for _, alt := range strings.Split(name, "/") {
		if n, ok := GPIONumber(alt); ok {
			return n, true
		}
	}
	return 0, false
}
