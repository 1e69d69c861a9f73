// Package pinsh owns the pins.h format, the one firmware pin header both
// sides of copperhead read: internal/firmware generates it from PINOUT.md and
// checks its own headers for drift, internal/consistency (sync) audits every
// header against PINOUT.md.
//
// A firmware pin header is any file named pins.h below firmware/ (hidden
// folders, node_modules and build excepted: ReadAll). Its pin lines read
//
//	#define PIN_<NET> <value>
//
// where <NET> is the net name spelled by PinMacro (upper case, "+" as P, "-"
// as N, every other character outside [A-Z0-9] as "_": USB_D+ is
// PIN_USB_DP); Parse reads them, and a value that is a GPIO number (a decimal
// literal, optionally in parentheses or as GPIO_NUM_<n>) as that number. A
// header copperhead generated carries a Marker line recording its inputs and
// the hash of its body.
//
// It is a leaf (it imports only repofs): it must never import design,
// firmware, consistency, llm, agent or research.
package pinsh
