package draft

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/kicad/kigen"
	"copperhead/internal/sexpr"
)

// miniLibrary copies Device:R, Device:C and power:GND/PWR_FLAG plus one
// footprint out of the installed libraries into dir, so a fuzz iteration
// reads kilobytes, not the megabytes of KiCad's full set.
func miniLibrary(tb testing.TB, dir string) *kigen.Library {
	tb.Helper()
	inst := InstalledLibrary()
	lib := &kigen.Library{SymDir: filepath.Join(dir, "symbols"), FPDir: filepath.Join(dir, "footprints")}
	for file, names := range map[string][]string{"Device": {"R", "C"}, "power": {"GND", "PWR_FLAG", "+5V"}} {
		src, err := os.ReadFile(filepath.Join(inst.SymDir, file+".kicad_sym"))
		if err != nil {
			tb.Skip("KiCad symbol libraries are not installed")
		}
		root, err := sexpr.Parse(file, src)
		if err != nil {
			tb.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("(kicad_symbol_lib (version 20241209) (generator \"kicad_symbol_editor\")\n")
		for sym := range root.All("symbol") {
			for _, n := range names {
				if sym.Arg(0) == n {
					b.Write(sym.Text(src))
					b.WriteByte('\n')
				}
			}
		}
		b.WriteString(")\n")
		_ = os.MkdirAll(lib.SymDir, 0o755)
		if err := os.WriteFile(filepath.Join(lib.SymDir, file+".kicad_sym"), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	fp := filepath.Join("Resistor_SMD.pretty", "R_0603_1608Metric.kicad_mod")
	data, err := os.ReadFile(filepath.Join(inst.FPDir, fp))
	if err != nil {
		tb.Skip("KiCad footprint libraries are not installed")
	}
	_ = os.MkdirAll(filepath.Join(lib.FPDir, "Resistor_SMD.pretty"), 0o755)
	if err := os.WriteFile(filepath.Join(lib.FPDir, fp), data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return lib
}

// FuzzIntent feeds arbitrary bytes through parsing, validation and
// drawing: nothing may panic, a parse error names the file, and an intent
// that validates always draws into a sheet the reader accepts.
func FuzzIntent(f *testing.F) {
	f.Add([]byte(`{"parts":[{"ref":"R1","lib_id":"Device:R","footprint":"Resistor_SMD:R_0603_1608Metric"},{"ref":"R2","lib_id":"Device:R","footprint":"Resistor_SMD:R_0603_1608Metric","group":"b"}],"nets":[{"name":"GND","pins":["R1.1","R2.1"]},{"name":"A","pins":["R1.2","R2.2"]}]}`))
	f.Add([]byte(`{"parts":[{"ref":"C1","lib_id":"Device:C","footprint":"Resistor_SMD:R_0603_1608Metric","fields":{"MPN":"x"}}],"nets":[],"no_connect":["C1.*"]}`))
	f.Add([]byte(`{"parts":[],"nets":[{"name":"","pins":["."]}],"no_connect":["X.*"]}`))
	lib := miniLibrary(f, f.TempDir())
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseIntent(data, "fuzz.json")
		if err != nil {
			return
		}
		r, err := Validate(in, "fuzz.json", Options{Library: lib})
		if err != nil {
			return
		}
		if _, _, err := Schematic(r, "fuzz", Options{Library: lib}); err != nil {
			t.Fatalf("a valid intent failed to draw: %v", err)
		}
	})
}

func BenchmarkSchematic(b *testing.B) {
	in, err := ReadIntent(filepath.Join("testdata", "mcu_usb.json"))
	if err != nil {
		b.Fatal(err)
	}
	lib := InstalledLibrary()
	if _, err := os.Stat(filepath.Join(lib.SymDir, "Device.kicad_sym")); err != nil {
		b.Skip("KiCad symbol libraries are not installed")
	}
	for b.Loop() {
		// A fresh library each time: symbol loading is part of the cost.
		opts := Options{Library: InstalledLibrary()}
		r, err := Validate(in, "mcu_usb.json", opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Schematic(r, in.Project, opts); err != nil {
			b.Fatal(err)
		}
	}
}
