package firmware

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"copperhead/internal/design"
	"copperhead/internal/draft"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
)

// TestFamilyFixtures drafts one minimal board per Cortex-M family from
// testdata/<family>.json (an MCU, its crystal and load caps, an LED and a
// button) with the schematic engine create uses, has the real kicad-cli
// export its netlist, and runs what `copperhead firmware` runs: DetectMCU,
// DetectClock on KiCad's netlist, Generate and the arm-none-eabi-gcc build.
// The disassembled firmware.elf must hold the clock setup the crystal calls
// for and the GPIO writes and reads of the happy path.
func TestFamilyFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("drafts and builds six boards")
	}
	tool, err := kicadcli.Find(context.Background())
	if err != nil {
		t.Skipf("kicad-cli: %v", err)
	}
	tool.CacheDir = t.TempDir()
	tests := []struct {
		fixture   string
		target    string
		clockHz   int64 // the detected crystal, 0 for none
		coreHz    int64 // CPU_HZ
		setup     string
		header    []string // pins.h lines
		disasm    []string
		notDisasm []string
	}{
		{
			fixture: "stm32f1", target: "stm32f1", clockHz: 8_000_000, coreHz: 72_000_000,
			setup:  "HSE from the 8 MHz crystal, PLL x9 = 72 MHz SYSCLK",
			header: []string{"#define PIN_LED 45 /* PC13: port C * 16 + 13 */", "#define PIN_KEY 28 /* PB12: port B * 16 + 12 */"},
			// HSEON, FLASH_ACR, PLLMUL x9 | PLLSRC, SysTick reload 71999,
			// PC13 an output, PB12 a pulled-up input.
			disasm: []string{`#65536\s`, `\.word\s+0x40022000`, `@ 0x1d0000`, `\.word\s+0x0001193f`,
				`movs\s+r0, #45.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #28.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`},
		},
		{
			fixture: "rp2040", target: "rp2040", clockHz: 12_000_000, coreHz: 125_000_000,
			setup:  "XOSC from the 12 MHz crystal (startup delay 47 x 256 cycles, about 1 ms) as clk_ref, PLL_SYS x125 = 1500 MHz VCO, /6 /2 = 125 MHz clk_sys",
			header: []string{"#define PIN_LED_STATUS 25", "#define PIN_BTN_USER 2"},
			// XOSC CTRL, clk_ref from it, PLL_SYS FBDIV 125 and PRIM
			// POSTDIV1 6 / POSTDIV2 2, SysTick reload 124999 (0x1e847).
			disasm: []string{`\.word\s+0x40024000`, `\.word\s+0x00fabaa0`, `\.word\s+0x40008030`, `movs\s+r[0-9], #47`,
				`\.word\s+0x40028000`, `movs\s+r[0-9], #125`, `\.word\s+0x0001e847`,
				`movs\s+r0, #25.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #2\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`, `\.word\s+0xd0000014`},
		},
		{
			fixture: "nrf52", target: "nrf52", clockHz: 32_000_000, coreHz: 64_000_000,
			setup:  "HFXO started from the 32 MHz crystal",
			header: []string{"#define PIN_LED 17", "#define PIN_BTN_USER 13"},
			// TASKS_HFCLKSTART (0x40000000), EVENTS_HFCLKSTARTED (+0x100).
			disasm: []string{`<board_init>:\n(.*\n){0,4}.*(0x40000000|#1073741824)`, `#63999\s`,
				`movs\s+r0, #17.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #13.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`},
		},
		{
			fixture: "samd21", target: "samd21", clockHz: 0, coreHz: 1_000_000,
			setup:  "ASSUMED: OSC8M divided by 8",
			header: []string{"#define PIN_LED 35 /* PB3: port B * 32 + 3 */", "#define PIN_BTN_USER 15 /* PA15: port A * 32 + 15 */"},
			disasm: []string{`\.word\s+0x(41004400|00820088)`, `\.word\s+0x000003e7`,
				`movs\s+r0, #35.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #15.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`},
		},
		{
			// A 16 MHz crystal on XIN/XOUT (PA14/PA15): NVMCTRL CTRLB
			// (0x41004004) RWS 1, SYSCTRL XOSC (0x40000810) = STARTUP 5 |
			// GAIN 3 | XTALEN | ENABLE = 0x5306, XOSCRDY polled in PCLKSR
			// (0x4000080c), GCLK GENCTRL (0x40000c04) = GENEN | SRC XOSC |
			// ID 0 = 0x10000 (built as 0x80 << 9); the RWS field's mask
			// 0xF << 1 = 30; SysTick reload 15999 (0x3e7f).
			fixture: "samd21_xtal", target: "samd21", clockHz: 16_000_000, coreHz: 16_000_000,
			setup:  "XOSC from the 16 MHz crystal (GAIN 3, startup about 1 ms) as GCLK0, flash wait states 1",
			header: []string{"#define PIN_LED 35 /* PB3: port B * 32 + 3 */", "#define PIN_BTN_USER 16 /* PA16: port A * 32 + 16 */"},
			disasm: []string{`\.word\s+0x41004004`, `\.word\s+0x40000810`, `\.word\s+0x00005306`, `\.word\s+0x4000080c`, `\.word\s+0x40000c04`,
				`movs\s+(r[0-9]), #128.*\n.*\n.*lsls\s+r[0-9], r[0-9], #9\n`, `movs\s+r[0-9], #30\n`, `\.word\s+0x00003e7f`, `movs\s+r0, #35.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #16.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`},
		},
		{
			// SAM D51 with a 12 MHz crystal on XIN0/XOUT0 (PA14/PA15),
			// addressed from OSCCTRL's base 0x40001000: XOSCCTRL0 (+0x14)
			// = STARTUP 5 | IMULT 4 | IPTAT 3 | XTALEN | ENABLE =
			// 0x502606, XOSCRDY0 polled in STATUS (+0x10), GCLK GENCTRL0
			// (+0xc20 = 0x40001c20) = GENEN | SRC XOSC0 = 0x100, its
			// SYNCBUSY (+0xc04) polled; SysTick reload 11999 (0x2edf).
			fixture: "samd51_xtal", target: "samd51", clockHz: 12_000_000, coreHz: 12_000_000,
			setup:  "XOSC0 from the 12 MHz crystal (IMULT 4, IPTAT 3, startup about 1 ms) as GCLK0, flash wait states by NVMCTRL AUTOWS",
			header: []string{"#define PIN_LED 35 /* PB3: port B * 32 + 3 */", "#define PIN_BTN_USER 16 /* PA16: port A * 32 + 16 */"},
			disasm: []string{`\.word\s+0x40001000`, `\.word\s+0x00502606`, `str\s+r[0-9], \[r[0-9], #20\]`, `ldr\s+r[0-9], \[r[0-9], #16\]`,
				`mov\.w\s+r[0-9], #256`, `str\.w\s+r[0-9], \[r[0-9], #3104\]`, `ldr\.w\s+r[0-9], \[r[0-9], #3076\]`, `#11999\s|0x00002edf`,
				`movs\s+r0, #35.*\n.*bl\s+[0-9a-f]+ <gpio_output>`, `movs\s+r0, #16.*\n.*bl\s+[0-9a-f]+ <gpio_input_pullup>`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			ctx := context.Background()
			in, err := draft.ReadIntent(filepath.Join("testdata", tc.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			repo := t.TempDir()
			w, err := draft.WriteSchematic(in, tc.fixture+".json", filepath.Join(repo, "hardware"), false, draft.Options{})
			if err != nil {
				t.Fatal(err)
			}
			nl, err := tool.Netlist(ctx, w.Path)
			if err != nil {
				t.Fatalf("kicad-cli does not load the drafted %s: %v", tc.fixture, err)
			}
			sch, err := kicad.LoadSchematic(w.Path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := DetectMCU(design.Parts(sch), sch.Pins(), "")
			if err != nil {
				t.Fatal(err)
			}
			if m.Target != tc.target {
				t.Fatalf("DetectMCU = %s, want %s", m.Target, tc.target)
			}
			m.Clock = DetectClock(m, nl, "")
			if want := tc.clockHz == 0; m.Clock.Assumed != want || (!want && m.Clock.Hz != tc.clockHz) {
				t.Fatalf("DetectClock = %+v; want %d Hz from the crystal", m.Clock, tc.clockHz)
			}
			pinout := pinoutOf(nl, m.Refdes)
			if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "docs", "PINOUT.md"), []byte(pinout), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Generate(ctx, m, []byte(pinout), Options{Repo: repo, Pinout: "docs/PINOUT.md", Project: tc.fixture})
			if err != nil {
				t.Fatal(err)
			}
			if res.Core == nil || res.Core.Hz != tc.coreHz || !strings.Contains(res.Core.Setup, tc.setup) {
				t.Errorf("core clock %+v; want %d Hz, setup containing %q", res.Core, tc.coreHz, tc.setup)
			}
			hdr, err := os.ReadFile(filepath.Join(repo, "firmware", "src", "pins.h"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.header {
				if !strings.Contains(string(hdr), l+"\n") {
					t.Errorf("pins.h lacks %q:\n%s", l, hdr)
				}
			}
			boardH, err := os.ReadFile(filepath.Join(repo, "firmware", "src", "board.h"))
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("#define CPU_HZ %du\n", tc.coreHz); !strings.Contains(string(boardH), want) {
				t.Errorf("board.h lacks %q:\n%s", want, boardH)
			}
			if !have("arm-none-eabi-gcc") || !have("make") || !have("arm-none-eabi-objdump") {
				t.Skip("arm-none-eabi-gcc not installed: build not exercised")
			}
			if res.Build.State != Compiled {
				t.Fatalf("build %s: %s\n%s", res.Build.State, res.Build.Reason, res.Build.Output)
			}
			out, err := exec.Command("arm-none-eabi-objdump", "-d", filepath.Join(repo, "firmware", "build", "firmware.elf")).CombinedOutput()
			if err != nil {
				t.Fatalf("objdump: %v\n%s", err, out)
			}
			for _, re := range tc.disasm {
				if !regexp.MustCompile(re).Match(out) {
					t.Errorf("firmware.elf's disassembly has no %s", re)
				}
			}
			if t.Failed() {
				t.Logf("disassembly:\n%s", out)
			}
		})
	}
}

// pinoutOf is a PINOUT.md table of ref's pins on signal nets (not power,
// not the crystal's), as `copperhead init` writes it.
func pinoutOf(nl *kicad.Netlist, ref string) string {
	var b strings.Builder
	b.WriteString("| Refdes | Pin | Name | Net | Type | Notes |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, n := range nl.Nets {
		name := strings.TrimPrefix(n.Name, "/")
		if name == "GND" || strings.HasPrefix(name, "+") || strings.HasPrefix(name, "unconnected-") || strings.HasPrefix(name, "Net-") {
			continue
		}
		for _, node := range n.Nodes {
			if node.Refdes == ref {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |  |\n", ref, node.Pin, node.PinFunction, name, node.PinType)
			}
		}
	}
	return b.String()
}
