package firmware

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/consistency"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

func TestDetectMCU(t *testing.T) {
	tests := []struct {
		value, libID string
		want         MCU
		wantErr      bool
	}{
		{"ATmega328P-P", "MCU_Microchip_ATmega:ATmega328P-P", MCU{Family: FamilyAVR, Target: "atmega328p"}, false},
		{"ATtiny85-20PU", "MCU_Microchip_ATtiny:ATtiny85-20PU", MCU{Family: FamilyAVR, Target: "attiny85"}, false},
		{"ATmega32U4-AU", "MCU_Microchip_ATmega:ATmega32U4-AU", MCU{Family: FamilyAVR, Target: "atmega32u4"}, false},
		{"STM32F103C8Tx", "MCU_ST_STM32F1:STM32F103C8Tx", MCU{Family: FamilyCortexM, Target: "stm32f1", CPU: "cortex-m3", FlashOrigin: 0x08000000, FlashKB: 64, RAMKB: 20}, false},
		{"STM32G031K8Tx", "MCU_ST_STM32G0:STM32G031K8Tx", MCU{Family: FamilyCortexM, Target: "stm32g0", CPU: "cortex-m0plus", FlashOrigin: 0x08000000, FlashKB: 64, RAMKB: 8}, false},
		{"RP2040", "MCU_RaspberryPi:RP2040", MCU{Family: FamilyCortexM, Target: "rp2040", CPU: "cortex-m0plus", FlashOrigin: 0x10000000, FlashKB: 2048, RAMKB: 264}, false},
		{"ESP32-S3-WROOM-1", "RF_Module:ESP32-S3-WROOM-1", MCU{Family: FamilyESP32, Target: "esp32s3"}, false},
		{"ESP32-WROOM-32E", "RF_Module:ESP32-WROOM-32E", MCU{Family: FamilyESP32, Target: "esp32"}, false},
		{"AP2112K-3.3", "Regulator_Linear:AP2112K-3.3", MCU{}, true},
		// The library's nickname is not the part: an LED in a library named
		// after the board's MCU is no MCU.
		{"WS2812B", "RP2040_DevBoard:WS2812B", MCU{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			parts := []kicad.Part{{Refdes: "R1", Value: "10k", LibID: "Device:R"}, {Refdes: "U7", Value: tc.value, LibID: tc.libID}}
			got, err := DetectMCU(parts, nil, "")
			if tc.wantErr {
				if !errors.Is(err, ErrNoMCU) {
					t.Fatalf("DetectMCU = %+v, %v, want ErrNoMCU", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Reason, "the only candidate") {
				t.Errorf("reason %q", got.Reason)
			}
			got.Reason, got.Memory = "", "" // TestPartMemory checks Memory
			tc.want.Refdes, tc.want.Value, tc.want.LibID = "U7", tc.value, tc.libID
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// pinsOf lists placed pins of ref named names, numbered from 1.
func pinsOf(ref string, names ...string) []kicad.PlacedPin {
	var out []kicad.PlacedPin
	for i, n := range names {
		out = append(out, kicad.PlacedPin{Refdes: ref, Unit: 1, Number: fmt.Sprint(i + 1), Name: n, SheetPath: "/"})
	}
	return out
}

// TestDetectMCUChoosesAmongCandidates: the symbol name and the pins decide,
// U/IC references are preferred, and a real choice between MCUs is the
// engineer's (--mcu), with the candidates named.
func TestDetectMCUChoosesAmongCandidates(t *testing.T) {
	rp2040 := kicad.Part{Refdes: "U1", Value: "RP2040", LibID: "MCU_RaspberryPi:RP2040"}
	led := kicad.Part{Refdes: "D1", Value: "WS2812B", LibID: "RP2040_DevBoard:WS2812B"}
	prog := kicad.Part{Refdes: "J1", Value: "ESP32_PROG", LibID: "Connector:Conn_01x04"}
	mega := kicad.Part{Refdes: "U1", Value: "ATmega328P-AU", LibID: "MCU_Microchip_ATmega:ATmega328P-A"}
	usb := kicad.Part{Refdes: "U3", Value: "ATmega16U2-MU", LibID: "MCU_Microchip_ATmega:ATmega16U2-MU"}
	module := kicad.Part{Refdes: "M1", Value: "ESP32-WROOM-32E", LibID: "RF_Module:ESP32-WROOM-32E"}
	gpio := []string{"GPIO0", "GPIO1", "GPIO2", "GPIO3", "IOVDD", "GND", "RUN", "QSPI_SS"}
	var pins []kicad.PlacedPin
	pins = append(pins, pinsOf("U1", gpio...)...)
	pins = append(pins, pinsOf("D1", "VDD", "DOUT", "VSS", "DIN")...)
	pins = append(pins, pinsOf("J1", "Pin_1", "Pin_2", "Pin_3", "Pin_4")...)
	pins = append(pins, pinsOf("U3", "PB0", "PB1", "PB2", "PB3", "VCC", "GND", "RESET", "PC7")...)
	tests := []struct {
		name    string
		parts   []kicad.Part
		ref     string
		want    string // chosen refdes
		reason  []string
		wantErr error
		errHas  []string
	}{
		{name: "LED in the MCU's library", parts: []kicad.Part{led, rp2040}, want: "U1",
			reason: []string{"symbol RP2040 names cortex-m rp2040", "8 pins, 4 of them I/O ports", "the only candidate"}},
		{name: "header named like an MCU, too few pins", parts: []kicad.Part{prog, rp2040}, want: "U1",
			reason: []string{"the only candidate", "passed over J1 (ESP32_PROG: 4 pins)"}},
		{name: "only the header", parts: []kicad.Part{prog}, wantErr: ErrNoMCU, errHas: []string{"J1 (ESP32_PROG: 4 pins)"}},
		{name: "U reference preferred over a module", parts: []kicad.Part{module, rp2040}, want: "U1",
			reason: []string{"the only candidate with a U or IC reference (also: M1 (ESP32-WROOM-32E, esp32 esp32))"}},
		{name: "two MCUs", parts: []kicad.Part{mega, usb}, wantErr: ErrSeveralMCUs,
			errHas: []string{"U1 (ATmega328P-AU, avr atmega328p), U3 (ATmega16U2-MU, avr atmega16u2)", "--mcu REF"}},
		{name: "two MCUs, one named", parts: []kicad.Part{mega, usb}, ref: "U3", want: "U3",
			reason: []string{"named with --mcu (also: U1 (ATmega328P-AU, avr atmega328p))"}},
		{name: "named part is no MCU", parts: []kicad.Part{mega, usb, led}, ref: "D1", errHas: []string{"--mcu D1: not a supported microcontroller; the candidates are U1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DetectMCU(tc.parts, pins, tc.ref)
			if tc.want == "" {
				if err == nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Fatalf("DetectMCU = %+v, %v, want %v", got, err, tc.wantErr)
				}
				for _, h := range tc.errHas {
					if !strings.Contains(err.Error(), h) {
						t.Errorf("error %q lacks %q", err, h)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Refdes != tc.want {
				t.Errorf("chose %s (%s), want %s", got.Refdes, got.Reason, tc.want)
			}
			for _, h := range tc.reason {
				if !strings.Contains(got.Reason, h) {
					t.Errorf("reason %q lacks %q", got.Reason, h)
				}
			}
		})
	}
}

func TestRole(t *testing.T) {
	tests := map[string]string{
		"KEY_DIT": RoleButton, "BTN1": RoleButton, "/ui/SW2": RoleButton, "USER_BUTTON": RoleButton,
		"LED_R": RoleLED, "STATUS_LED": RoleLED, "LED1": RoleLED,
		"SWDIO": "", "SWCLK": "", "SWD": "", "CHG_STAT": "", "MOSI": "",
	}
	for net, want := range tests {
		if got := role(net); got != want {
			t.Errorf("role(%q) = %q, want %q", net, got, want)
		}
	}
}

// avrPinout is a small ATmega328P pin table: a button on PD2, an LED on PB5,
// the ISP pins, power and an unused pin.
const avrPinout = `# demo — Pinout

| Refdes | Pin | Name | Net | Type | Notes |
| --- | --- | --- | --- | --- | --- |
| U1 | 1 | PC6/~{RESET} | RESET | input |  |
| U1 | 4 | PD2 | BTN_USER | bidirectional |  |
| U1 | 7 | VCC | +5V | power_in |  |
| U1 | 8 | GND | GND | power_in |  |
| U1 | 9 | PB6/XTAL1 | NC | bidirectional |  |
| U1 | 17 | PB3 | MOSI | bidirectional |  |
| U1 | 18 | PB4 | MISO | bidirectional |  |
| U1 | 19 | PB5 | LED_STATUS | bidirectional |  |
| U2 | 1 | PB5 | OTHER_CHIP | bidirectional |  |
`

var atmega = MCU{Refdes: "U1", Value: "ATmega328P-P", Family: FamilyAVR, Target: "atmega328p"}

func TestPinDefs(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		mcu    MCU
		want   string // "MACRO=port/bit/gpio/role" per def
		happy  string
		header []string // lines pins.h must hold
	}{
		{
			name:  "AVR port pins",
			doc:   avrPinout,
			mcu:   atmega,
			want:  "PIN_RESET=C6/-1/ PIN_BTN_USER=D2/-1/button PIN_MOSI=B3/-1/ PIN_MISO=B4/-1/ PIN_LED_STATUS=B5/-1/led",
			happy: "BTN_USER (PD2) toggles LED_STATUS (PB5)",
			header: []string{"#define PIN_LED_STATUS PB5", "#define PORT_LED_STATUS PORTB", "#define PINREG_BTN_USER PIND",
				"#define APP_LED_BIT PIN_LED_STATUS", "#define APP_HAS_BUTTON 1", "#include <avr/io.h>"},
		},
		{
			name: "GPIO numbers, one define per net",
			doc: "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U3 | 2 | GPIO0 | UART_TX |\n| U3 | 3 | GPIO1 | UART_TX |\n" +
				"| U3 | 4 | GPIO2 | NC |\n| U3 | 5 | GPIO3 | DATA |\n| U3 | 6 | IOVDD | +3V3 |\n",
			mcu:    MCU{Refdes: "U3", Family: FamilyCortexM, Target: "rp2040"},
			want:   "PIN_UART_TX=/0/0/ PIN_DATA=/3/3/",
			happy:  "blink UART_TX (GPIO0)",
			header: []string{"/* UART_TX: U3 pin 2 GPIO0; also on GPIO1 */", "#define PIN_UART_TX 0", "#define APP_LED_GPIO PIN_UART_TX", "#define APP_HAS_BUTTON 0"},
		},
		{
			// The ESP32-S3 module's symbol names GPIO43/44/19/20 by their
			// UART and USB functions: they are GPIOs all the same.
			name: "ESP32-S3 alternate-function names",
			doc: "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U1 | 13 | USB_D- | USB_D- |\n| U1 | 14 | USB_D+ | USB_D+ |\n" +
				"| U1 | 36 | RXD0 | UART_RX |\n| U1 | 37 | TXD0 | UART_TX |\n| U1 | 6 | IO6 | LED_R |\n| U1 | 3 | EN | EN |\n",
			mcu:   MCU{Refdes: "U1", Family: FamilyESP32, Target: "esp32s3"},
			want:  "PIN_USB_DN=/19/19/ PIN_USB_DP=/20/20/ PIN_UART_RX=/44/44/ PIN_UART_TX=/43/43/ PIN_LED_R=/6/6/led",
			happy: "blink LED_R (IO6)",
			header: []string{"/* UART_TX: U1 pin 37 TXD0 (GPIO43) */", "#define PIN_UART_TX 43", "#define PIN_UART_RX 44",
				"#define PIN_USB_DN 19", "#define PIN_USB_DP 20", "/* LED_R: U1 pin 6 IO6 */"},
		},
		{
			// PB6/PB7 carry the 16 MHz crystal: they clock the chip and
			// are no GPIOs, though PINOUT.md names nets on them.
			name: "AVR crystal pins left out",
			doc: "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U1 | 9 | XTAL1/PB6 | XT1 |\n| U1 | 10 | XTAL2/PB7 | XT2 |\n" +
				"| U1 | 19 | PB5 | LED_STATUS |\n",
			mcu:    withClock(atmega, avrCrystalNetlist("Y1", "16MHz", true)),
			want:   "PIN_LED_STATUS=B5/-1/led",
			happy:  "blink LED_STATUS (PB5)",
			header: []string{"/* U1 pins 9, 10 drive the crystal that clocks it: not GPIOs here. */"},
		},
		{
			name:  "ESP32-C3 alternate-function names",
			doc:   "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U2 | 27 | TXD0 | TX |\n| U2 | 28 | RXD0 | RX |\n| U2 | 25 | USB_D+ | DP |\n",
			mcu:   MCU{Refdes: "U2", Family: FamilyESP32, Target: "esp32c3"},
			want:  "PIN_TX=/21/21/ PIN_RX=/20/20/ PIN_DP=/19/19/",
			happy: "blink TX (TXD0)",
		},
		{
			name:   "STM32 port pins as numbers",
			doc:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U1 | 10 | PA5 | LED |\n| U1 | 20 | PB12 | KEY |\n",
			mcu:    MCU{Refdes: "U1", Family: FamilyCortexM, Target: "stm32f1"},
			want:   "PIN_LED=A5/5/led PIN_KEY=B12/28/button",
			happy:  "KEY (PB12) toggles LED (PA5)",
			header: []string{"#define PIN_LED 5 /* PA5: port A * 16 + 5 */", "#define PIN_KEY 28 /* PB12: port B * 16 + 12 */"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defs, err := PinDefs([]byte(tc.doc), tc.mcu)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range defs {
				loc := fmt.Sprintf("/%d", d.Bit)
				if d.Port != "" {
					loc = fmt.Sprintf("%s%d", d.Port, d.Bit)
				}
				got = append(got, fmt.Sprintf("%s=%s/%d/%s", d.Macro, loc, d.GPIO, d.Role))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("defs:\n got %s\nwant %s", strings.Join(got, " "), tc.want)
			}
			if h := HappyPath(defs); h != tc.happy {
				t.Errorf("happy path %q, want %q", h, tc.happy)
			}
			hdr := string(PinsHeader(tc.mcu, "docs/PINOUT.md", defs))
			for _, line := range tc.header {
				if !strings.Contains(hdr, line+"\n") {
					t.Errorf("pins.h lacks %q:\n%s", line, hdr)
				}
			}
		})
	}
}

// repoWith makes a repository folder holding docs/PINOUT.md.
func repoWith(t *testing.T, pinout string) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "docs", "PINOUT.md"), []byte(pinout), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo
}

func have(tool string) bool {
	_, err := exec.LookPath(tool)
	return err == nil
}

// TestGenerateBuildsAndDrifts scaffolds, builds with the real toolchain when
// installed (scripts/setup.sh installs gcc-avr and gcc-arm-none-eabi), then
// shows Drift catching an edited PINOUT.md and a hand-edited pins.h.
func TestGenerateBuildsAndDrifts(t *testing.T) {
	tests := []struct {
		name      string
		mcu       MCU
		pinout    string
		toolchain string
		header    string // firmware-relative pins.h
		edit      [2]string
		wantStale string
		files     map[string][]string // firmware-relative file -> lines it must hold
		objdump   string              // the toolchain's objdump
		disasm    []string            // regexps the compiled firmware.elf's disassembly must match
		notDisasm []string            // and must not
	}{
		{
			name: "AVR ATmega328P", mcu: atmega, pinout: avrPinout, toolchain: "avr-gcc", header: "src/pins.h",
			edit:      [2]string{"| PB5 | LED_STATUS |", "| PB5 | NC |"},
			wantStale: "PIN_LED_STATUS removed",
			files:     map[string][]string{"Makefile": {"F_CPU      := 1000000UL", "# ASSUMED: the factory clock, the internal 8 MHz RC divided by 8 (no netlist)."}},
			objdump:   "avr-objdump",
			// The happy path is in main: DDRB bit 5 (LED_STATUS, PB5) made
			// an output, PIND (0x09) read for BTN_USER, PORTB (0x05)
			// toggled; the 20 ms debounce at 1 MHz is a 16-bit count.
			disasm:    []string{`sbi\s+0x04, 5`, `in\s+r[0-9]+, 0x09`, `out\s+0x05, r[0-9]+`},
			notDisasm: []string{`ldi\s+r[0-9]+, 0xF9`},
		},
		{
			// A 16 MHz crystal on XTAL1/XTAL2: F_CPU follows it, and the
			// compiled debounce delay is 16 times longer in cycles
			// (20 ms * 16 MHz / 5 cycles a turn = 0xF9FF).
			name: "AVR ATmega328P with a 16 MHz crystal", mcu: withClock(atmega, avrCrystalNetlist("Y1", "16MHz", true)), pinout: avrPinout, toolchain: "avr-gcc", header: "src/pins.h",
			edit:      [2]string{"| PB5 | LED_STATUS |", "| PB5 | NC |"},
			wantStale: "PIN_LED_STATUS removed",
			files: map[string][]string{
				"Makefile":  {"F_CPU      := 16000000UL", "# From the board: Y1 (16MHz) on U1 PB6/XTAL1, PB7/XTAL2. The fuses must select the"},
				"README.md": {"- `F_CPU` in the Makefile is 16000000 Hz, from the crystal: Y1 (16MHz) on U1 PB6/XTAL1, PB7/XTAL2."},
			},
			objdump: "avr-objdump",
			disasm:  []string{`sbi\s+0x04, 5`, `out\s+0x05, r[0-9]+`, `ldi\s+r[0-9]+, 0xF9`},
		},
		{
			// STM32F103C8: the linker script has its 20 KB of RAM, and
			// board.c drives the pins through RCC and GPIO registers: main
			// makes PC13 (GPIO 45) an output and reads PB12 (GPIO 28).
			name:      "Cortex-M STM32F103C8",
			mcu:       mustClassify(t, "U2", "STM32F103C8Tx"),
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U2 | 2 | PC13 | LED |\n| U2 | 25 | PB12 | KEY |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| PC13 | LED |", "| PC14 | LED |"},
			wantStale: "PIN_LED 45 -> 46",
			files: map[string][]string{
				"linker.ld":   {"	RAM   (rwx) : ORIGIN = 0x20000000, LENGTH = 20K", "	FLASH (rx)  : ORIGIN = 0x08000000, LENGTH = 64K"},
				"src/board.c": {"#define RCC_APB2ENR REG(0x40021018u)"},
			},
			objdump: "arm-none-eabi-objdump",
			disasm:  []string{`movs\s+r0, #45.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #28.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`, `\.word\s+0x40021000`},
		},
		{
			name:      "Cortex-M RP2040",
			mcu:       MCU{Refdes: "U3", Value: "RP2040", Family: FamilyCortexM, Target: "rp2040", CPU: "cortex-m0plus", FlashOrigin: 0x10000000, FlashKB: 2048, RAMKB: 264},
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U3 | 2 | GPIO0 | BTN_BOOT |\n| U3 | 37 | GPIO25 | LED |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| GPIO25 | LED |", "| GPIO24 | LED |"},
			wantStale: "PIN_LED 25 -> 24",
			// board.c drives SIO: GPIO25 made an output (GPIO_OE_SET) and
			// set/cleared (GPIO_OUT_SET/CLR).
			objdump: "arm-none-eabi-objdump",
			disasm: []string{`movs\s+r0, #25.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `\.word\s+0xd0000024`, `\.word\s+0xd0000014`, `\.word\s+0xd0000018`,
				`\.word\s+0x4000c008`},
		},
		{
			// An 8 MHz crystal on OSC_IN/OSC_OUT: board_init turns HSE on
			// (RCC_CR |= 0x10000), sets two flash wait states and the
			// prefetch buffer (0x12 into FLASH_ACR at 0x40022000), runs
			// the PLL x9 from HSE (RCC_CFGR |= 0x1d0000) with APB1 /2
			// (|= 0x400) and switches SYSCLK to it; SysTick (0xe000e000)
			// counts 72000 cycles a millisecond (reload 71999 = 0x1193f).
			name:      "Cortex-M STM32F103C8 with an 8 MHz crystal",
			mcu:       withClock(mustClassify(t, "U1", "STM32F103C8Tx"), stm32CrystalNetlist()),
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U1 | 2 | PC13 | LED |\n| U1 | 25 | PB12 | KEY |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| PC13 | LED |", "| PC14 | LED |"},
			wantStale: "PIN_LED 45 -> 46",
			files: map[string][]string{
				"src/board.h": {"#define CPU_HZ 72000000u"},
				"src/board.c": {"	RCC_CR |= 1u << 16;", "	FLASH_ACR = (1u << 4) | 2u;"},
				"README.md":   {"- Clock: `board_init` runs the core at 72000000 Hz (`CPU_HZ`): HSE from the 8 MHz crystal, PLL x9 = 72 MHz SYSCLK, flash latency 2, APB1 = SYSCLK/2; the crystal is X1 (8MHz) on U1 PD0-OSC_IN, PD1-OSC_OUT."},
			},
			objdump: "arm-none-eabi-objdump",
			disasm: []string{`orr\.w\s+r[0-9]+, r[0-9]+, #65536\s`, `movs\s+r[0-9]+, #18\n.*\n.*str`, `\.word\s+0x40022000`, `@ 0x1d0000`, `@ 0x400\n`,
				`\.word\s+0x0001193f`, `@ 0xe000e000`,
				`movs\s+r0, #45.*\n.*bl\s+[0-9a-f]+ <gpio_output>`},
		},
		{
			// A 12 MHz crystal on XIN/XOUT: XOSC started (STARTUP 47 =
			// (12000 + 128) / 256, CTRL 0xfabaa0 at 0x40024000), clk_ref
			// from it (CLK_REF_CTRL 0x40008030), PLL_SYS (0x40028000)
			// FBDIV 125, PRIM 6 << 16 | 2 << 12 = 0x62000, clk_sys from it;
			// SysTick reload 124999 (0x1e847).
			name:      "Cortex-M RP2040 with a 12 MHz crystal",
			mcu:       withClock(MCU{Refdes: "U3", Value: "RP2040", Family: FamilyCortexM, Target: "rp2040", CPU: "cortex-m0plus", FlashOrigin: 0x10000000, FlashKB: 2048, RAMKB: 264}, rp2040CrystalNetlist()),
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U3 | 2 | GPIO0 | BTN_BOOT |\n| U3 | 37 | GPIO25 | LED |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| GPIO25 | LED |", "| GPIO24 | LED |"},
			wantStale: "PIN_LED 25 -> 24",
			files: map[string][]string{
				"src/board.h": {"#define CPU_HZ 125000000u"},
				"src/board.c": {"	XOSC_STARTUP = 47u;", "	PLL_SYS_FBDIV_INT = 125u;", "	PLL_SYS_PRIM = (6u << 16) | (2u << 12);"},
			},
			objdump: "arm-none-eabi-objdump",
			disasm: []string{`\.word\s+0x40024000`, `\.word\s+0x00fabaa0`, `\.word\s+0x40008030`, `\.word\s+0x0001e847`, `movs\s+r[0-9], #47`,
				`\.word\s+0x40028000`, `movs\s+r[0-9], #125`},
		},
		{
			// nRF52832: LED on P0.17 and a button on P0.13 through GPIO P0
			// (0x50000000): PIN_CNF[17] = output, PIN_CNF[13] pull-up
			// input, IN read, OUTSET / OUTCLR written (the compiler builds
			// the addresses from 0x50000000 / 4 = 0x14000000); SysTick
			// counts the 64 MHz HFINT (reload 63999 = 0xf9ff).
			name:      "Cortex-M nRF52832",
			mcu:       mustClassify(t, "U4", "nRF52832-QFxx"),
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U4 | 15 | P0.13 | BTN_USER |\n| U4 | 21 | P0.17 | LED |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| P0.17 | LED |", "| P0.18 | LED |"},
			wantStale: "PIN_LED 17 -> 18",
			files: map[string][]string{
				"src/board.h": {"#define CPU_HZ 64000000u"},
			},
			objdump:   "arm-none-eabi-objdump",
			disasm:    []string{`movs\s+r0, #17.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #13.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`, `@ (0x14000000|0x50000[0-9a-f]{3})`, `#63999\s`},
			notDisasm: []string{`<shadow>`},
		},
		{
			// SAM D21G18A: LED on PB03 (group 1: GPIO 35, not 19) and a
			// button on PA15 through PORT (0x41004400): DIRSET, PINCFG
			// INEN|PULLEN, IN read, OUTSET/OUTCLR (the compiler keeps the
			// group address as 0x41004400 / 0x80 = 0x820088); SysTick
			// counts the 1 MHz reset clock (reload 999 = 0x3e7).
			name:      "Cortex-M SAMD21G18A",
			mcu:       mustClassify(t, "U5", "ATSAMD21G18A-AU"),
			pinout:    "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n| U5 | 24 | PA15 | BTN_USER |\n| U5 | 48 | PB03 | LED |\n",
			toolchain: "arm-none-eabi-gcc", header: "src/pins.h",
			edit:      [2]string{"| PB03 | LED |", "| PB02 | LED |"},
			wantStale: "PIN_LED 35 -> 34",
			files: map[string][]string{
				"src/board.h": {"#define CPU_HZ 1000000u"},
				"src/pins.h":  {"#define PIN_LED 35 /* PB3: port B * 32 + 3 */"},
				"linker.ld":   {"	RAM   (rwx) : ORIGIN = 0x20000000, LENGTH = 32K"},
			},
			objdump:   "arm-none-eabi-objdump",
			disasm:    []string{`movs\s+r0, #35.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #15.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`, `\.word\s+0x(41004400|00820088)`, `\.word\s+0x000003e7`},
			notDisasm: []string{`<shadow>`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			repo := repoWith(t, tc.pinout)
			o := Options{Repo: repo, Pinout: "docs/PINOUT.md", Project: "demo"}
			res, err := Generate(context.Background(), tc.mcu, []byte(tc.pinout), o)
			if err != nil {
				t.Fatal(err)
			}
			if res.PinsHeader != "firmware/"+tc.header {
				t.Errorf("pins header at %s, want firmware/%s", res.PinsHeader, tc.header)
			}
			if have(tc.toolchain) && have("make") {
				if res.Build.State != Compiled {
					t.Fatalf("build %s: %s\n%s", res.Build.State, res.Build.Reason, res.Build.Output)
				}
				for _, a := range []string{"build/firmware.elf", "build/firmware.hex"} {
					if fi, err := os.Stat(filepath.Join(repo, "firmware", a)); err != nil || fi.Size() == 0 {
						t.Errorf("%s missing or empty after a compiled build: %v", a, err)
					}
				}
				t.Logf("%s", res.Build.Line())
				if !strings.HasPrefix(res.Build.Line(), "compiled with ") {
					t.Errorf("status line %q", res.Build.Line())
				}
				if tc.objdump != "" && have(tc.objdump) {
					out, err := exec.Command(tc.objdump, "-d", filepath.Join(repo, "firmware", "build", "firmware.elf")).CombinedOutput()
					if err != nil {
						t.Fatalf("%s: %v\n%s", tc.objdump, err, out)
					}
					for _, re := range tc.disasm {
						if !regexp.MustCompile(re).Match(out) {
							t.Errorf("firmware.elf's disassembly has no %s", re)
						}
					}
					if t.Failed() {
						t.Logf("disassembly:\n%s", out)
					}
					for _, re := range tc.notDisasm {
						if regexp.MustCompile(re).Match(out) {
							t.Errorf("firmware.elf's disassembly has %s", re)
						}
					}
				}
			} else {
				if res.Build.State != NotCompiled || !strings.Contains(res.Build.Line(), "not compiled here: ") {
					t.Errorf("without %s: status %+v, want not compiled here", tc.toolchain, res.Build)
				}
				t.Logf("%s not installed: build not exercised", tc.toolchain)
			}
			if err := res.Build.Gate(); err != nil {
				t.Errorf("gate: %v", err)
			}
			for f, lines := range tc.files {
				src, err := os.ReadFile(filepath.Join(repo, "firmware", f))
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range lines {
					if !strings.Contains(string(src), l+"\n") {
						t.Errorf("%s lacks %q:\n%s", f, l, src)
					}
				}
			}

			// Regenerating changes nothing and keeps the user's files.
			again, err := Generate(context.Background(), tc.mcu, []byte(tc.pinout), Options{Repo: repo, Pinout: "docs/PINOUT.md", Project: "demo", NoBuild: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Written) != 0 || len(again.Kept) == 0 {
				t.Errorf("second run wrote %v, kept %v; want nothing written", again.Written, again.Kept)
			}
			if f, err := Drift(repo); err != nil || len(f) != 0 {
				t.Fatalf("Drift on a fresh scaffold = %+v, %v; want none", f, err)
			}

			// PINOUT.md changes: pins.h is stale.
			edited := strings.Replace(tc.pinout, tc.edit[0], tc.edit[1], 1)
			if edited == tc.pinout {
				t.Fatal("edit did not apply")
			}
			pinoutPath := filepath.Join(repo, "docs", "PINOUT.md")
			if err := os.WriteFile(pinoutPath, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Drift(repo)
			if err != nil || len(f) != 1 || f[0].Kind != DriftStale || !strings.Contains(f[0].Message, tc.wantStale) {
				t.Fatalf("Drift after editing PINOUT.md = %+v, %v; want one stale finding naming %q", f, err, tc.wantStale)
			}

			// A hand edit to pins.h is told apart from a stale one.
			if err := os.WriteFile(pinoutPath, []byte(tc.pinout), 0o644); err != nil {
				t.Fatal(err)
			}
			hdrPath := filepath.Join(repo, "firmware", filepath.FromSlash(tc.header))
			src, err := os.ReadFile(hdrPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(hdrPath, append(src, "#define PIN_EXTRA 3\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err = Drift(repo)
			if err != nil || len(f) != 1 || f[0].Kind != DriftHandEdited {
				t.Fatalf("Drift after a hand edit = %+v, %v; want one hand_edited finding", f, err)
			}
		})
	}
}

// TestDriftSkipsTheFoldersSyncSkips: Drift and sync's pin audit read the
// same headers (pinsh.ReadAll): none below hidden folders, node_modules or
// build. A generated header whose PINOUT.md is gone is a finding where it
// counts, and nothing in a dependency's folder.
func TestDriftSkipsTheFoldersSyncSkips(t *testing.T) {
	repo := t.TempDir()
	hdr := "/* pins.h\n * copperhead:pins family=esp32 target=esp32s3 refdes=U1 source=docs/PINOUT.md sha256=" + strings.Repeat("0", 64) + "\n */\n#define PIN_LED 4\n"
	for _, p := range []string{"main/pins.h", "node_modules/lib/pins.h", "build/pins.h", ".pio/pins.h"} {
		path := filepath.Join(repo, "firmware", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(hdr), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Drift(repo)
	if err != nil || len(f) != 1 || f[0].Header != "firmware/main/pins.h" || f[0].Kind != DriftNoPinout {
		t.Fatalf("Drift = %+v, %v; want one no_pinout finding for firmware/main/pins.h", f, err)
	}
}

// TestESP32FixtureAgreesWithSync generates pins.h for the open-telegraph
// board and runs sync's own pin-header audit on it: the two must agree.
func TestESP32FixtureAgreesWithSync(t *testing.T) {
	fixture := "../../examples/open-telegraph"
	sch, err := kicad.LoadSchematic(filepath.Join(fixture, "hardware", "open-telegraph.kicad_sch"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := DetectMCU(design.Parts(sch), sch.Pins(), "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Refdes != "U1" || m.Family != FamilyESP32 || m.Target != "esp32s3" {
		t.Fatalf("MCU %+v, want U1 esp32s3", m)
	}
	pinout, err := os.ReadFile(filepath.Join(fixture, "docs", "PINOUT.md"))
	if err != nil {
		t.Fatal(err)
	}
	repo := repoWith(t, string(pinout))
	res, err := Generate(context.Background(), m, pinout, Options{Repo: repo, Pinout: "docs/PINOUT.md", Project: "open-telegraph"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Build.State != NotCompiled || !strings.HasPrefix(res.Build.Line(), "not compiled here: ") {
		t.Errorf("ESP32 build status %+v, want not compiled here", res.Build)
	}
	if res.HappyPath != "KEY_DIT (IO4) toggles LED_R (IO6)" {
		t.Errorf("happy path %q", res.HappyPath)
	}
	hdr, err := os.ReadFile(filepath.Join(repo, "firmware", "main", "pins.h"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#define PIN_KEY_DIT 4\n", "#define PIN_KEY_DAH 5\n", "#define PIN_LED_B 15\n", "#define PIN_CHG_STAT 16\n",
		"#define PIN_USB_DN 19\n", "#define PIN_USB_DP 20\n"} {
		if !strings.Contains(string(hdr), want) {
			t.Errorf("pins.h lacks %q", want)
		}
	}
	for _, f := range []string{"CMakeLists.txt", "main/CMakeLists.txt", "main/main.c", "sdkconfig.defaults", ".gitignore", "README.md"} {
		if _, err := os.Stat(filepath.Join(repo, "firmware", filepath.FromSlash(f))); err != nil {
			t.Errorf("ESP-IDF layout lacks %s", f)
		}
	}
	cfg := config.DefaultConfig()
	rep := consistency.Analyze(consistency.State{
		Config:     cfg,
		Files:      design.Files{cfg.DocPath(design.PinoutDoc): pinout},
		PinHeaders: design.Files{"firmware/main/pins.h": hdr},
	})
	for _, i := range rep.Inconsistencies {
		if i.Kind == consistency.KindPinHeader {
			t.Errorf("sync's pin audit disagrees with the generated header: %+v", i)
		}
	}
}

// TestPartMemory: the linker script's sizes come from the part table by
// part number (STM32F103C8 is 64 KB flash / 20 KB RAM, not the series'
// smallest), and a part not in the table says its sizes are ASSUMED.
func TestPartMemory(t *testing.T) {
	tests := []struct {
		part          string
		flash, ram    int
		memory        string // substring of MCU.Memory
		wantLinkerRAM string // line of linker.ld ("" for AVR)
	}{
		{"STM32F103C8Tx", 64, 20, "part table (STM32F103X8)", "LENGTH = 20K"},
		{"STM32F103CBTx", 128, 20, "part table (STM32F103XB)", "LENGTH = 20K"},
		{"STM32F103RET", 512, 64, "part table (STM32F103XE)", "LENGTH = 64K"},
		{"STM32F030F4Px", 16, 4, "part table (STM32F030X4)", "LENGTH = 4K"},
		{"STM32F030C8Tx", 64, 8, "part table (STM32F030X8)", "LENGTH = 8K"},
		{"STM32F401CCUx", 256, 64, "part table (STM32F401XC)", "LENGTH = 64K"},
		{"STM32F411CEUx", 512, 128, "part table (STM32F411XE)", "LENGTH = 128K"},
		{"RP2040", 2048, 264, "264 KB SRAM; the flash is the external QSPI chip, ASSUMED", "LENGTH = 264K"},
		{"nRF52840-QIAA", 1024, 256, "part table (NRF52840)", "LENGTH = 256K"},
		{"ATSAMD21G18A-AU", 256, 32, "part table (SAMD21X18)", "LENGTH = 32K"},
		{"STM32L476RGTx", 1024, 8, "ASSUMED: STM32L476XG not in the part table", "LENGTH = 8K"},
		{"ATmega328P-PU", 0, 0, "part table (ATMEGA328P): 32 KB flash, 2 KB SRAM", ""},
		{"ATmega32U4-AU", 0, 0, "part table (ATMEGA32U4): 32 KB flash, 2.5 KB SRAM", ""},
	}
	for _, tc := range tests {
		t.Run(tc.part, func(t *testing.T) {
			m, ok := classify(tc.part + " " + tc.part)
			if !ok {
				t.Fatalf("classify(%s) failed", tc.part)
			}
			if m.FlashKB != tc.flash || m.RAMKB != tc.ram || !strings.Contains(m.Memory, tc.memory) {
				t.Errorf("%s: %d KB flash, %d KB RAM, %q; want %d, %d, %q", tc.part, m.FlashKB, m.RAMKB, m.Memory, tc.flash, tc.ram, tc.memory)
			}
			if tc.wantLinkerRAM == "" {
				return
			}
			m.Refdes, m.Value = "U1", tc.part
			repo := repoWith(t, "| Refdes | Pin | Name | Net |\n|---|---|---|---|\n")
			if _, err := Generate(context.Background(), m, []byte("| Refdes | Pin | Name | Net |\n|---|---|---|---|\n"), Options{Repo: repo, Pinout: "docs/PINOUT.md", NoBuild: true}); err != nil {
				t.Fatal(err)
			}
			ld, err := os.ReadFile(filepath.Join(repo, "firmware", "linker.ld"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(ld), "RAM   (rwx) : ORIGIN = 0x20000000, "+tc.wantLinkerRAM+"\n") || !strings.Contains(string(ld), tc.memory) {
				t.Errorf("linker.ld lacks RAM %s or the memory note:\n%s", tc.wantLinkerRAM, ld)
			}
		})
	}
}

// avrCrystalNetlist is an ATmega328P (U1) board's netlist: a crystal Y1 on
// XTAL1/XTAL2 with its load caps, valued value.
func avrCrystalNetlist(ref, value string, xtalPins bool) *kicad.Netlist {
	n1, n2 := "PB6/XTAL1", "PB7/XTAL2"
	if !xtalPins {
		n1, n2 = "PD6", "PD7" // the crystal hangs on plain GPIOs: it clocks nothing
	}
	return &kicad.Netlist{
		Components: []kicad.NetComponent{
			{Refdes: "U1", Value: "ATmega328P-P", LibID: "MCU_Microchip_ATmega:ATmega328P-P"},
			{Refdes: ref, Value: value, LibID: "Device:Crystal"},
			{Refdes: "C1", Value: "22pF", LibID: "Device:C"},
		},
		Nets: []kicad.Net{
			{Name: "/XT1", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "9", PinFunction: n1}, {Refdes: ref, Pin: "1"}, {Refdes: "C1", Pin: "1"}}},
			{Name: "/XT2", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "10", PinFunction: n2}, {Refdes: ref, Pin: "2"}}},
			{Name: "GND", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "8", PinFunction: "GND"}, {Refdes: "C1", Pin: "2"}}},
		},
	}
}

// TestDetectClock: the clock is the crystal on the MCU's oscillator pins,
// read through the netlist; otherwise the factory default, marked ASSUMED.
func TestDetectClock(t *testing.T) {
	stm := MCU{Refdes: "U1", Family: FamilyCortexM, Target: "stm32f1"}
	stmNL := &kicad.Netlist{
		Components: []kicad.NetComponent{{Refdes: "U1", Value: "STM32F103C8Tx"}, {Refdes: "X1", Value: "8MHz", LibID: "Device:Crystal_GND24"}, {Refdes: "Y2", Value: "32.768kHz"}},
		Nets: []kicad.Net{
			{Name: "HSE_IN", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "5", PinFunction: "PD0-OSC_IN"}, {Refdes: "X1", Pin: "1"}}},
			{Name: "HSE_OUT", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "6", PinFunction: "PD1-OSC_OUT"}, {Refdes: "X1", Pin: "3"}}},
			{Name: "LSE_IN", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "3", PinFunction: "PC14-OSC32_IN"}, {Refdes: "Y2", Pin: "1"}}},
		},
	}
	tests := []struct {
		name    string
		mcu     MCU
		nl      *kicad.Netlist
		hz      int64
		assumed bool
		source  string
	}{
		{"16 MHz crystal on XTAL1/XTAL2", atmega, avrCrystalNetlist("Y1", "16MHz", true), 16_000_000, false, "Y1 (16MHz) on U1 PB6/XTAL1, PB7/XTAL2"},
		{"X refdes, spaced value", atmega, avrCrystalNetlist("X1", "8 MHz", true), 8_000_000, false, "X1 (8 MHz) on U1"},
		{"decimal value with load", atmega, avrCrystalNetlist("Y1", "18.432MHz 20pF", true), 18_432_000, false, "Y1 (18.432MHz 20pF)"},
		{"crystal on plain GPIOs", atmega, avrCrystalNetlist("Y1", "16MHz", false), 1_000_000, true, "ASSUMED: the factory clock, the internal 8 MHz RC divided by 8 (U1 has no crystal-oscillator pin on a net)"},
		{"no frequency in the value", atmega, avrCrystalNetlist("Y1", "Crystal", true), 1_000_000, true, "crystal Y1 on the oscillator pins names no frequency"},
		{"no netlist", atmega, nil, 1_000_000, true, "ASSUMED: the factory clock, the internal 8 MHz RC divided by 8 (kicad-cli not found)"},
		{"STM32 HSE, not the 32 kHz LSE", stm, stmNL, 8_000_000, false, "X1 (8MHz) on U1 PD0-OSC_IN, PD1-OSC_OUT"},
		// KiCad 9's STM32F103C8Tx names pins 5/6 "PD0"/"PD1" (RCC_OSC_IN
		// is an alternate): the crystal on them is found all the same.
		{"STM32 HSE on port-named PD0/PD1", stm, portNamed(stmNL, map[string]string{"PD0-OSC_IN": "PD0", "PD1-OSC_OUT": "PD1", "PC14-OSC32_IN": "PC14"}), 8_000_000, false, "X1 (8MHz) on U1 PD0 (OSC_IN), PD1 (OSC_OUT)"},
		{"SAMD21 XOSC on PA14/PA15", MCU{Refdes: "U1", Family: FamilyCortexM, Target: "samd21"}, portNamed(stmNL, map[string]string{"PD0-OSC_IN": "PA14", "PD1-OSC_OUT": "PA15", "PC14-OSC32_IN": "PA00"}), 8_000_000, false, "X1 (8MHz) on U1 PA14 (XIN), PA15 (XOUT)"},
		{"port names mean nothing on AVR", atmega, portNamed(stmNL, map[string]string{"PD0-OSC_IN": "PD0", "PD1-OSC_OUT": "PD1"}), 1_000_000, true, "has no crystal-oscillator pin on a net"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DetectClock(tc.mcu, tc.nl, map[bool]string{true: "kicad-cli not found"}[tc.nl == nil])
			if c.Hz != tc.hz || c.Assumed != tc.assumed || !strings.Contains(c.Source, tc.source) {
				t.Errorf("DetectClock = %+v; want %d Hz, assumed %v, source containing %q", c, tc.hz, tc.assumed, tc.source)
			}
		})
	}
}

// stm32CrystalNetlist is an STM32F103C8 (U1) board's netlist: an 8 MHz
// crystal X1 on OSC_IN/OSC_OUT.
func stm32CrystalNetlist() *kicad.Netlist {
	return &kicad.Netlist{
		Components: []kicad.NetComponent{{Refdes: "U1", Value: "STM32F103C8Tx"}, {Refdes: "X1", Value: "8MHz", LibID: "Device:Crystal_GND24"}},
		Nets: []kicad.Net{
			{Name: "HSE_IN", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "5", PinFunction: "PD0-OSC_IN"}, {Refdes: "X1", Pin: "1"}}},
			{Name: "HSE_OUT", Nodes: []kicad.NetNode{{Refdes: "U1", Pin: "6", PinFunction: "PD1-OSC_OUT"}, {Refdes: "X1", Pin: "3"}}},
		},
	}
}

// rp2040CrystalNetlist is an RP2040 (U3) board's netlist: a 12 MHz crystal
// Y1 on XIN/XOUT.
func rp2040CrystalNetlist() *kicad.Netlist {
	return &kicad.Netlist{
		Components: []kicad.NetComponent{{Refdes: "U3", Value: "RP2040"}, {Refdes: "Y1", Value: "12MHz", LibID: "Device:Crystal"}},
		Nets: []kicad.Net{
			{Name: "/XIN", Nodes: []kicad.NetNode{{Refdes: "U3", Pin: "20", PinFunction: "XIN"}, {Refdes: "Y1", Pin: "1"}}},
			{Name: "/XOUT", Nodes: []kicad.NetNode{{Refdes: "U3", Pin: "21", PinFunction: "XOUT"}, {Refdes: "Y1", Pin: "2"}}},
		},
	}
}

// portNamed is a copy of nl with its pin functions renamed.
func portNamed(nl *kicad.Netlist, rename map[string]string) *kicad.Netlist {
	out := &kicad.Netlist{Components: nl.Components}
	for _, n := range nl.Nets {
		c := kicad.Net{Name: n.Name}
		for _, node := range n.Nodes {
			if r, ok := rename[node.PinFunction]; ok {
				node.PinFunction = r
			}
			c.Nodes = append(c.Nodes, node)
		}
		out.Nets = append(out.Nets, c)
	}
	return out
}

func withClock(m MCU, nl *kicad.Netlist) MCU {
	m.Clock = DetectClock(m, nl, "")
	return m
}

func mustClassify(t *testing.T, ref, part string) MCU {
	m, ok := classify(part)
	if !ok {
		t.Fatalf("classify(%s) failed", part)
	}
	m.Refdes, m.Value = ref, part
	return m
}

// TestPlanCore: board_init's clock plan follows the crystal the part can
// use, and keeps the reset clock, ASSUMED, otherwise.
func TestPlanCore(t *testing.T) {
	xtal := func(m MCU, hz int64) MCU {
		m.Clock = Clock{Hz: hz, Source: "Y1 on " + m.Refdes}
		return m
	}
	reset := func(m MCU) MCU { m.Clock = DetectClock(m, nil, "no netlist"); return m }
	stm := mustClassify(t, "U1", "STM32F103C8Tx")
	rp := MCU{Refdes: "U2", Value: "RP2040", Family: FamilyCortexM, Target: "rp2040"}
	nrf := mustClassify(t, "U3", "nRF52840")
	samd := mustClassify(t, "U4", "ATSAMD21G18A")
	samd51 := mustClassify(t, "U5", "ATSAMD51J19A")
	g0 := mustClassify(t, "U6", "STM32G031K8Tx")
	tests := []struct {
		name             string
		mcu              MCU
		hz               int64
		crystal, assumed bool
		mul, latency     int
		apb1Div2         bool
		delay            int
		setup            string
	}{
		{"STM32F1 8 MHz: x9 = 72 MHz", xtal(stm, 8_000_000), 72_000_000, true, false, 9, 2, true, 0, "HSE from the 8 MHz crystal, PLL x9 = 72 MHz SYSCLK, flash latency 2, APB1 = SYSCLK/2"},
		{"STM32F1 12 MHz: x6 = 72 MHz", xtal(stm, 12_000_000), 72_000_000, true, false, 6, 2, true, 0, "PLL x6 = 72 MHz"},
		{"STM32F1 16 MHz: x4 = 64 MHz", xtal(stm, 16_000_000), 64_000_000, true, false, 4, 2, true, 0, "PLL x4 = 64 MHz"},
		{"STM32F1 4 MHz: x16 = 64 MHz", xtal(stm, 4_000_000), 64_000_000, true, false, 16, 2, true, 0, "PLL x16 = 64 MHz"},
		{"STM32F1 25 MHz: outside HSE", xtal(stm, 25_000_000), 8_000_000, false, true, 0, 0, false, 0, "ASSUMED: the 8 MHz HSI it starts on (the 25 MHz crystal is outside HSE's 4-16 MHz)"},
		{"STM32F1 no crystal: HSI", reset(stm), 8_000_000, false, true, 0, 0, false, 0, "ASSUMED: the 8 MHz HSI it starts on (no netlist)"},
		{"RP2040 12 MHz: XOSC, PLL_SYS to 125 MHz", xtal(rp, 12_000_000), 125_000_000, true, false, 0, 0, false, 47, "XOSC from the 12 MHz crystal (startup delay 47 x 256 cycles, about 1 ms) as clk_ref, PLL_SYS x125 = 1500 MHz VCO, /6 /2 = 125 MHz clk_sys"},
		{"RP2040 10 MHz: XOSC, no PLL", xtal(rp, 10_000_000), 10_000_000, true, false, 0, 0, false, 39, "as clk_ref and clk_sys; PLL_SYS not used (its 125 MHz setting, FBDIV 125, POSTDIV 6 x 2, is for a 12 MHz crystal)"},
		{"RP2040 16 MHz: outside XOSC", xtal(rp, 16_000_000), 6_000_000, false, true, 0, 0, false, 0, "outside XOSC's 1-15 MHz"},
		{"RP2040 no crystal: ROSC", reset(rp), 6_000_000, false, true, 0, 0, false, 0, "ASSUMED: the ring oscillator"},
		{"nRF52 32 MHz: HFXO", xtal(nrf, 32_000_000), 64_000_000, true, false, 0, 0, false, 0, "HFXO started from the 32 MHz crystal"},
		{"nRF52 no crystal: HFINT", reset(nrf), 64_000_000, false, false, 0, 0, false, 0, "the 64 MHz HFINT"},
		{"SAMD21 16 MHz: XOSC as GCLK0", xtal(samd, 16_000_000), 16_000_000, true, false, 0, 1, false, 0, "XOSC from the 16 MHz crystal (GAIN 3, startup about 1 ms) as GCLK0, flash wait states 1"},
		{"SAMD21 8 MHz: GAIN 2, no wait state", xtal(samd, 8_000_000), 8_000_000, true, false, 0, 0, false, 0, "(GAIN 2, startup about 1 ms) as GCLK0, flash wait states 0"},
		{"SAMD21 32 MHz: GAIN 4, 2 wait states", xtal(samd, 32_000_000), 32_000_000, true, false, 0, 2, false, 0, "(GAIN 4, startup about 1 ms) as GCLK0, flash wait states 2"},
		{"SAMD21 40 MHz: outside XOSC", xtal(samd, 40_000_000), 1_000_000, false, true, 0, 0, false, 0, "ASSUMED: OSC8M divided by 8 (1 MHz), what it starts on (the 40 MHz crystal is outside XOSC's 0.4-32 MHz)"},
		{"SAMD21 no crystal: OSC8M/8", reset(samd), 1_000_000, false, true, 0, 0, false, 0, "ASSUMED: OSC8M divided by 8"},
		{"SAMD51 reset clock", reset(samd51), 48_000_000, false, true, 0, 0, false, 0, "DFLL48M"},
		{"SAMD51 12 MHz: XOSC0 as GCLK0", xtal(samd51, 12_000_000), 12_000_000, true, false, 0, 0, false, 0, "XOSC0 from the 12 MHz crystal (IMULT 4, IPTAT 3, startup about 1 ms) as GCLK0, flash wait states by NVMCTRL AUTOWS"},
		{"SAMD51 8 MHz: IMULT 3, IPTAT 2", xtal(samd51, 8_000_000), 8_000_000, true, false, 0, 0, false, 0, "(IMULT 3, IPTAT 2,"},
		{"SAMD51 48 MHz: IMULT 6", xtal(samd51, 48_000_000), 48_000_000, true, false, 0, 0, false, 0, "(IMULT 6, IPTAT 3,"},
		{"SAMD51 4 MHz: outside XOSC0", xtal(samd51, 4_000_000), 48_000_000, false, true, 0, 0, false, 0, "ASSUMED: the 48 MHz DFLL48M (open loop) it starts on (the 4 MHz crystal is outside XOSC0's 8-48 MHz)"},
		{"STM32G0: stubs, no CPU_HZ", xtal(g0, 8_000_000), 0, false, true, 0, 0, false, 0, "board_init is a stub"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := PlanCore(tc.mcu)
			if c.Hz != tc.hz || c.Crystal != tc.crystal || c.Assumed != tc.assumed || c.PLLMul != tc.mul || c.Latency != tc.latency ||
				c.APB1Div2 != tc.apb1Div2 || c.XoscDelay != tc.delay || !strings.Contains(c.Setup, tc.setup) {
				t.Errorf("PlanCore = %+v; want %d Hz, crystal %v, assumed %v, x%d, latency %d, APB1/2 %v, delay %d, setup containing %q",
					c, tc.hz, tc.crystal, tc.assumed, tc.mul, tc.latency, tc.apb1Div2, tc.delay, tc.setup)
			}
		})
	}
	if got := PlanCore(samd51).PortBase; got != 0x41008000 {
		t.Errorf("SAMD51 PORT at %#x, want 0x41008000", got)
	}
	if got := PlanCore(samd).PortBase; got != 0x41004400 {
		t.Errorf("SAMD21 PORT at %#x, want 0x41004400", got)
	}
}
