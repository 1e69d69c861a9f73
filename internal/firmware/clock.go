package firmware

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/kicad"
)

// Clock is the core clock the scaffold assumes.
type Clock struct {
	Hz int64 `json:"hz"`
	// Source says where Hz comes from: the crystal and the MCU pins it is
	// on, or why the family's default was kept (then Assumed is true).
	Source  string `json:"source"`
	Assumed bool   `json:"assumed"`
	// Pins are the MCU pin numbers the crystal is on: they clock the chip
	// and are left out of pins.h.
	Pins []string `json:"pins,omitempty"`
}

// defaultClock is a family's clock out of reset: AVR's factory fuses run
// the internal 8 MHz RC divided by 8.
func defaultClock(f Family) int64 {
	if f == FamilyAVR {
		return 1_000_000
	}
	return 0 // Cortex-M and ESP32 scaffolds do not depend on a clock value
}

var (
	// freqRE reads a crystal's frequency from its value: 16MHz, 16 MHz,
	// 16M, 16.000MHz, 32.768kHz, 8MHz/20pF.
	freqRE = regexp.MustCompile(`(?i)(?:^|[^0-9.])([0-9]+(?:\.[0-9]+)?)\s*(M|MHZ|K|KHZ)(?:$|[^A-Z])`)
	// xtalPinRE names an MCU's crystal-oscillator pins: XTAL1/XTAL2 (AVR),
	// XIN/XOUT (RP2040), OSC_IN/OSC_OUT and PD0-OSC_IN (STM32),
	// XL1/XL2 (nRF52), XIN32/XOUT32 (SAMD).
	xtalPinRE = regexp.MustCompile(`^(?:XTAL[12]|XTAL_?(?:IN|OUT)|X(?:IN|OUT)(?:32)?|OSC_?(?:IN|OUT)|OSC[12]|XL[12]|XC[12])$`)
)

// crystalFreq reads the frequency in Hz from a crystal's value, 0 when it
// names none.
func crystalFreq(value string) int64 {
	m := freqRE.FindStringSubmatch(strings.ReplaceAll(value, ",", "."))
	if m == nil {
		return 0
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0
	}
	mult := 1e6
	if strings.HasPrefix(strings.ToUpper(m[2]), "K") {
		mult = 1e3
	}
	return int64(math.Round(f * mult))
}

// isCrystal says whether a netlist component is a crystal or ceramic
// resonator: a Y or X reference, or a Crystal/Resonator symbol.
func isCrystal(c kicad.NetComponent) bool {
	lib := strings.ToLower(c.LibID)
	if strings.Contains(lib, "crystal") || strings.Contains(lib, "resonator") {
		return true
	}
	p := refPrefix(c.Refdes)
	return p == "Y" || p == "X" || p == "XTAL"
}

// isXtalPin says whether an MCU pin name (or one "/" alternative of it) is a
// crystal-oscillator pin.
func isXtalPin(name string) bool {
	// "/" separates alternatives (PB6/XTAL1), "-" a port pin from its
	// function (STM32's PD0-OSC_IN).
	for _, alt := range strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '/' || r == '-' }) {
		if xtalPinRE.MatchString(strings.TrimSpace(alt)) {
			return true
		}
	}
	return false
}

// DetectClock finds the crystal that clocks m on the board: a crystal part
// (Y*/X* reference or Crystal/Resonator symbol, its value naming a
// frequency) with a pin on the same net as one of m's oscillator pins
// (XTAL1/XTAL2, XIN/XOUT, OSC_IN/OSC_OUT ...), read from the netlist. With
// no netlist, or no such crystal, the family's default is kept and marked
// Assumed; why says what was missing (e.g. "kicad-cli not found").
func DetectClock(m MCU, nl *kicad.Netlist, why string) Clock {
	def := Clock{Hz: defaultClock(m.Family), Assumed: true}
	switch m.Family {
	case FamilyAVR:
		def.Source = "ASSUMED: the factory clock, the internal 8 MHz RC divided by 8"
	default:
		def.Source = "ASSUMED: the part's reset clock"
	}
	if nl == nil {
		if why == "" {
			why = "no netlist"
		}
		def.Source += " (" + why + ")"
		return def
	}
	// The MCU's oscillator pins, by net.
	xtalNets := map[string][]string{}
	pinNum := map[string]string{} // pin name -> number
	for _, n := range nl.Nets {
		for _, node := range n.Nodes {
			if node.Refdes == m.Refdes && isXtalPin(node.PinFunction) {
				xtalNets[n.Name] = append(xtalNets[n.Name], node.PinFunction)
				pinNum[node.PinFunction] = node.Pin
			}
		}
	}
	if len(xtalNets) == 0 {
		def.Source += fmt.Sprintf(" (%s has no crystal-oscillator pin on a net)", m.Refdes)
		return def
	}
	crystals := map[string]kicad.NetComponent{}
	for _, c := range nl.Components {
		if isCrystal(c) {
			crystals[c.Refdes] = c
		}
	}
	type hit struct {
		comp kicad.NetComponent
		pins []string
	}
	hits := map[string]*hit{}
	for _, n := range nl.Nets {
		pins, ok := xtalNets[n.Name]
		if !ok {
			continue
		}
		for _, node := range n.Nodes {
			c, ok := crystals[node.Refdes]
			if !ok {
				continue
			}
			h := hits[c.Refdes]
			if h == nil {
				h = &hit{comp: c}
				hits[c.Refdes] = h
			}
			for _, p := range pins {
				if !slices.Contains(h.pins, p) {
					h.pins = append(h.pins, p)
				}
			}
		}
	}
	refs := make([]string, 0, len(hits))
	for r := range hits {
		refs = append(refs, r)
	}
	slices.Sort(refs)
	for _, r := range refs {
		h := hits[r]
		hz := crystalFreq(h.comp.Value)
		if hz < 1_000_000 { // a 32.768 kHz RTC crystal does not clock the core
			continue
		}
		slices.Sort(h.pins)
		var nums []string
		for _, p := range h.pins {
			nums = append(nums, pinNum[p])
		}
		return Clock{Hz: hz, Source: fmt.Sprintf("%s (%s) on %s %s", h.comp.Refdes, h.comp.Value, m.Refdes, strings.Join(h.pins, ", ")), Pins: nums}
	}
	if len(refs) > 0 {
		def.Source += fmt.Sprintf(" (crystal %s on the oscillator pins names no frequency of 1 MHz or more)", strings.Join(refs, ", "))
	} else {
		def.Source += " (no crystal on the oscillator pins)"
	}
	return def
}
