// Package firmware owns the firmware scaffold of a board (spec §2.5, create
// stage 7): a project per MCU family found in the schematic, with a pins.h
// generated from docs/PINOUT.md, and the gate that the vendor toolchain
// builds it.
//
//	AVR (ATmega, ATtiny)        avr-gcc + avr-libc, Makefile; compiled here when installed
//	Cortex-M (STM32, RP2040,    arm-none-eabi-gcc bare metal: startup.c, linker.ld,
//	  nRF52, SAMD)              Makefile; register-level clock and GPIO drivers for
//	                            STM32F1, RP2040, nRF52 and SAMD (stubs for the rest);
//	                            compiled here when installed
//	ESP32                       ESP-IDF project layout; never compiled by copperhead
//
// PINOUT.md is the single source of truth for pins. pins.h holds one
// "#define PIN_<NET> <pin>" per net on a GPIO of the MCU (the format is
// internal/pinsh's, so sync's pin audit and this package agree): the
// port pin for AVR (PB5, with PORT_/DDR_/PINREG_ companions), the GPIO
// number for the others. It is regenerated on every run and carries a marker
// line recording its inputs and a hash of its body, so Drift can tell a
// stale header (PINOUT.md changed) from a hand-edited one. Every other
// scaffold file is written once and then belongs to the user.
//
// The happy path main() is chosen from net names: a button net (KEY, BTN,
// SW<n>, ...) toggling an LED net; else the LED (or the first GPIO) blinks.
//
// It must never import llm, agent or research: scaffolding and building
// firmware is deterministic and runs with no model and no network.
package firmware
