package firmware

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"copperhead/internal/kicad"
)

// Family is an MCU family copperhead scaffolds firmware for; the values are
// part of --json output and of the pins.h marker.
type Family string

const (
	FamilyAVR     Family = "avr"      // avr-gcc + avr-libc, Makefile
	FamilyCortexM Family = "cortex-m" // arm-none-eabi-gcc, bare metal: startup, linker script, Makefile
	FamilyESP32   Family = "esp32"    // ESP-IDF project layout (not compiled by copperhead)
)

// MCU is the microcontroller the firmware is for, as found in the schematic.
type MCU struct {
	Refdes string `json:"refdes"`
	Value  string `json:"value"`
	LibID  string `json:"lib_id"`
	Family Family `json:"family"`
	// Target names the chip for its toolchain: avr-gcc's -mmcu (atmega328p),
	// the ESP-IDF target (esp32s3), or the part family for Cortex-M
	// (stm32f1, rp2040, nrf52, samd21).
	Target string `json:"target"`
	// CPU, FlashOrigin, FlashKB and RAMKB describe a Cortex-M part for its
	// -mcpu flag and linker script.
	CPU         string `json:"cpu,omitempty"`
	FlashOrigin uint32 `json:"flash_origin,omitempty"`
	FlashKB     int    `json:"flash_kb,omitempty"`
	RAMKB       int    `json:"ram_kb,omitempty"`
	// Memory says where FlashKB and RAMKB come from: "part table (<key>)"
	// when the part number is in partMemory, else an ASSUMED note.
	Memory string `json:"memory,omitempty"`
	// Clock is the clock source the scaffold is built from: the board's
	// crystal, or the reset clock (AVR's F_CPU; a Cortex-M core's clock
	// after board_init is PlanCore's); see DetectClock.
	Clock Clock `json:"clock"`
	// Reason says why this part was chosen: what matched, its pins, and the
	// other candidates when there were any.
	Reason string `json:"reason"`
}

// ErrNoMCU means the schematic has no part copperhead recognises as a
// microcontroller it can scaffold firmware for.
var ErrNoMCU = errors.New("no supported microcontroller in the schematic (AVR ATmega/ATtiny, STM32, RP2040, nRF52, SAMD, ESP32)")

var (
	avrRE   = regexp.MustCompile(`\bAT(MEGA|TINY)([0-9]+[A-Z]*[0-9]*[A-Z]*)`)
	stm32RE = regexp.MustCompile(`STM32([A-Z])([0-9A-Z])[0-9A-Z]{2}([A-Z])([0-9A-Z])`)
	esp32RE = regexp.MustCompile(`ESP32(?:-?([SCHP][0-9]+))?`)
	samdRE  = regexp.MustCompile(`SAM([DE])([0-9]{2})`)
)

// ErrSeveralMCUs means the schematic has more than one part that could be
// the microcontroller and nothing tells them apart; the error lists them.
var ErrSeveralMCUs = errors.New("several microcontrollers in the schematic")

// minMCUPins is the fewest pins a supported microcontroller has (ATtiny10,
// SOT-23-6): a symbol with fewer is an LED, a regulator or a module's
// accessory whatever its name says.
const minMCUPins = 6

// gpioRE matches pin names that are I/O ports: PB5, PA10, GPIO4, IO4, P0.13,
// P1_2, RB6.
var gpioRE = regexp.MustCompile(`^(?:GPIO[0-9]+|IO[0-9]+|P[A-K][0-9]{1,2}|P[0-9]+[._][0-9]+|R[A-G][0-9])(?:$|[^0-9A-Z])`)

// candidate is a part recognised as a supported microcontroller.
type candidate struct {
	mcu         MCU
	pins, gpios int  // distinct pin numbers and I/O-port-named pins; 0 when the schematic embeds no drawing
	preferred   bool // a U or IC reference
	symbol      string
}

func (c candidate) String() string {
	return fmt.Sprintf("%s (%s, %s %s)", c.mcu.Refdes, c.mcu.Value, c.mcu.Family, c.mcu.Target)
}

// DetectMCU finds the microcontroller among parts, pins (the schematic's
// placed pins, kicad.Schematic.Pins; nil when unknown) telling an MCU from a
// part that only shares its name. A part is a candidate when its symbol name
// (the library id after the ':', never the library's nickname: an LED in a
// library called RP2040_DevBoard is no RP2040) or its value names a
// supported chip, and it has at least minMCUPins pins when the schematic
// embeds its drawing. Of several candidates, the only one with a U or IC
// reference is chosen; otherwise the choice is the engineer's: ref names
// the part to use (copperhead firmware --mcu), and without it several
// candidates are ErrSeveralMCUs listing them. The MCU's Reason says what
// matched and which candidates were passed over.
func DetectMCU(parts []kicad.Part, pins []kicad.PlacedPin, ref string) (MCU, error) {
	type pinInfo struct {
		numbers map[string]bool
		gpios   map[string]bool
	}
	byRef := map[string]*pinInfo{}
	for _, p := range pins {
		if p.Power {
			continue
		}
		pi := byRef[p.Refdes]
		if pi == nil {
			pi = &pinInfo{numbers: map[string]bool{}, gpios: map[string]bool{}}
			byRef[p.Refdes] = pi
		}
		pi.numbers[p.Number] = true
		if gpioRE.MatchString(strings.ToUpper(p.Name)) {
			pi.gpios[p.Number] = true
		}
	}
	var cands []candidate
	var tooFew []string
	for _, p := range parts {
		if strings.HasPrefix(p.Refdes, "#") {
			continue
		}
		symbol := p.LibID
		if _, name, ok := strings.Cut(p.LibID, ":"); ok {
			symbol = name
		}
		m, ok := classify(symbol + " " + p.Value)
		if !ok {
			continue
		}
		m.Refdes, m.Value, m.LibID = p.Refdes, p.Value, p.LibID
		c := candidate{mcu: m, symbol: symbol, preferred: refPrefix(p.Refdes) == "U" || refPrefix(p.Refdes) == "IC"}
		if pi := byRef[p.Refdes]; pi != nil {
			c.pins, c.gpios = len(pi.numbers), len(pi.gpios)
			if c.pins < minMCUPins {
				tooFew = append(tooFew, fmt.Sprintf("%s (%s: %d pins)", p.Refdes, p.Value, c.pins))
				continue
			}
		}
		cands = append(cands, c)
	}
	if ref != "" {
		for i, c := range cands {
			if c.mcu.Refdes == ref {
				others := append(append([]candidate{}, cands[:i]...), cands[i+1:]...)
				return c.withReason("named with --mcu", others, tooFew), nil
			}
		}
		if len(cands) == 0 {
			return MCU{}, fmt.Errorf("--mcu %s: %w", ref, ErrNoMCU)
		}
		return MCU{}, fmt.Errorf("--mcu %s: not a supported microcontroller; the candidates are %s", ref, joinCands(cands))
	}
	switch len(cands) {
	case 0:
		if len(tooFew) > 0 {
			return MCU{}, fmt.Errorf("%w; %s named like one but too few pins for an MCU", ErrNoMCU, strings.Join(tooFew, ", "))
		}
		return MCU{}, ErrNoMCU
	case 1:
		return cands[0].withReason("the only candidate", nil, tooFew), nil
	}
	var preferred, rest []candidate
	for _, c := range cands {
		if c.preferred {
			preferred = append(preferred, c)
		} else {
			rest = append(rest, c)
		}
	}
	if len(preferred) == 1 {
		return preferred[0].withReason("the only candidate with a U or IC reference", rest, tooFew), nil
	}
	return MCU{}, fmt.Errorf("%w: %s; name the one to scaffold with --mcu REF", ErrSeveralMCUs, joinCands(cands))
}

func joinCands(cs []candidate) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, ", ")
}

// withReason returns the candidate's MCU with the reason it was chosen.
func (c candidate) withReason(why string, others []candidate, tooFew []string) MCU {
	m := c.mcu
	var b strings.Builder
	fmt.Fprintf(&b, "symbol %s", c.symbol)
	if !strings.EqualFold(c.symbol, m.Value) {
		fmt.Fprintf(&b, ", value %s", m.Value)
	}
	fmt.Fprintf(&b, " names %s %s", m.Family, m.Target)
	if c.pins > 0 {
		fmt.Fprintf(&b, "; %d pins, %d of them I/O ports", c.pins, c.gpios)
	}
	fmt.Fprintf(&b, "; %s", why)
	if len(others) > 0 {
		fmt.Fprintf(&b, " (also: %s)", joinCands(others))
	}
	if len(tooFew) > 0 {
		fmt.Fprintf(&b, "; passed over %s", strings.Join(tooFew, ", "))
	}
	m.Reason = b.String()
	return m
}

// refPrefix is a reference's letters: "U" for U12, "IC" for IC3.
func refPrefix(ref string) string {
	i := strings.IndexFunc(ref, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return strings.ToUpper(ref)
	}
	return strings.ToUpper(ref[:i])
}

// classify recognises an MCU from its value and library id. Memory sizes
// for Cortex-M are the smallest of the series unless the part number says
// (STM32's flash-size letter): a linker script that claims too little memory
// links and runs, one that claims too much does not.
func classify(s string) (MCU, bool) {
	u := strings.ToUpper(s)
	if m := avrRE.FindStringSubmatch(u); m != nil {
		return withMemory(MCU{Family: FamilyAVR, Target: strings.ToLower("at" + m[1] + m[2])}, u), true
	}
	if m := esp32RE.FindStringSubmatch(u); m != nil {
		return MCU{Family: FamilyESP32, Target: strings.ToLower("esp32" + m[1])}, true
	}
	if strings.Contains(u, "RP2040") {
		return MCU{Family: FamilyCortexM, Target: "rp2040", CPU: "cortex-m0plus", FlashOrigin: 0x10000000, FlashKB: 2048, RAMKB: 264,
			Memory: "part table (RP2040): 264 KB SRAM; the flash is the external QSPI chip, ASSUMED 2048 KB (W25Q16): set it from the board's flash part"}, true
	}
	if strings.Contains(u, "NRF52") {
		return withMemory(MCU{Family: FamilyCortexM, Target: "nrf52", CPU: "cortex-m4", FlashOrigin: 0, FlashKB: 192, RAMKB: 24}, u), true
	}
	if m := samdRE.FindStringSubmatch(u); m != nil {
		cpu := "cortex-m0plus"
		if m[2] >= "51" {
			cpu = "cortex-m4"
		}
		return withMemory(MCU{Family: FamilyCortexM, Target: strings.ToLower("sam" + m[1] + m[2]), CPU: cpu, FlashOrigin: 0, FlashKB: 16, RAMKB: 4}, u), true
	}
	if m := stm32RE.FindStringSubmatch(u); m != nil {
		series := m[1] + m[2] // F1, G0, L4, H7 ...
		cpu, ok := stm32CPU[series]
		if !ok {
			return MCU{}, false
		}
		flash := 16
		if kb, ok := stm32Flash[m[4]]; ok {
			flash = kb
		}
		ram := 4
		if cpu != "cortex-m0" && cpu != "cortex-m0plus" {
			ram = 8
		}
		return withMemory(MCU{Family: FamilyCortexM, Target: strings.ToLower("stm32" + series), CPU: cpu, FlashOrigin: 0x08000000, FlashKB: flash, RAMKB: ram}, u), true
	}
	return MCU{}, false
}

// stm32CPU maps an STM32 series to its core (ST's product selector).
var stm32CPU = map[string]string{
	"F0": "cortex-m0", "C0": "cortex-m0plus", "G0": "cortex-m0plus", "L0": "cortex-m0plus", "U0": "cortex-m0plus",
	"F1": "cortex-m3", "F2": "cortex-m3", "L1": "cortex-m3",
	"F3": "cortex-m4", "F4": "cortex-m4", "G4": "cortex-m4", "L4": "cortex-m4", "WB": "cortex-m4", "WL": "cortex-m4",
	"F7": "cortex-m7", "H7": "cortex-m7",
	"L5": "cortex-m33", "U5": "cortex-m33", "H5": "cortex-m33",
}

// stm32Flash maps the flash-size letter of an STM32 part number (the
// character after the pin-count letter: STM32F103C8 is 64 KB) to kilobytes.
var stm32Flash = map[string]int{
	"4": 16, "6": 32, "8": 64, "B": 128, "C": 256, "D": 384, "E": 512, "F": 768, "G": 1024, "H": 1536, "I": 2048,
}

// memSize is one part's on-chip memory, in KB.
type memSize struct{ flashKB, ramKB int }

// partMemory holds the memory of common parts by part number (the vendor
// datasheets' ordering tables), an "x" standing for the pin-count letter of
// an STM32 or SAMD part number (STM32F103C8 and STM32F103R8 are both
// STM32F103x8). RAM is the contiguous SRAM at 0x20000000 the linker script
// may use (STM32F407's 64 KB CCM is left out). Parts not listed fall back to
// the smallest of their series, marked ASSUMED.
var partMemory = map[string]memSize{
	"STM32F103X4": {16, 6}, "STM32F103X6": {32, 10}, "STM32F103X8": {64, 20}, "STM32F103XB": {128, 20},
	"STM32F103XC": {256, 48}, "STM32F103XD": {384, 64}, "STM32F103XE": {512, 64},
	"STM32F030X4": {16, 4}, "STM32F030X6": {32, 4}, "STM32F030X8": {64, 8}, "STM32F030XC": {256, 32},
	"STM32F042X6": {32, 6}, "STM32F072X8": {64, 16}, "STM32F072XB": {128, 16},
	"STM32F401XB": {128, 64}, "STM32F401XC": {256, 64}, "STM32F401XD": {384, 96}, "STM32F401XE": {512, 96},
	"STM32F411XC": {256, 128}, "STM32F411XE": {512, 128},
	"STM32F407XE": {512, 128}, "STM32F407XG": {1024, 128},
	"STM32G030X6": {32, 8}, "STM32G030X8": {64, 8}, "STM32G031X4": {16, 8}, "STM32G031X6": {32, 8}, "STM32G031X8": {64, 8},
	"NRF52810": {192, 24}, "NRF52811": {192, 24}, "NRF52832": {512, 64}, "NRF52833": {512, 128}, "NRF52840": {1024, 256},
	"SAMD21X15": {32, 4}, "SAMD21X16": {64, 8}, "SAMD21X17": {128, 16}, "SAMD21X18": {256, 32},
	"SAMD51X19": {512, 192}, "SAMD51X20": {1024, 256},
}

// avrMemory describes common AVR parts (avr-gcc's -mmcu already sizes their
// memory; this is for the record and the README).
var avrMemory = map[string]string{
	"ATMEGA328P": "32 KB flash, 2 KB SRAM, 1 KB EEPROM", "ATMEGA328": "32 KB flash, 2 KB SRAM, 1 KB EEPROM",
	"ATMEGA168": "16 KB flash, 1 KB SRAM, 512 B EEPROM", "ATMEGA32U4": "32 KB flash, 2.5 KB SRAM, 1 KB EEPROM",
	"ATMEGA16U2": "16 KB flash, 512 B SRAM, 512 B EEPROM", "ATMEGA2560": "256 KB flash, 8 KB SRAM, 4 KB EEPROM",
	"ATMEGA1284P": "128 KB flash, 16 KB SRAM, 4 KB EEPROM", "ATTINY85": "8 KB flash, 512 B SRAM, 512 B EEPROM",
}

var (
	stm32PartRE = regexp.MustCompile(`STM32[A-Z][0-9A-Z][0-9A-Z]{2}[A-Z][0-9A-Z]`)
	samdPartRE  = regexp.MustCompile(`SAM[DE][0-9]{2}[A-Z][0-9]{2}`)
	nrfPartRE   = regexp.MustCompile(`NRF528[0-9]{2}`)
	avrPartRE   = regexp.MustCompile(`\bAT(?:MEGA|TINY)[0-9]+[A-Z]*[0-9]*[A-Z]*`)
)

// memoryKey is the partMemory key a part number falls under, "" when it is
// not one the table can name.
func memoryKey(u string) string {
	if p := stm32PartRE.FindString(u); p != "" {
		return p[:9] + "X" + p[10:]
	}
	if p := samdPartRE.FindString(u); p != "" {
		return p[:6] + "X" + p[7:]
	}
	if p := nrfPartRE.FindString(u); p != "" {
		return p
	}
	if p := avrPartRE.FindString(u); p != "" {
		// ATMEGA328P-PU, ATMEGA32U4-AU: the package suffix is not in the match.
		return p
	}
	return ""
}

// withMemory sets m's memory from partMemory when the part number is there
// (the AVR sizes only describe: avr-gcc's -mmcu already knows them), and
// marks the series fallback ASSUMED otherwise.
func withMemory(m MCU, u string) MCU {
	key := memoryKey(u)
	if m.Family == FamilyAVR {
		m.Memory = "avr-gcc -mmcu=" + m.Target + " sizes it"
		if d, ok := avrMemory[key]; ok {
			m.Memory = fmt.Sprintf("part table (%s): %s; %s", key, d, m.Memory)
		}
		return m
	}
	if ms, ok := partMemory[key]; ok {
		m.FlashKB, m.RAMKB = ms.flashKB, ms.ramKB
		m.Memory = fmt.Sprintf("part table (%s): %d KB flash, %d KB RAM", key, ms.flashKB, ms.ramKB)
		return m
	}
	m.Memory = fmt.Sprintf("ASSUMED: %s not in the part table, the smallest of the series (%d KB flash, %d KB RAM); set them from the datasheet", cmp.Or(key, m.Target), m.FlashKB, m.RAMKB)
	return m
}
