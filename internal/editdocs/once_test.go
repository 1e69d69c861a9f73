package editdocs

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/kicadcli"
)

// fakeKiCad points tool at a shell script that logs each kicad-cli run to
// the returned file and hands it to the real kicad-cli. With spoil, once
// an export of copperhead's scratch copy of an edit is done, the script
// overwrites the copy's sheets with bytes that do not parse: anything read
// from the copy after KiCad checked it would fail.
func fakeKiCad(t *testing.T, tool *kicadcli.Tool, spoil bool) string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	script := `#!/bin/sh
printf '%s\n' "$*" >> '` + log + `'
'` + tool.Path + `' "$@"
rc=$?
`
	if spoil {
		script += `for last; do :; done
case "$last" in
*/copperhead-edit-*) find "$(dirname "$last")" -name '*.kicad_sch' -exec sh -c 'printf "(not a schematic" > "$1"' _ {} \; ;;
esac
`
	}
	script += "exit $rc\n"
	path := filepath.Join(dir, "kicad-cli")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tool.Path = path
	return log
}

// kicadRuns reads fakeKiCad's log: one line of arguments per run.
func kicadRuns(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// openCounter counts, through inotify, how often each watched file is
// opened by anyone (this process, kicad-cli): the kernel's count of reads,
// with no seam in the code under test. Closes are watched too: inotify
// merges an event identical to the last one queued, so two opens in a row
// would count once.
type openCounter struct {
	fd    int
	files map[int32]string // watch descriptor -> repo-relative path
}

func watchOpens(t *testing.T, repo string, rels ...string) *openCounter {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	c := &openCounter{fd: fd, files: map[int32]string{}}
	for _, rel := range rels {
		wd, err := syscall.InotifyAddWatch(fd, filepath.Join(repo, filepath.FromSlash(rel)), syscall.IN_OPEN|syscall.IN_CLOSE)
		if err != nil {
			t.Fatalf("watch %s: %v", rel, err)
		}
		c.files[int32(wd)] = rel
	}
	return c
}

// counts drains the events so far: opens per watched file.
func (c *openCounter) counts(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, rel := range c.files {
		out[rel] = 0
	}
	buf := make([]byte, 64*1024)
	for {
		n, err := syscall.Read(c.fd, buf)
		if errors.Is(err, syscall.EAGAIN) {
			return out
		}
		if err != nil {
			t.Fatalf("read inotify events: %v", err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				t.Fatal("inotify queue overflowed: the counts are incomplete")
			}
			if ev.Mask&syscall.IN_OPEN != 0 {
				out[c.files[ev.Wd]]++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// TestEditReadsEachFileOnce walks one rename-net the way copperhead edit and
// the agent's rename_net do (Open, plan, Apply) and counts what it costs.
// Each sheet is opened twice: once for copperhead's read model and plan
// (the loader hands its bytes and parse to the planner) and once by
// kicadcli hashing the inputs for its cache, which then serves the netlist
// of the unchanged tree (warmed here, as any earlier command does). Each
// doc is read once. kicad-cli runs once: on the scratch copy with the new
// bytes, the check itself. The read model of the edited sheets is built
// from the bytes in memory: the scratch copy, spoiled once KiCad read it, is
// never read back.
func TestEditReadsEachFileOnce(t *testing.T) {
	ctx := context.Background()
	in, pr := fixtureRepo(t)
	tool, repo := in.KiCad, in.Repo
	tool.CacheDir = t.TempDir()
	tool.Boundary = repo
	if _, err := tool.Netlist(ctx, pr.Schematic); err != nil { // warm the cache
		t.Fatal(err)
	}
	log := fakeKiCad(t, tool, true)
	sheets := []string{"hardware/open-telegraph.kicad_sch", "hardware/power.kicad_sch"}
	docs := []string{"docs/BOM.md", "docs/PINOUT.md"}
	opens := watchOpens(t, repo, append(sheets, docs...)...)

	l, err := Open(ctx, repo, in.Config, pr.Schematic, tool)
	if err != nil {
		t.Fatal(err)
	}
	p, err := schedit.RenameNet(l.Design, "KEY_DAH", "KEY_DASH", false)
	if err != nil {
		t.Fatal(err)
	}
	in.Design, in.Plan, in.Docs = l.Design, p, l.Docs
	res, err := Apply(ctx, in)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if !slices.Contains(res.Paths(), "docs/PINOUT.md") {
		t.Fatalf("the rename did not reach PINOUT.md (changed %v)", res.Paths())
	}
	got := opens.counts(t)
	for _, f := range sheets {
		if got[f] != 2 {
			t.Errorf("%s opened %d times, want 2 (the read model and plan, the cache key)", f, got[f])
		}
	}
	for _, f := range docs {
		if got[f] != 1 {
			t.Errorf("%s opened %d times, want 1", f, got[f])
		}
	}
	runs := kicadRuns(t, log)
	if len(runs) != 1 || !strings.Contains(runs[0], "sch export netlist") || !strings.Contains(runs[0], "copperhead-edit-") {
		t.Errorf("kicad-cli ran %d times: %q, want once, on the scratch copy", len(runs), runs)
	}
	b, err := os.ReadFile(filepath.Join(repo, "docs", "PINOUT.md"))
	if err != nil || !bytes.Contains(b, []byte("KEY_DASH")) {
		t.Errorf("PINOUT.md after the rename lacks KEY_DASH (%v)", err)
	}
}

// TestEditLeavesItsNetlistCached: the scratch copy an edit is checked on is
// the project as it will be written (library tables and libraries too), so
// KiCad's netlist of it is cached under the key of the written design, and
// the next netlist of the repository (the run's verification, the next
// edit) needs no kicad-cli run.
func TestEditLeavesItsNetlistCached(t *testing.T) {
	ctx := context.Background()
	in, _ := fixture(t)
	in.KiCad.CacheDir = t.TempDir()
	p, err := schedit.RenameNet(in.Design, "KEY_DAH", "KEY_DASH", false)
	if err != nil {
		t.Fatal(err)
	}
	in.Plan = p
	if _, err := Apply(ctx, in); err != nil {
		t.Fatal(err)
	}
	log := fakeKiCad(t, in.KiCad, false)
	nl, err := in.KiCad.Netlist(ctx, in.Design.RootPath)
	if err != nil {
		t.Fatal(err)
	}
	if runs := kicadRuns(t, log); len(runs) != 0 {
		t.Errorf("the netlist of the written design ran kicad-cli %q, want it served from the edit's check", runs)
	}
	in.Design.Netlist = nl
	if netNamed(in, "KEY_DASH") == "" || netNamed(in, "KEY_DAH") != "" {
		t.Error("the netlist after the rename does not show KEY_DAH renamed to KEY_DASH")
	}
}
