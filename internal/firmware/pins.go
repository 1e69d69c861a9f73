package firmware

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/circuit"
	"copperhead/internal/design"
	"copperhead/internal/pinsh"
)

// PinDef is one MCU pin of PINOUT.md as firmware sees it: the net's define
// and where the pin is.
type PinDef struct {
	Net    string `json:"net"`   // as PINOUT.md writes it
	Macro  string `json:"macro"` // PIN_<NET>, pinsh.PinMacro's spelling
	Refdes string `json:"refdes"`
	Pin    string `json:"pin"`  // pin number
	Name   string `json:"name"` // pin name, e.g. PB5 or IO4
	// Port and Bit locate a port-named pin (AVR PB5: "B", 5; STM32 PA5).
	Port string `json:"port,omitempty"`
	Bit  int    `json:"bit"`
	// GPIO is the pin's number for GPIO-numbered families (ESP32 IO4: 4;
	// RP2040 GPIO25: 25; STM32 port*16+bit; SAMD port*32+bit; nRF52
	// port*32+pin), -1 for AVR.
	GPIO int `json:"gpio"`
	// Role is what the happy path uses the pin for: RoleButton, RoleLED or "".
	Role string `json:"role,omitempty"`
	// Also lists further pins on the same net: one define per net, so the
	// first pin (in PINOUT.md order) wins and the rest are named in a comment.
	Also []string `json:"also,omitempty"`
}

// Happy-path roles, judged from net names.
const (
	RoleButton = "button"
	RoleLED    = "led"
)

var (
	portPinRE = regexp.MustCompile(`^P([A-K])([0-9]{1,2})$`)
	nrfPinRE  = regexp.MustCompile(`^P([01])\.([0-9]{2})$`)
)

// locate reads where a pin is from its name for a family: the first "/"
// alternative that is a port pin (AVR, STM32), a GPIO (ESP32, RP2040) or an
// nRF port pin. ok is false for pins with no GPIO role (power, reset,
// crystal-only names).
func locate(name string, m MCU) (port string, bit, gpio int, ok bool) {
	for _, alt := range strings.Split(strings.ToUpper(name), "/") {
		alt = strings.TrimSpace(alt)
		switch {
		case m.Family == FamilyAVR || strings.HasPrefix(m.Target, "stm32") || strings.HasPrefix(m.Target, "sam"):
			if p := portPinRE.FindStringSubmatch(alt); p != nil {
				b, _ := strconv.Atoi(p[2])
				if m.Family == FamilyAVR {
					if b > 7 {
						continue
					}
					return p[1], b, -1, true
				}
				return p[1], b, int(p[1][0]-'A')*portWidth(m) + b, true
			}
		case m.Target == "nrf52":
			if p := nrfPinRE.FindStringSubmatch(alt); p != nil {
				pt, _ := strconv.Atoi(p[1])
				b, _ := strconv.Atoi(p[2])
				return "", b, pt*32 + b, true
			}
		default: // ESP32, RP2040
			if n, ok := circuit.GPIONumber(alt); ok {
				return "", n, n, true
			}
			if n, ok := altGPIO[m.Target][alt]; ok {
				return "", n, n, true
			}
		}
	}
	return "", 0, 0, false
}

// portWidth is how many GPIO numbers one port letter spans: STM32's ports
// have 16 pins (PA0-PA15), SAMD's PORT groups 32 (PA00-PA31, PORT group
// registers 0x80 apart): PB01 is GPIO 33, never PA17's 17.
func portWidth(m MCU) int {
	if strings.HasPrefix(m.Target, "sam") {
		return 32
	}
	return 16
}

// altGPIO maps the alternate-function names a chip's (or module's) symbol
// gives some GPIOs to their GPIO numbers, per target: the ESP32-S3 module
// names GPIO43 TXD0, not IO43. Numbers are from Espressif's datasheets (the
// pin-definition and IO MUX tables); only names whose GPIO is unambiguous
// are listed. Names not here (SPI flash pins, analog-only SENSOR pins of
// parts where they are inputs only, ...) stay out of pins.h.
var altGPIO = map[string]map[string]int{
	// ESP32-S3 (and S2, which shares this part of the pin map): U0TXD
	// GPIO43, U0RXD GPIO44, USB D-/D+ GPIO19/20, JTAG GPIO39-42, 32 kHz
	// crystal GPIO15/16.
	"esp32s3": esp32S3Alt,
	"esp32s2": esp32S3Alt,
	// ESP32-C3: U0TXD GPIO21, U0RXD GPIO20, USB D-/D+ GPIO18/19, JTAG GPIO4-7.
	"esp32c3": {
		"TXD0": 21, "U0TXD": 21, "TXD": 21, "RXD0": 20, "U0RXD": 20, "RXD": 20,
		"USB_D-": 18, "USB_D+": 19, "D-": 18, "D+": 19,
		"MTMS": 4, "MTDI": 5, "MTCK": 6, "MTDO": 7,
	},
	// ESP32: U0TXD GPIO1, U0RXD GPIO3, JTAG GPIO12-15, SENSOR_VP/VN
	// GPIO36/39 (input only), 32 kHz crystal GPIO32/33.
	"esp32": {
		"TXD0": 1, "U0TXD": 1, "TXD": 1, "RXD0": 3, "U0RXD": 3, "RXD": 3,
		"MTDI": 12, "MTCK": 13, "MTMS": 14, "MTDO": 15,
		"SENSOR_VP": 36, "SENSOR_VN": 39, "SVP": 36, "SVN": 39,
		"32K_XP": 32, "32K_XN": 33,
	},
}

var esp32S3Alt = map[string]int{
	"TXD0": 43, "U0TXD": 43, "TXD": 43, "RXD0": 44, "U0RXD": 44, "RXD": 44,
	"USB_D-": 19, "USB_D+": 20, "D-": 19, "D+": 20,
	"MTCK": 39, "MTDO": 40, "MTDI": 41, "MTMS": 42,
	"XTAL_32K_P": 15, "XTAL_32K_N": 16,
}

// PinDefs reads the MCU's pins from a PINOUT.md: one PinDef per net on a
// GPIO-capable pin of m.Refdes, in PINOUT.md order. Pins connected to
// nothing are left out. It is the single source of what pins.h says.
func PinDefs(pinoutDoc []byte, m MCU) ([]PinDef, error) {
	rows, err := design.ParsePinout(pinoutDoc)
	if err != nil {
		return nil, fmt.Errorf("read PINOUT.md: %w", err)
	}
	var defs []PinDef
	byMacro := map[string]int{}
	for _, r := range rows {
		if r.Refdes != m.Refdes || r.Net == design.NCMarker || strings.HasPrefix(r.Net, "unconnected-(") {
			continue
		}
		if !m.Clock.Assumed && slices.Contains(m.Clock.Pins, r.Pin) {
			continue // the crystal is on it: it clocks the chip, no GPIO
		}
		port, bit, gpio, ok := locate(r.Name, m)
		if !ok {
			continue
		}
		macro := pinsh.PinMacro(r.Net)
		if i, dup := byMacro[macro]; dup {
			defs[i].Also = append(defs[i].Also, r.Name)
			continue
		}
		byMacro[macro] = len(defs)
		defs = append(defs, PinDef{Net: r.Net, Macro: macro, Refdes: r.Refdes, Pin: r.Pin, Name: r.Name, Port: port, Bit: bit, GPIO: gpio, Role: role(r.Net)})
	}
	return defs, nil
}

// role judges a net's happy-path role from its name's words: KEY, BTN,
// BUTTON, SW<n>, SWITCH, PUSH make a button (SWD, SWCLK and SWDIO do not);
// LED words make an LED.
func role(net string) string {
	words := strings.FieldsFunc(strings.ToUpper(net), func(r rune) bool {
		return (r < 'A' || r > 'Z') && (r < '0' || r > '9')
	})
	for _, w := range words {
		base := strings.TrimRight(w, "0123456789")
		switch {
		case base == "LED" || strings.HasPrefix(w, "LED"):
			return RoleLED
		case slices.Contains([]string{"KEY", "BTN", "BUTTON", "SW", "SWITCH", "PUSH", "TACT"}, base):
			return RoleButton
		}
	}
	return ""
}

// happyPath picks the pins the scaffold's main uses: the first button and
// the first LED; with no LED, the first GPIO blinks; with no button, the LED
// blinks.
func happyPath(defs []PinDef) (button, led *PinDef) {
	for i := range defs {
		switch defs[i].Role {
		case RoleButton:
			if button == nil {
				button = &defs[i]
			}
		case RoleLED:
			if led == nil {
				led = &defs[i]
			}
		}
	}
	if led == nil {
		for i := range defs {
			if &defs[i] != button {
				led = &defs[i]
				break
			}
		}
	}
	if led == nil {
		button = nil // a button with nothing to show it is not a happy path
	}
	return button, led
}

// HappyPath describes what the scaffold's main does, in words.
func HappyPath(defs []PinDef) string {
	button, led := happyPath(defs)
	switch {
	case button != nil:
		return fmt.Sprintf("%s (%s) toggles %s (%s)", button.Net, button.Name, led.Net, led.Name)
	case led != nil:
		return fmt.Sprintf("blink %s (%s)", led.Net, led.Name)
	}
	return "idle loop: no GPIO of the MCU is on a net in PINOUT.md"
}

// PinsHeader renders pins.h for m from its pin definitions. The header is a
// pure function of (m.Family, m.Target, m.Refdes, source, defs): Drift
// regenerates it and compares bytes. Its marker line records those inputs
// and the sha256 of the defines below it, so a hand edit (body no longer
// matches its own hash) can be told from a stale header (PINOUT.md changed).
func PinsHeader(m MCU, source string, defs []PinDef) []byte {
	var body bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&body, format, a...) }
	w("#ifndef COPPERHEAD_PINS_H\n#define COPPERHEAD_PINS_H\n\n")
	if m.Family == FamilyAVR {
		w("#include <avr/io.h>\n\n")
	}
	osc := oscPins(m)
	if osc != "" {
		w("/* %s pins %s drive the crystal that clocks it: not GPIOs here. */\n", m.Refdes, strings.ReplaceAll(osc, ",", ", "))
	}
	for _, d := range defs {
		also := ""
		if len(d.Also) > 0 {
			also = "; also on " + strings.Join(d.Also, ", ")
		}
		alt := ""
		if m.Family == FamilyESP32 && d.GPIO >= 0 && !isGPIOName(d.Name) && !strings.Contains(d.Name, "/") {
			alt = fmt.Sprintf(" (GPIO%d)", d.GPIO)
		}
		w("/* %s: %s pin %s %s%s%s */\n", d.Net, d.Refdes, d.Pin, d.Name, alt, also)
		switch {
		case m.Family == FamilyAVR:
			w("#define %s P%s%d\n", d.Macro, d.Port, d.Bit)
			suffix := strings.TrimPrefix(d.Macro, "PIN_")
			w("#define PORT_%s PORT%s\n#define DDR_%s DDR%s\n#define PINREG_%s PIN%s\n", suffix, d.Port, suffix, d.Port, suffix, d.Port)
		case d.Port != "":
			w("#define %s %d /* P%s%d: port %c * %d + %d */\n", d.Macro, d.GPIO, d.Port, d.Bit, d.Port[0], portWidth(m), d.Bit)
		default:
			w("#define %s %d\n", d.Macro, d.GPIO)
		}
	}
	button, led := happyPath(defs)
	w("\n/* The scaffold's happy path: %s. */\n", HappyPath(defs))
	appPin := func(role string, d *PinDef) {
		if d == nil {
			w("#define APP_HAS_%s 0\n", role)
			return
		}
		w("#define APP_HAS_%s 1\n", role)
		if m.Family == FamilyAVR {
			suffix := strings.TrimPrefix(d.Macro, "PIN_")
			w("#define APP_%s_BIT %s\n#define APP_%s_PORT PORT_%s\n#define APP_%s_DDR DDR_%s\n#define APP_%s_PINREG PINREG_%s\n",
				role, d.Macro, role, suffix, role, suffix, role, suffix)
		} else {
			w("#define APP_%s_GPIO %s\n", role, d.Macro)
		}
	}
	appPin("LED", led)
	appPin("BUTTON", button)
	w("\n#endif /* COPPERHEAD_PINS_H */\n")

	sum := sha256.Sum256(body.Bytes())
	var out bytes.Buffer
	fmt.Fprintf(&out, "/* pins.h: generated by copperhead from %s for %s (%s).\n", source, m.Refdes, m.Target)
	fmt.Fprintf(&out, " * Do not edit: %s is the single source of truth. Change it, then run\n", source)
	out.WriteString(" * `copperhead firmware` to regenerate this file; `copperhead check` reports\n")
	out.WriteString(" * a pins.h that no longer matches it.\n")
	mk := pinsh.Marker{Family: string(m.Family), Target: m.Target, Refdes: m.Refdes, Source: source, Osc: osc, Sum: hex.EncodeToString(sum[:])}
	fmt.Fprintf(&out, " * %s\n */\n", mk.Line())
	out.Write(body.Bytes())
	return out.Bytes()
}

// headerMarker is what a generated pins.h says about itself.
type headerMarker struct {
	mcu    MCU
	source string
	sum    string
}

// readMarker parses a pins.h's marker (pinsh.ReadMarker) into the MCU it
// was generated for; ok is false for a header copperhead did not generate.
func readMarker(src []byte) (headerMarker, bool) {
	m, ok := pinsh.ReadMarker(src)
	if !ok {
		return headerMarker{}, false
	}
	return headerMarker{
		mcu:    MCU{Family: Family(m.Family), Target: m.Target, Refdes: m.Refdes, Clock: oscClock(m.Osc)},
		source: m.Source,
		sum:    m.Sum,
	}, true
}

// oscPins is the marker's spelling of the MCU pins a crystal is on ("9,10"),
// "" when the clock is assumed.
func oscPins(m MCU) string {
	if m.Clock.Assumed || len(m.Clock.Pins) == 0 {
		return ""
	}
	return strings.Join(m.Clock.Pins, ",")
}

// oscClock is the clock a marker's osc= field implies: enough for PinDefs
// and PinsHeader to leave the crystal's pins out again.
func oscClock(osc string) Clock {
	if osc == "" {
		return Clock{Assumed: true}
	}
	return Clock{Pins: strings.Split(osc, ",")}
}

// isGPIOName reports whether a pin's own name is its GPIO (IO4, GPIO25):
// circuit.GPIONumber, sync's rule too.
func isGPIOName(name string) bool {
	_, ok := circuit.GPIONumber(name)
	return ok
}
