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

// Clock is the clock source the scaffold assumes: the crystal on the MCU's
// oscillator pins, or the part's reset clock. For AVR it is the core clock
// (F_CPU); a Cortex-M core's clock after board_init is PlanCore's Core.
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

// defaultClock is a part's clock out of reset and what it is: AVR's
// factory fuses run the internal 8 MHz RC divided by 8; the Cortex-M parts
// copperhead writes drivers for start on their internal oscillators (see
// resetClocks). 0 when the scaffold does not depend on a clock value.
func defaultClock(m MCU) (int64, string) {
	if m.Family == FamilyAVR {
		return 1_000_000, "the factory clock, the internal 8 MHz RC divided by 8"
	}
	if rc, ok := resetClocks[driverOf(m)]; ok {
		if sam5x(m) {
			return 48_000_000, "the 48 MHz DFLL48M (open loop) it starts on"
		}
		return rc.hz, rc.what
	}
	return 0, "the part's reset clock"
}

// resetClocks are the core clocks out of reset, per driver (the vendors'
// reference manuals): STM32F1 RM0008 §7.2 (HSI 8 MHz), RP2040 datasheet
// §2.17 (ROSC, nominally 6 MHz, 1.8-12 MHz across parts and temperature),
// nRF52832 product specification §19 (HFINT 64 MHz), SAM D21 datasheet
// §17.6.2.6 (OSC8M prescaled by 8: 1 MHz; SAM D5x/E5x start on DFLL48M).
var resetClocks = map[string]struct {
	hz   int64
	what string
}{
	"stm32f1": {8_000_000, "the 8 MHz HSI it starts on"},
	"rp2040":  {6_000_000, "the ring oscillator it starts on, nominally 6 MHz, 1.8-12 MHz across parts"},
	"nrf52":   {64_000_000, "the 64 MHz HFINT it starts on"},
	"samd":    {1_000_000, "OSC8M divided by 8 (1 MHz), what it starts on"},
}

// driverOf names the register-level GPIO driver board.c carries for m:
// "stm32f1", "rp2040", "nrf52", "samd", or "" for the parts that get
// stubs.
func driverOf(m MCU) string {
	switch {
	case m.Family != FamilyCortexM:
		return ""
	case m.Target == "stm32f1", m.Target == "rp2040", m.Target == "nrf52":
		return m.Target
	case strings.HasPrefix(m.Target, "samd1"), strings.HasPrefix(m.Target, "samd2"), sam5x(m):
		return "samd"
	}
	return ""
}

// sam5x says whether m is a SAM D5x/E5x (Cortex-M4F; PORT at 0x41008000).
func sam5x(m MCU) bool {
	return strings.HasPrefix(m.Target, "samd5") || strings.HasPrefix(m.Target, "same5")
}

// Core is how a Cortex-M scaffold's board_init clocks the core, planned
// from the detected Clock: the values board.c writes, and CPU_HZ (board.h)
// that delay_ms's SysTick counts in.
type Core struct {
	// Hz is the core clock once board_init returns: CPU_HZ.
	Hz int64 `json:"hz"`
	// Setup says in one line what board_init does to get Hz.
	Setup string `json:"setup"`
	// Crystal is true when board_init starts the board's crystal; Assumed
	// when Hz is a reset clock's nominal value instead.
	Crystal bool `json:"crystal"`
	Assumed bool `json:"assumed"`
	// Driver is driverOf's name for board.c's GPIO and clock code.
	Driver string `json:"driver,omitempty"`

	// STM32F1: PLL multiplier (2-16) of HSE, FLASH_ACR latency and whether
	// APB1 (36 MHz at most) runs at SYSCLK/2. Latency is SAMD21's
	// NVMCTRL CTRLB.RWS (flash read wait states) too.
	PLLMul   int  `json:"-"`
	Latency  int  `json:"-"`
	APB1Div2 bool `json:"-"`
	// RP2040: XOSC_STARTUP's DELAY, in units of 256 crystal cycles, and
	// PLL_SYS's feedback divider and post dividers when clk_sys runs from
	// it (FBDiv 0: it does not).
	XoscDelay int `json:"-"`
	FBDiv     int `json:"-"`
	PostDiv1  int `json:"-"`
	PostDiv2  int `json:"-"`
	// SAMD: the PORT peripheral's base address; when board_init starts
	// the crystal, SAM D1x/D2x's SYSCTRL XOSC GAIN (0-4) or SAM D5x/E5x's
	// OSCCTRL XOSCCTRL0 IMULT and IPTAT (XoscIMult 0 on D1x/D2x), by
	// crystal frequency.
	PortBase  uint32 `json:"-"`
	XoscGain  int    `json:"-"`
	XoscIMult int    `json:"-"`
	XoscIPTAT int    `json:"-"`
}

// sam5xXoscCurrent is SAM D5x/E5x's XOSC current setting for a crystal of
// hz (datasheet §28.6.3 "XOSC gain settings": 8 MHz IPTAT 2 IMULT 3,
// 16 MHz 3/4, 24 MHz 3/5, 48 MHz 3/6; oscctrl.h OSCCTRL_XOSCCTRL_IPTAT
// bits 10:9, IMULT bits 14:11): the first row at or above the crystal.
func sam5xXoscCurrent(hz int64) (imult, iptat int) {
	switch {
	case hz <= 8_000_000:
		return 3, 2
	case hz <= 16_000_000:
		return 4, 3
	case hz <= 24_000_000:
		return 5, 3
	}
	return 6, 3
}

// rp2040PLL is the Pico SDK's default PLL_SYS setting for its 12 MHz
// crystal (RP2040 datasheet §2.18.2, "PLL_SYS 125 MHz"): REFDIV 1, FBDIV 125
// (VCO 1500 MHz), POSTDIV1 6, POSTDIV2 2.
var rp2040PLL = struct{ xtal, fbdiv, pd1, pd2 int64 }{12_000_000, 125, 6, 2}

// samdGain is SAM D21's SYSCTRL XOSC GAIN for a crystal of hz (datasheet
// §17.8.5, sysctrl.h SYSCTRL_XOSC_GAIN_0..4: 2, 4, 8, 16, 30 MHz): the
// smallest setting whose frequency is at least the crystal's.
func samdGain(hz int64) int {
	for g, top := range []int64{2_000_000, 4_000_000, 8_000_000, 16_000_000} {
		if hz <= top {
			return g
		}
	}
	return 4
}

// samdWaitStates is SAM D21's NVM read wait states for a core clock of hz:
// the datasheet's maximum-operating-frequency table, its 1.62-2.7 V row
// (0 WS up to 14 MHz, 1 up to 28, 2 up to 42, 3 up to 48), which holds at
// any supply the part runs on.
func samdWaitStates(hz int64) int {
	return int(min(3, (hz-1)/14_000_000))
}

// PLLMulBits is RCC_CFGR's PLLMUL field for PLLMul (0 is x2, 7 is x9).
func (c Core) PLLMulBits() int { return c.PLLMul - 2 }

// mhz prints a frequency in MHz: 8 MHz, 18.432 MHz.
func mhz(hz int64) string {
	return strconv.FormatFloat(float64(hz)/1e6, 'f', -1, 64) + " MHz"
}

// PlanCore plans how board_init clocks m's core from m.Clock: the crystal
// when there is one the part can use (STM32F1 HSE 4-16 MHz through the PLL
// to at most 72 MHz; RP2040 XOSC 1-15 MHz as clk_ref and clk_sys, a 12 MHz
// one through PLL_SYS to 125 MHz; nRF52's 32 MHz HFXO started; SAM D1x/D2x
// XOSC 0.4-32 MHz and SAM D5x/E5x XOSC0 8-48 MHz as GCLK0), else the reset
// clock, Assumed. Parts without a
// driver get Hz 0 (their board.c is stubs).
func PlanCore(m MCU) Core {
	drv := driverOf(m)
	resetHz, what := defaultClock(m)
	c := Core{Hz: resetHz, Driver: drv, Assumed: true}
	xtal := m.Clock.Hz > 0 && !m.Clock.Assumed
	// why the crystal is not used: set when there is one.
	var why string
	switch drv {
	case "":
		c.Hz = 0
		c.Setup = "board_init is a stub: the part runs on its reset clock"
		return c
	case "stm32f1":
		if xtal && m.Clock.Hz >= 4_000_000 && m.Clock.Hz <= 16_000_000 {
			// RM0008 §7.2: HSE 4-16 MHz, PLL x2..x16, SYSCLK 72 MHz at
			// most, APB1 36 MHz at most; FLASH_ACR LATENCY 0 up to
			// 24 MHz, 1 up to 48 MHz, 2 above (§3.3.3).
			c.PLLMul = min(16, int(72_000_000/m.Clock.Hz))
			c.Hz = m.Clock.Hz * int64(c.PLLMul)
			switch {
			case c.Hz > 48_000_000:
				c.Latency = 2
			case c.Hz > 24_000_000:
				c.Latency = 1
			}
			c.APB1Div2 = c.Hz > 36_000_000
			c.Crystal, c.Assumed = true, false
			c.Setup = fmt.Sprintf("HSE from the %s crystal, PLL x%d = %s SYSCLK, flash latency %d", mhz(m.Clock.Hz), c.PLLMul, mhz(c.Hz), c.Latency)
			if c.APB1Div2 {
				c.Setup += ", APB1 = SYSCLK/2"
			}
			return c
		}
		if xtal {
			why = fmt.Sprintf("the %s crystal is outside HSE's 4-16 MHz", mhz(m.Clock.Hz))
		}
	case "rp2040":
		if xtal && m.Clock.Hz >= 1_000_000 && m.Clock.Hz <= 15_000_000 {
			// RP2040 datasheet §2.16: 1-15 MHz crystals; STARTUP.DELAY
			// counts 256 crystal cycles, ~1 ms as the Pico SDK sets it.
			c.XoscDelay = int((m.Clock.Hz/1000 + 128) / 256)
			c.Hz = m.Clock.Hz
			c.Crystal, c.Assumed = true, false
			xosc := fmt.Sprintf("XOSC from the %s crystal (startup delay %d x 256 cycles, about 1 ms)", mhz(m.Clock.Hz), c.XoscDelay)
			if m.Clock.Hz != rp2040PLL.xtal {
				c.Setup = fmt.Sprintf("%s as clk_ref and clk_sys; PLL_SYS not used (its 125 MHz setting, FBDIV %d, POSTDIV %d x %d, is for a 12 MHz crystal)", xosc, rp2040PLL.fbdiv, rp2040PLL.pd1, rp2040PLL.pd2)
				return c
			}
			c.FBDiv, c.PostDiv1, c.PostDiv2 = int(rp2040PLL.fbdiv), int(rp2040PLL.pd1), int(rp2040PLL.pd2)
			c.Hz = m.Clock.Hz * rp2040PLL.fbdiv / (rp2040PLL.pd1 * rp2040PLL.pd2)
			c.Setup = fmt.Sprintf("%s as clk_ref, PLL_SYS x%d = %s VCO, /%d /%d = %s clk_sys", xosc, c.FBDiv, mhz(m.Clock.Hz*rp2040PLL.fbdiv), c.PostDiv1, c.PostDiv2, mhz(c.Hz))
			return c
		}
		if xtal {
			why = fmt.Sprintf("the %s crystal is outside XOSC's 1-15 MHz", mhz(m.Clock.Hz))
		}
	case "nrf52":
		// The core runs at 64 MHz from HFINT or HFXO alike; the crystal
		// (32 MHz on XC1/XC2) makes it accurate (nRF52832 PS §19.1).
		c.Assumed = false
		if xtal && m.Clock.Hz == 32_000_000 {
			c.Crystal = true
			c.Setup = "HFXO started from the 32 MHz crystal; the core runs at 64 MHz"
			return c
		}
		c.Setup = strings.TrimPrefix(m.Clock.Source, "ASSUMED: ")
		if xtal {
			c.Setup = fmt.Sprintf("%s (the %s crystal is not the 32 MHz HFXO needs)", what, mhz(m.Clock.Hz))
		}
		return c
	case "samd":
		c.PortBase = 0x41004400 // SAM D21 datasheet §23.7: PORT at 0x41004400
		if sam5x(m) {
			c.PortBase = 0x41008000 // SAM D5x/E5x datasheet §32.7
		}
		switch {
		case !xtal:
		case sam5x(m) && m.Clock.Hz >= 8_000_000 && m.Clock.Hz <= 48_000_000:
			// SAM D5x/E5x datasheet §28: XOSC0 takes an 8-48 MHz crystal
			// on XIN0/XOUT0 (PA14/PA15); GCLK generator 0 is GCLK_MAIN
			// (MCLK CPUDIV 1 out of reset). NVMCTRL CTRLA.AUTOWS is on out
			// of reset (nvmctrl.h reset value 0x0004): the wait states
			// follow the clock, and 48 MHz is what the part starts on.
			c.Hz = m.Clock.Hz
			c.XoscIMult, c.XoscIPTAT = sam5xXoscCurrent(m.Clock.Hz)
			c.Crystal, c.Assumed = true, false
			c.Setup = fmt.Sprintf("XOSC0 from the %s crystal (IMULT %d, IPTAT %d, startup about 1 ms) as GCLK0, flash wait states by NVMCTRL AUTOWS", mhz(m.Clock.Hz), c.XoscIMult, c.XoscIPTAT)
			return c
		case sam5x(m):
			why = fmt.Sprintf("the %s crystal is outside XOSC0's 8-48 MHz", mhz(m.Clock.Hz))
		case m.Clock.Hz >= 400_000 && m.Clock.Hz <= 32_000_000:
			// SAM D21 datasheet §17.6.3: XOSC takes a 0.4-32 MHz crystal
			// on XIN/XOUT (PA14/PA15); GCLK generator 0 clocks the CPU
			// (PM CPUSEL divides by 1 out of reset).
			c.Hz = m.Clock.Hz
			c.XoscGain = samdGain(m.Clock.Hz)
			c.Latency = samdWaitStates(m.Clock.Hz)
			c.Crystal, c.Assumed = true, false
			c.Setup = fmt.Sprintf("XOSC from the %s crystal (GAIN %d, startup about 1 ms) as GCLK0, flash wait states %d", mhz(m.Clock.Hz), c.XoscGain, c.Latency)
			return c
		default:
			why = fmt.Sprintf("the %s crystal is outside XOSC's 0.4-32 MHz", mhz(m.Clock.Hz))
		}
	}
	switch {
	case why != "":
		c.Setup = fmt.Sprintf("ASSUMED: %s (%s)", what, why)
	case m.Clock.Source != "":
		c.Setup = m.Clock.Source
	default:
		c.Setup = "ASSUMED: " + what
	}
	return c
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

// oscPortPins names, per part family, the port pins whose alternate
// function is a crystal oscillator's, for symbols that name the pin by its
// port only (KiCad 9's STM32F103C8Tx calls pin 5 "PD0", its RCC_OSC_IN an
// alternate; SAM D21's XIN is "PA14"). A pin counts only when a crystal is
// on its net (DetectClock). STM32: OSC_IN/OUT on PD0/PD1 (F1 LQFP48,
// RM0008 §9.3.3), PF0/PF1 (F0, F3, G0) or PH0/PH1 (F2, F4, F7, L4); the
// 32 kHz LSE on PC14/PC15. SAM D/E: XOSC on PA14/PA15, XOSC32K on
// PA00/PA01 (SAM D21 datasheet §7.1 multiplexing table).
var oscPortPins = map[string]map[string]string{
	"stm32": {"PD0": "OSC_IN", "PD1": "OSC_OUT", "PF0": "OSC_IN", "PF1": "OSC_OUT", "PH0": "OSC_IN", "PH1": "OSC_OUT",
		"PC14": "OSC32_IN", "PC15": "OSC32_OUT"},
	"sam": {"PA14": "XIN", "PA15": "XOUT", "PA00": "XIN32", "PA01": "XOUT32"},
}

// oscAlias is the oscillator function of a port-named pin of m (see
// oscPortPins), "" when it has none or its name already says so.
func oscAlias(m MCU, name string) string {
	if isXtalPin(name) {
		return ""
	}
	for prefix, pins := range oscPortPins {
		if strings.HasPrefix(m.Target, prefix) {
			return pins[strings.ToUpper(strings.TrimSpace(name))]
		}
	}
	return ""
}

// DetectClock finds the crystal that clocks m on the board: a crystal part
// (Y*/X* reference or Crystal/Resonator symbol, its value naming a
// frequency) with a pin on the same net as one of m's oscillator pins
// (XTAL1/XTAL2, XIN/XOUT, OSC_IN/OSC_OUT ...), read from the netlist. With
// no netlist, or no such crystal, the family's default is kept and marked
// Assumed; why says what was missing (e.g. "kicad-cli not found").
func DetectClock(m MCU, nl *kicad.Netlist, why string) Clock {
	hz, what := defaultClock(m)
	def := Clock{Hz: hz, Source: "ASSUMED: " + what, Assumed: true}
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
			if node.Refdes != m.Refdes {
				continue
			}
			name := node.PinFunction
			if alias := oscAlias(m, name); alias != "" {
				name += " (" + alias + ")" // PD0 (OSC_IN)
			} else if !isXtalPin(name) {
				continue
			}
			xtalNets[n.Name] = append(xtalNets[n.Name], name)
			pinNum[name] = node.Pin
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
