package firmware

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"copperhead/internal/atomicfile"
	"copperhead/internal/pinsh"
)

// templates are the scaffold files per family, reviewable as the C, make and
// CMake text they become. "gitignore" is written as .gitignore (embed skips
// dot files) and "main_CMakeLists.txt" as main/CMakeLists.txt.
//
//go:embed templates
var templates embed.FS

// DefaultDir is the firmware folder, repo-relative: where consistency's pin
// audit and Drift look for pins.h.
const DefaultDir = pinsh.Dir

// layout maps each family's template files to where they go in the firmware
// folder, and names the folder holding sources (and so pins.h).
var layout = map[Family]struct {
	srcDir string
	files  map[string]string // template name -> firmware-relative path
}{
	FamilyAVR: {"src", map[string]string{
		"Makefile": "Makefile", "main.c": "src/main.c", "README.md": "README.md", "gitignore": ".gitignore",
	}},
	FamilyCortexM: {"src", map[string]string{
		"Makefile": "Makefile", "linker.ld": "linker.ld", "main.c": "src/main.c", "startup.c": "src/startup.c",
		"board.c": "src/board.c", "board.h": "src/board.h", "README.md": "README.md", "gitignore": ".gitignore",
	}},
	FamilyESP32: {"main", map[string]string{
		"CMakeLists.txt": "CMakeLists.txt", "sdkconfig.defaults": "sdkconfig.defaults", "main_CMakeLists.txt": "main/CMakeLists.txt",
		"main.c": "main/main.c", "README.md": "README.md", "gitignore": ".gitignore",
	}},
}

// Options say where the scaffold goes.
type Options struct {
	Repo    string // repository root, absolute
	Dir     string // firmware folder, absolute; "" is <Repo>/firmware
	Pinout  string // PINOUT.md, repo-relative slash path (e.g. docs/PINOUT.md): recorded in pins.h
	Project string // project name, for ESP-IDF's project()
	NoBuild bool   // write the scaffold only; Build.State is not_compiled
}

// Result is what Generate did.
type Result struct {
	MCU        MCU      `json:"mcu"`
	Dir        string   `json:"dir"`         // repo-relative
	PinsHeader string   `json:"pins_header"` // repo-relative
	Pins       []PinDef `json:"pins"`
	HappyPath  string   `json:"happy_path"`
	// Core is how board_init clocks a Cortex-M core (CPU_HZ); nil for the
	// other families.
	Core    *Core       `json:"core,omitempty"`
	Written []string    `json:"written"` // firmware-relative files whose bytes changed
	Kept    []string    `json:"kept"`    // existing scaffold files left as the user has them
	Build   BuildStatus `json:"build"`
}

// Generate writes the firmware scaffold for m into the firmware folder and
// builds it (see Build). pins.h is regenerated from pinoutDoc on every run;
// every other scaffold file is written only when missing, so a user's edits
// stay. Files are written atomically. The returned error is for a scaffold
// that could not be written; a failed build is reported in Result.Build
// (see BuildStatus.Gate).
func Generate(ctx context.Context, m MCU, pinoutDoc []byte, o Options) (*Result, error) {
	lay, ok := layout[m.Family]
	if !ok {
		return nil, fmt.Errorf("scaffold firmware for %s: unknown family %q", m.Refdes, m.Family)
	}
	defs, err := PinDefs(pinoutDoc, m)
	if err != nil {
		return nil, err
	}
	if m.Clock.Source == "" {
		m.Clock = DetectClock(m, nil, "")
	}
	if m.Memory == "" {
		m.Memory = "ASSUMED: set the sizes from the datasheet"
	}
	dir := o.Dir
	if dir == "" {
		dir = filepath.Join(o.Repo, DefaultDir)
	}
	rel := func(p string) string {
		r, err := filepath.Rel(o.Repo, p)
		if err != nil {
			return p
		}
		return filepath.ToSlash(r)
	}
	res := &Result{MCU: m, Dir: rel(dir), Pins: nonNil(defs), HappyPath: HappyPath(defs), Written: []string{}, Kept: []string{}}
	core := PlanCore(m)
	if m.Family == FamilyCortexM {
		c := core
		res.Core = &c
	}
	// Setup goes into C comments: a part value cannot end one early.
	core.Setup = strings.ReplaceAll(core.Setup, "*/", "* /")
	data := struct {
		MCU       MCU
		Core      Core
		Source    string
		HappyPath string
		Project   string
	}{m, core, o.Pinout, res.HappyPath, cmakeName(o.Project)}

	names := make([]string, 0, len(lay.files))
	for n := range lay.files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		target := lay.files[name]
		dst := filepath.Join(dir, filepath.FromSlash(target))
		if _, err := os.Stat(dst); err == nil {
			res.Kept = append(res.Kept, target)
			continue
		}
		text, err := templates.ReadFile(path.Join("templates", string(m.Family), name))
		if err != nil {
			return nil, fmt.Errorf("scaffold %s: %w", target, err)
		}
		tmpl, err := template.New(name).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return nil, fmt.Errorf("scaffold %s: %w", target, err)
		}
		var b bytes.Buffer
		if err := tmpl.Execute(&b, data); err != nil {
			return nil, fmt.Errorf("scaffold %s: %w", target, err)
		}
		if err := atomicfile.Write(dst, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, target)
	}

	header := path.Join(lay.srcDir, pinsh.HeaderName)
	dst := filepath.Join(dir, filepath.FromSlash(header))
	res.PinsHeader = rel(dst)
	want := PinsHeader(m, o.Pinout, defs)
	if have, err := os.ReadFile(dst); err != nil || !bytes.Equal(have, want) {
		if err := atomicfile.Write(dst, want, 0o644); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, header)
	}
	slices.Sort(res.Written)
	slices.Sort(res.Kept)

	if o.NoBuild {
		res.Build = BuildStatus{State: NotCompiled, Toolchain: toolchainOf(m), Reason: "not compiled here: build skipped by request"}
	} else {
		res.Build = Build(ctx, dir, m)
	}
	return res, nil
}

// cmakeName makes a project name CMake's project() accepts.
func cmakeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "firmware"
	}
	return b.String()
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ErrNoPinout means there is no PINOUT.md to generate pins.h from.
var ErrNoPinout = errors.New("no PINOUT.md to generate pins.h from (run `copperhead init` first)")
