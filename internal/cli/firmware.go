package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/firmware"
	"copperhead/internal/textfmt"
)

func newFirmwareCmd(a *app) *cobra.Command {
	var out, mcuRef string
	var noBuild bool
	cmd := &cobra.Command{
		Use:   "firmware",
		Short: "Scaffold firmware for the board's MCU with pins.h generated from PINOUT.md, and build it",
		Long: `firmware finds the microcontroller in the schematic and scaffolds a firmware
project for its family in firmware/ (or --out):

  AVR (ATmega, ATtiny)      avr-gcc + avr-libc with a Makefile
  Cortex-M (STM32, RP2040,  arm-none-eabi-gcc bare metal: minimal startup,
    nRF52, SAMD)            linker script, GPIO driver stubs, Makefile
  ESP32                     an ESP-IDF project (not built by copperhead)

The MCU is the part whose symbol name (the library id after the ':', not
the library's name) or value names a supported chip and that has at least 6
pins; of several, the only one with a U or IC reference. The output says
which part was chosen and why. When several candidates remain, firmware
lists them and --mcu REF names the one to use.

pins.h is generated from docs/PINOUT.md, the single source of truth: one
"#define PIN_<NET> <pin>" per net on a GPIO of the MCU (the port pin, e.g.
PB5, for AVR; the GPIO number for the others). It is rewritten on every run;
'copperhead check' reports one that no longer matches PINOUT.md. Every other
file is written once and then left to you. main() is one happy path: a
button net (KEY, BTN, SW...) toggling an LED net, else a blink. Pins the
MCU's symbol names by an alternate function (ESP32 TXD0, RXD0, USB_D+/-)
are mapped to their GPIO numbers.

The clock is the crystal (Y*/X* reference or Crystal symbol, value like
16MHz) on the MCU's oscillator pins (XTAL1/XTAL2, OSC_IN/OSC_OUT ...), found
in kicad-cli's netlist: AVR's F_CPU follows it. Without one (or without
kicad-cli) the factory clock is kept and marked ASSUMED. Memory sizes for
the linker script come from a per-part table (STM32F103C8: 64 KB flash,
20 KB RAM); a part not in it is marked ASSUMED.

The scaffold is then built with the vendor toolchain (make) when it is
installed; when it is not, the status says "not compiled here: <toolchain>
not installed" and the command still succeeds. No network, no model.

Exit codes: 0 scaffolded (and built, or not compiled here); 1 no supported
MCU, no PINOUT.md, or the build failed; 2 usage.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, unlock, err := a.openLocked(cmd.Context(), "")
			if err != nil {
				return err
			}
			defer unlock()
			sch, err := w.schematic()
			if err != nil {
				return err
			}
			mcu, err := firmware.DetectMCU(design.Parts(sch), sch.Pins(), mcuRef)
			if err != nil {
				return failf("firmware: %v", err)
			}
			// The clock comes from the crystal on the MCU's oscillator
			// pins, found in KiCad's netlist; without kicad-cli the
			// family's default is kept and marked ASSUMED.
			if tool, err := findKiCad(cmd.Context()); err != nil {
				mcu.Clock = firmware.DetectClock(mcu, nil, "kicad-cli not found, no netlist to find a crystal in")
			} else if nl, err := w.netlist(cmd.Context(), tool); err != nil {
				mcu.Clock = firmware.DetectClock(mcu, nil, "no netlist: "+err.Error())
			} else {
				mcu.Clock = firmware.DetectClock(mcu, nl, "")
			}
			pinoutRel := w.cfg.DocPath(design.PinoutDoc)
			pinout, err := config.ReadRepoFile(w.repo, pinoutRel)
			if errors.Is(err, os.ErrNotExist) {
				return withHint(failf("firmware: %s: %v", pinoutRel, firmware.ErrNoPinout), "run 'copperhead init' to generate it from the schematic")
			} else if err != nil {
				return failf("firmware: %v", w.relErr(err))
			}
			dir := resolveOut(w.repo, out, firmware.DefaultDir)
			res, err := firmware.Generate(cmd.Context(), mcu, pinout, firmware.Options{
				Repo: w.repo, Dir: dir, Pinout: pinoutRel, Project: w.proj.Name, NoBuild: noBuild,
			})
			if err != nil {
				return failf("firmware: %v", w.relErr(err))
			}
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, struct {
					OK bool `json:"ok"`
					*firmware.Result
				}{res.Build.Gate() == nil, res}); err != nil {
					return err
				}
			} else {
				renderFirmware(a, res, pinoutRel)
			}
			if err := res.Build.Gate(); err != nil {
				return failf("firmware: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "firmware `folder` (default: firmware/ in the repository)")
	cmd.Flags().BoolVar(&noBuild, "no-build", false, "write the scaffold only; do not run the toolchain")
	cmd.Flags().StringVar(&mcuRef, "mcu", "", "the MCU's `reference` when the schematic has several candidates")
	return cmd
}

func renderFirmware(a *app, res *firmware.Result, pinout string) {
	w := a.io.Out
	m := res.MCU
	fmt.Fprintf(w, "MCU %s (%s): %s %s\n", m.Refdes, m.Value, m.Family, m.Target)
	fmt.Fprintf(w, "  chosen: %s\n", m.Reason)
	if m.Clock.Hz > 0 {
		fmt.Fprintf(w, "clock %d Hz: %s\n", m.Clock.Hz, m.Clock.Source)
	}
	// The core clock, when board_init makes it something else than the
	// clock source line says (a crystal through a PLL, HFXO's 64 MHz).
	if c := res.Core; c != nil && c.Hz > 0 && (c.Hz != m.Clock.Hz || c.Setup != m.Clock.Source) {
		fmt.Fprintf(w, "core clock %d Hz (CPU_HZ): %s\n", c.Hz, c.Setup)
	}
	if m.Memory != "" {
		fmt.Fprintf(w, "memory: %s\n", m.Memory)
	}
	fmt.Fprintf(w, "pins.h %s: %s from %s\n", res.PinsHeader, textfmt.Count(len(res.Pins), "pin"), pinout)
	fmt.Fprintf(w, "happy path: %s\n", res.HappyPath)
	if len(res.Written) > 0 {
		fmt.Fprintf(w, "wrote %s\n", strings.Join(res.Written, ", "))
	}
	if len(res.Kept) > 0 {
		fmt.Fprintf(w, "kept %s (yours to edit)\n", strings.Join(res.Kept, ", "))
	}
	mark := "✓"
	switch res.Build.State {
	case firmware.NotCompiled:
		mark = "-"
	case firmware.BuildFailed:
		mark = "✗"
	}
	fmt.Fprintf(w, "build %s %s\n", mark, res.Build.Line())
	if res.Build.Output != "" {
		for _, l := range strings.Split(res.Build.Output, "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}
