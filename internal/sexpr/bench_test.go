package sexpr

import (
	"os"
	"path/filepath"
	"testing"
)

// The largest demo files: vme-wren's board (69 MB) and its biggest sheet.
func BenchmarkParseVMEWrenBoard(b *testing.B) { benchFile(b, "vme-wren/vme-wren.kicad_pcb") }
func BenchmarkParseVMEWrenSheet(b *testing.B) { benchFile(b, "vme-wren/fpga-power.kicad_sch") }

// BenchmarkParseVMEWrenSchematics parses all 36 sheets (about 19 MB).
func BenchmarkParseVMEWrenSchematics(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(demoDir, "vme-wren", "*.kicad_sch"))
	if len(files) == 0 {
		b.Skip("vme-wren demo not installed")
	}
	var srcs [][]byte
	var total int64
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		total += int64(len(src))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if _, err := Parse(files[i], src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func benchFile(b *testing.B, rel string) {
	src, err := os.ReadFile(filepath.Join(demoDir, rel))
	if err != nil {
		b.Skipf("%s not installed", rel)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(rel, src); err != nil {
			b.Fatal(err)
		}
	}
}
