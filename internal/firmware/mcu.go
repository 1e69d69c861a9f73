package firmware

import (
	"errors"
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

// DetectMCU finds the microcontroller among parts (the first, in refdes
// order, that any rule below recognises by its value or library id).
func DetectMCU(parts []kicad.Part) (MCU, error) {
	for _, p := range parts {
		if strings.HasPrefix(p.Refdes, "#") {
			continue
		}
		if m, ok := classify(p.Value + " " + p.LibID); ok {
			m.Refdes, m.Value, m.LibID = p.Refdes, p.Value, p.LibID
			return m, nil
		}
	}
	return MCU{}, ErrNoMCU
}

// classify recognises an MCU from its value and library id. Memory sizes
// for Cortex-M are the smallest of the series unless the part number says
// (STM32's flash-size letter): a linker script that claims too little memory
// links and runs, one that claims too much does not.
func classify(s string) (MCU, bool) {
	u := strings.ToUpper(s)
	if m := avrRE.FindStringSubmatch(u); m != nil {
		return MCU{Family: FamilyAVR, Target: strings.ToLower("at" + m[1] + m[2])}, true
	}
	if m := esp32RE.FindStringSubmatch(u); m != nil {
		return MCU{Family: FamilyESP32, Target: strings.ToLower("esp32" + m[1])}, true
	}
	if strings.Contains(u, "RP2040") {
		return MCU{Family: FamilyCortexM, Target: "rp2040", CPU: "cortex-m0plus", FlashOrigin: 0x10000000, FlashKB: 2048, RAMKB: 264}, true
	}
	if strings.Contains(u, "NRF52") {
		return MCU{Family: FamilyCortexM, Target: "nrf52", CPU: "cortex-m4", FlashOrigin: 0, FlashKB: 192, RAMKB: 24}, true
	}
	if m := samdRE.FindStringSubmatch(u); m != nil {
		cpu := "cortex-m0plus"
		if m[2] >= "51" {
			cpu = "cortex-m4"
		}
		return MCU{Family: FamilyCortexM, Target: strings.ToLower("sam" + m[1] + m[2]), CPU: cpu, FlashOrigin: 0, FlashKB: 16, RAMKB: 4}, true
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
		return MCU{Family: FamilyCortexM, Target: strings.ToLower("stm32" + series), CPU: cpu, FlashOrigin: 0x08000000, FlashKB: flash, RAMKB: ram}, true
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
