package firmware

import (
	"bytes"
	"cmp"
	"context"
	"copperhead/internal/procgroup"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Build states; the values are part of --json output.
const (
	Compiled    = "compiled"     // the vendor toolchain built it: the gate passed
	NotCompiled = "not_compiled" // no toolchain here: scaffold written, build not attempted
	BuildFailed = "failed"       // the toolchain ran and refused it
)

// buildTimeout bounds one make run: a scaffold builds in about a second; this
// only ends a hung toolchain.
const buildTimeout = 5 * time.Minute

// maxBuildOutput caps the compiler output a failed status quotes.
const maxBuildOutput = 2000

// BuildStatus is the firmware stage's gate result: whether the vendor
// toolchain built the scaffold here.
type BuildStatus struct {
	State     string   `json:"state"`
	Toolchain string   `json:"toolchain"`         // "avr-gcc", "arm-none-eabi-gcc", "ESP-IDF"
	Version   string   `json:"version,omitempty"` // the compiler's first --version line
	Reason    string   `json:"reason,omitempty"`  // why not compiled, or why it failed
	Artifacts []string `json:"artifacts"`         // firmware-relative, e.g. build/firmware.hex
	Output    string   `json:"output,omitempty"`  // the build's last output lines when it failed
}

// Line is the one-line status DEVPLAN.md and the CLI print.
func (s BuildStatus) Line() string {
	switch s.State {
	case Compiled:
		return fmt.Sprintf("compiled with %s: %s", cmp.Or(s.Version, s.Toolchain), strings.Join(s.Artifacts, ", "))
	case NotCompiled:
		return s.Reason
	}
	return "build failed with " + cmp.Or(s.Version, s.Toolchain) + ": " + s.Reason
}

// Gate is the firmware stage's completion check: a build that ran and
// failed fails it; a build that could not run here (no toolchain) passes,
// and DEVPLAN.md says "not compiled here".
func (s BuildStatus) Gate() error {
	if s.State == BuildFailed {
		return errors.New(s.Line())
	}
	return nil
}

// toolchainOf names the family's toolchain.
func toolchainOf(m MCU) string {
	switch m.Family {
	case FamilyAVR:
		return "avr-gcc"
	case FamilyCortexM:
		return "arm-none-eabi-gcc"
	}
	return "ESP-IDF"
}

// Build compiles the scaffold in dir with the family's toolchain through its
// Makefile (`make -C dir`), when the toolchain and make are installed
// (exec.LookPath), and checks the .elf and .hex it must leave. ESP32 projects
// are not built here: ESP-IDF needs its own environment (IDF_PATH, export.sh).
func Build(ctx context.Context, dir string, m MCU) BuildStatus {
	st := BuildStatus{Toolchain: toolchainOf(m), Artifacts: []string{}}
	var tools []string
	switch m.Family {
	case FamilyAVR:
		tools = []string{"avr-gcc", "avr-objcopy", "make"}
	case FamilyCortexM:
		tools = []string{"arm-none-eabi-gcc", "arm-none-eabi-objcopy", "make"}
	default:
		st.State = NotCompiled
		if _, err := exec.LookPath("idf.py"); err != nil {
			st.Reason = "not compiled here: ESP-IDF (idf.py) not installed"
		} else {
			st.Reason = "not compiled here: copperhead does not run ESP-IDF builds; run `idf.py build` in the firmware folder"
		}
		return st
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			st.State = NotCompiled
			st.Reason = "not compiled here: " + tool + " not installed"
			return st
		}
	}
	if out, err := exec.CommandContext(ctx, tools[0], "--version").Output(); err == nil {
		st.Version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	}

	runCtx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "make", "--no-print-directory", "-C", dir)
	procgroup.Own(cmd)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		st.State = BuildFailed
		st.Reason = fmt.Sprintf("make -C %s: %v", filepath.Base(dir), err)
		st.Output = tail(out.String(), maxBuildOutput)
		return st
	}
	for _, a := range []string{"build/firmware.elf", "build/firmware.hex"} {
		fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(a)))
		if err != nil || fi.Size() == 0 {
			st.State = BuildFailed
			st.Reason = "make succeeded but left no " + a
			st.Output = tail(out.String(), maxBuildOutput)
			return st
		}
		st.Artifacts = append(st.Artifacts, a)
	}
	st.State = Compiled
	return st
}

// tail keeps the last n bytes of s, from a line start when it can.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return "…" + s
}
