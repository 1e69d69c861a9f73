package kicadcli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/kicad"
)

// loggingTool returns the real-kicad-cli Tool behind a wrapper script that
// logs each call's arguments to the returned file, one line a call. script
// runs before the real kicad-cli and may exit on its own (a failing jobset).
func loggingTool(t *testing.T, script string) (*Tool, string) {
	t.Helper()
	tool := kicadTool(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	wrapper := filepath.Join(dir, "kicad-cli")
	body := "#!/bin/sh\necho \"$*\" >> " + log + "\n" + script + "\nexec " + tool.Path + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	tool.Path = wrapper
	return tool, log
}

// calls reads the wrapper's log: the subcommand of each call ("sch erc",
// "jobset run", ...).
func calls(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) >= 2 {
			out = append(out, f[0]+" "+f[1])
		}
	}
	return out
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkERCAlone fails t unless erc, ERCAndNetlist's report for sch, is what
// a separate `sch erc` gives, once its violations are filed under their
// item's sheet as the jobset's caller does with the schematic it loaded.
func checkERCAlone(t *testing.T, ctx context.Context, sch string, erc *Report) {
	t.Helper()
	ercAlone, err := kicadTool(t).ERC(ctx, sch)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := kicad.LoadSchematic(sch)
	if err != nil {
		t.Fatal(err)
	}
	erc.PlaceSheets(loaded.SheetsDeclaring)
	if a, b := asJSON(t, erc), asJSON(t, ercAlone); a != b {
		t.Errorf("ERC from ERCAndNetlist differs from sch erc:\n%s\n%s", a, b)
	}
}

// TestJobsetMatchesSeparateCalls: ERC and the netlist from one jobset are
// what `sch erc` and `sch export netlist` give on their own, on demos with
// hierarchies, project symbol libraries (${KIPRJMOD}) and a project whose
// ERC settings were changed (a rule's severity raised, a violation
// excluded), and the pair was one kicad-cli run.
func TestJobsetMatchesSeparateCalls(t *testing.T) {
	tests := []struct {
		demo, root string
		edit       func(t *testing.T, dir string)
	}{
		{"pic_programmer", "pic_programmer.kicad_sch", nil},
		{"complex_hierarchy", "complex_hierarchy.kicad_sch", nil},
		{"video", "video.kicad_sch", nil},
		{"pic_programmer", "pic_programmer.kicad_sch", func(t *testing.T, dir string) {
			// The project's own ERC settings reach the jobset: the
			// footprint-link warning becomes an error, and a rule nobody
			// breaks is excluded by its own settings entry.
			pro := filepath.Join(dir, "pic_programmer.kicad_pro")
			data, err := os.ReadFile(pro)
			if err != nil {
				t.Fatal(err)
			}
			s := strings.Replace(string(data), `"footprint_link_issues": "warning"`, `"footprint_link_issues": "error"`, 1)
			s = strings.Replace(s, `"endpoint_off_grid": "warning"`, `"endpoint_off_grid": "error"`, 1)
			if s == string(data) {
				t.Fatal("the demo's ERC settings changed: edit not applied")
			}
			if err := os.WriteFile(pro, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		name := tc.demo
		if tc.edit != nil {
			name += "_settings"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			dir := copyDemo(t, tc.demo)
			if tc.edit != nil {
				tc.edit(t, dir)
			}
			sch := filepath.Join(dir, tc.root)

			together, log := loggingTool(t, "")
			erc, nl, err := together.ERCAndNetlist(ctx, sch)
			if err != nil {
				t.Fatal(err)
			}
			if got := calls(t, log); len(got) != 1 || got[0] != "jobset run" {
				t.Fatalf("kicad-cli calls = %q, want one jobset run", got)
			}

			checkERCAlone(t, ctx, sch, erc)
			nlAlone, err := kicadTool(t).Netlist(ctx, sch)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := asJSON(t, nl), asJSON(t, nlAlone); a != b {
				t.Errorf("netlist from the jobset differs from sch export netlist:\n%.2000s\n%.2000s", a, b)
			}
			if len(nl.Components) == 0 || len(nl.Nets) == 0 {
				t.Errorf("netlist has %d components, %d nets", len(nl.Components), len(nl.Nets))
			}
			if tc.edit != nil {
				raised := false
				for _, v := range erc.Environment {
					raised = raised || v.Type == "footprint_link_issues" && v.Severity == "error"
				}
				if !raised {
					t.Errorf("the raised severity did not reach ERC: %+v", erc.Environment)
				}
			}

			// Both results were cached under the separate calls' keys.
			again, err := together.ERC(ctx, sch)
			if err != nil || !again.Cached {
				t.Errorf("ERC after the jobset: cached=%v err=%v", again != nil && again.Cached, err)
			}
			if _, err := together.Netlist(ctx, sch); err != nil {
				t.Fatal(err)
			}
			if got := calls(t, log); len(got) != 1 {
				t.Errorf("kicad-cli calls after cached reads = %q, want the one jobset run", got)
			}
		})
	}
}

// TestJobsetFallsBack: where no jobset can run (no project file of the
// schematic's name) or the jobset fails or writes nothing, the two calls run
// on their own and give the same results.
func TestJobsetFallsBack(t *testing.T) {
	tests := []struct {
		name   string
		script string // runs before the real kicad-cli
		noPro  bool
		want   []string
	}{
		{"no project file", "", true, []string{"sch erc", "sch export"}},
		{"jobset fails", `[ "$1" = jobset ] && { echo "boom" >&2; exit 3; }`, false, []string{"jobset run", "sch erc", "sch export"}},
		{"jobset writes nothing", `[ "$1" = jobset ] && exit 0`, false, []string{"jobset run", "sch erc", "sch export"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := copyDemo(t, "pic_programmer")
			if tc.noPro {
				if err := os.Remove(filepath.Join(dir, "pic_programmer.kicad_pro")); err != nil {
					t.Fatal(err)
				}
			}
			sch := filepath.Join(dir, "pic_programmer.kicad_sch")
			tool, log := loggingTool(t, tc.script)
			erc, nl, err := tool.ERCAndNetlist(ctx, sch)
			if err != nil {
				t.Fatal(err)
			}
			if got := calls(t, log); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kicad-cli calls = %q, want %q", got, tc.want)
			}
			checkERCAlone(t, ctx, sch, erc)
			if !hasComponent(nl, "U1") {
				t.Errorf("netlist without U1: %d components", len(nl.Components))
			}
		})
	}
}

// TestJobsetCachedHalf: with ERC cached and the netlist not, only the
// export runs.
func TestJobsetCachedHalf(t *testing.T) {
	ctx := context.Background()
	sch := filepath.Join(copyDemo(t, "pic_programmer"), "pic_programmer.kicad_sch")
	tool, log := loggingTool(t, "")
	if _, err := tool.ERC(ctx, sch); err != nil {
		t.Fatal(err)
	}
	erc, nl, err := tool.ERCAndNetlist(ctx, sch)
	if err != nil {
		t.Fatal(err)
	}
	if got := calls(t, log); strings.Join(got, ",") != "sch erc,sch export" {
		t.Errorf("kicad-cli calls = %q, want the ERC, then only the export", got)
	}
	if !erc.Cached || !hasComponent(nl, "U1") {
		t.Errorf("cached=%v, netlist has U1=%v", erc.Cached, hasComponent(nl, "U1"))
	}
}

// TestJobsetStopped: a cancelled jobset is not retried as two calls.
func TestJobsetStopped(t *testing.T) {
	sch := filepath.Join(copyDemo(t, "pic_programmer"), "pic_programmer.kicad_sch")
	tool, log := loggingTool(t, `[ "$1" = jobset ] && exec sleep 60`)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(calls(t, log)) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, _, err := tool.ERCAndNetlist(ctx, sch)
	if err == nil || !strings.Contains(err.Error(), "context canceled") || !strings.Contains(err.Error(), "kicad-cli sch erc") {
		t.Fatalf("err = %v, want the cancelled jobset", err)
	}
	if got := calls(t, log); len(got) != 1 {
		t.Errorf("kicad-cli calls = %q, want the jobset alone", got)
	}
}

func hasComponent(nl *kicad.Netlist, ref string) bool {
	if nl == nil {
		return false
	}
	for _, c := range nl.Components {
		if c.Refdes == ref {
			return true
		}
	}
	return false
}

// TestPairApart: a pair run Apart is two kicad-cli processes (sch erc and
// sch export netlist), alive at the same time, with the results the jobset
// gives; a failing call fails the pair with its own error.
func TestPairApart(t *testing.T) {
	ctx := context.Background()
	dir := copyDemo(t, "pic_programmer")
	sch := filepath.Join(dir, "pic_programmer.kicad_sch")

	// Each call marks its start and waits (up to 5 s) for the other's: both
	// marks are there only if the two ran at once.
	marks := t.TempDir()
	apart, log := loggingTool(t, `touch "`+marks+`/$1$2"; i=0; while [ $(ls "`+marks+`" | wc -l) -lt 2 ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done`)
	pair, err := apart.PrepareERCAndNetlist(sch)
	if err != nil {
		t.Fatal(err)
	}
	pair.Apart()
	erc, nl, err := pair.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := calls(t, log)
	slices.Sort(got)
	if !slices.Equal(got, []string{"sch erc", "sch export"}) {
		t.Fatalf("kicad-cli calls = %q, want sch erc and sch export, no jobset", got)
	}
	entries, _ := os.ReadDir(marks)
	if len(entries) != 2 {
		t.Fatalf("%d of the two calls had started when the first ended", len(entries))
	}
	ercJS, nlJS, err := kicadTool(t).ERCAndNetlist(ctx, sch)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := asJSON(t, erc), asJSON(t, ercJS); a != b {
		t.Errorf("ERC apart differs from the jobset's:\n%s\n%s", a, b)
	}
	if a, b := asJSON(t, nl), asJSON(t, nlJS); a != b {
		t.Errorf("netlist apart differs from the jobset's")
	}

	failing, _ := loggingTool(t, `if [ "$2" = export ]; then echo "export broke" >&2; exit 3; fi`)
	pair, err = failing.PrepareERCAndNetlist(sch)
	if err != nil {
		t.Fatal(err)
	}
	pair.Apart()
	if _, _, err := pair.Run(ctx); err == nil || !strings.Contains(err.Error(), "export broke") {
		t.Errorf("a failing export: err = %v, want its own error", err)
	}
}
