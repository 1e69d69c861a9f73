// Command fixturegen writes the open-telegraph KiCad 9 fixture project: an
// ESP32-S3 Morse keyer with a two-sheet schematic and a routed two-layer
// board. Output is deterministic: re-running it yields byte-identical files.
//
//	go run ./tools/fixturegen -out examples/open-telegraph
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

var (
	partial = new(bool)
	verbose = new(bool)
)

func main() {
	out := flag.String("out", "examples/open-telegraph", "project folder to write")
	verbose = flag.Bool("v", false, "print routing statistics")
	partial = flag.Bool("partial", false, "write the files even when routing fails (debugging)")
	kicad := flag.String("kicad", "/usr/share/kicad", "KiCad shared folder holding symbols/ and footprints/")
	flag.Parse()
	if err := generate(*out, *kicad); err != nil {
		fmt.Fprintln(os.Stderr, "fixturegen:", err)
		os.Exit(1)
	}
}

// Files renders every generated file, keyed by path relative to the project
// folder.
func Files(kicadDir string) (map[string][]byte, error) {
	lib := &Library{SymDir: filepath.Join(kicadDir, "symbols"), FPDir: filepath.Join(kicadDir, "footprints")}
	parts := circuit()
	root, power, pinNets := buildSchematics(lib, parts)
	files := map[string][]byte{
		"hardware/" + rootFile:               []byte(root),
		"hardware/" + powerFile:              []byte(power),
		"hardware/" + project + ".kicad_pro": projectFile(),
		".copperhead/constraints.json":       constraintsJSON(),
		"hardware/sym-lib-table":             symLibTable(parts),
		"hardware/fp-lib-table":              fpLibTable(parts),
	}
	board, err := buildBoard(lib, parts, pinNets)
	if board != "" {
		files["hardware/"+project+".kicad_pcb"] = []byte(board)
	}
	return files, err
}

func generate(out, kicadDir string) error {
	files, err := Files(kicadDir)
	if err != nil && (!*partial || files == nil) {
		return err
	}
	// config.json is only seeded: `copperhead init` owns it afterwards (it
	// records the generated docs' hashes there), so regenerating the
	// hardware must not reset it.
	seed := filepath.Join(out, ".copperhead", "config.json")
	if _, statErr := os.Stat(seed); os.IsNotExist(statErr) {
		files[".copperhead/config.json"] = configJSON()
	}
	for name, data := range files {
		p := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return err
}
