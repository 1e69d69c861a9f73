package kicadcli

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestClosedNames reads inotify's event records: names NUL-padded to the
// record's length, several records in one read, a truncated tail ignored.
func TestClosedNames(t *testing.T) {
	record := func(name string, pad int) []byte {
		b := make([]byte, syscall.SizeofInotifyEvent+len(name)+pad)
		binary.NativeEndian.PutUint32(b[12:16], uint32(len(name)+pad))
		copy(b[syscall.SizeofInotifyEvent:], name)
		return b
	}
	tests := []struct {
		name string
		buf  []byte
		want []string
	}{
		{"one", record("drc.json", 8), []string{"drc.json"}},
		{"two", append(record("erc.json", 8), record("netlist.xml", 5)...), []string{"erc.json", "netlist.xml"}},
		{"no name (the folder itself)", record("", 0), nil},
		{"truncated tail", append(record("a", 3), record("b", 3)[:10]...), []string{"a"}},
		{"length past the end", record("abc", 1)[:syscall.SizeofInotifyEvent+2], nil},
		{"empty", nil, nil},
	}
	for _, tc := range tests {
		if got := closedNames(tc.buf); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestWatchClosed: a watched name closed after writing calls back with its
// path, each time; other names, and a file only read, do not; after stop
// nothing is called.
func TestWatchClosed(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var got []string
	seen := make(chan struct{}, 10)
	stop := watchClosed(dir, map[string]func(string){"drc.json": func(p string) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		seen <- struct{}{}
	}})
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wait := func() {
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			t.Fatal("no callback for a watched file closed after writing")
		}
	}
	write("other.json", "{}")
	write("drc.json", "{}")
	wait()
	if _, err := os.ReadFile(filepath.Join(dir, "drc.json")); err != nil {
		t.Fatal(err)
	}
	write("drc.json", `{"again": true}`)
	wait()
	stop()
	write("drc.json", "{}")
	mu.Lock()
	defer mu.Unlock()
	want := []string{filepath.Join(dir, "drc.json"), filepath.Join(dir, "drc.json")}
	if !slices.Equal(got, want) {
		t.Errorf("callbacks %q, want %q (two writes of drc.json, nothing for other.json, a read or after stop)", got, want)
	}
}

// TestEarlyResult: the early parse counts only for the very bytes the
// output holds after the exit, the last such parse if the file was written
// more than once; other bytes are parsed again.
func TestEarlyResult(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	var parses atomic.Int32
	e := earlyFor(func(data []byte) (string, error) {
		parses.Add(1)
		if string(data) == "bad" {
			return "", errors.New("unreadable")
		}
		return "parsed " + string(data), nil
	})
	for _, text := range []string{"half", "whole"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		e.closed(path)
	}
	parse := func(data []byte) (string, error) { return "late " + string(data), nil }
	if got, err := parseOf(e, []byte("whole"), parse); err != nil || got != "parsed whole" {
		t.Errorf("final bytes parsed early: got %q, %v; want the early parse", got, err)
	}
	if got, _ := parseOf(e, []byte("changed"), parse); got != "late changed" {
		t.Errorf("bytes no early parse had: got %q, want a parse now", got)
	}
	if got, _ := parseOf(e, []byte("half"), parse); got != "parsed half" {
		t.Errorf("an earlier close's bytes: got %q", got)
	}
	if n := parses.Load(); n != 2 {
		t.Errorf("%d early parses, want 2 (one per close)", n)
	}
	if err := os.WriteFile(path, []byte("bad"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.closed(path)
	if _, err := parseOf(e, []byte("bad"), parse); err == nil {
		t.Error("an early parse's error was dropped")
	}
	if got, _ := parseOf[string](nil, []byte("x"), parse); got != "late x" {
		t.Errorf("no early parses: got %q", got)
	}
	e.closed(filepath.Join(dir, "missing"))
	if got, _ := parseOf(e, nil, parse); got != "late " {
		t.Errorf("a file gone before its early read counted: %q", got)
	}
}

// TestEarlyParseRealKiCad: on the real kicad-cli, DRC's report and the
// jobset's two outputs are seen closed while kicad-cli runs, and the
// results check reports are those early parses of the final bytes. Ending
// kicad-cli there leaves nothing behind in the project: its lock file
// (~<name>.kicad_pro.lck) is gone once it has loaded the project.
func TestEarlyParseRealKiCad(t *testing.T) {
	tool := kicadTool(t)
	ctx := context.Background()
	dir := copyDemo(t, "pic_programmer")
	drc, err := tool.PrepareDRC(filepath.Join(dir, "pic_programmer.kicad_pcb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drc.Run(ctx); err != nil {
		t.Fatal(err)
	}
	pair, err := tool.PrepareERCAndNetlist(filepath.Join(dir, "pic_programmer.kicad_sch"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := pair.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*prepared{"DRC": drc.p, "ERC": pair.erc, "netlist": pair.nl} {
		if _, _, ok := p.early.result(p.res.data); !ok {
			t.Errorf("%s: no early parse of kicad-cli's final output", name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "~*")); len(left) > 0 {
		t.Errorf("kicad-cli, ended once its outputs parsed, left %v in the project", left)
	}
}

// TestRunEndsOnceOutputsParse: a kicad-cli still running after it wrote
// every output of its run, each parsing, is ended there and the run
// succeeds (the fake would otherwise sleep for 300 s, past the timeout);
// an output that does not parse (a report cut short) ends nothing, and the
// run fails as before. DRC, ERC with its netlist as one jobset, and the two
// calls apart.
func TestRunEndsOnceOutputsParse(t *testing.T) {
	const (
		drc     = `{"coordinate_units": "mm", "kicad_version": "9.0.8", "violations": [], "unconnected_items": [], "schematic_parity": []}`
		erc     = `{"coordinate_units": "mm", "kicad_version": "9.0.8", "included_severities": ["error", "warning", "exclusion"], "sheets": []}`
		netlist = `<?xml version="1.0" encoding="UTF-8"?><export version="E"><components></components><nets></nets></export>`
	)
	// Starts a child that keeps running, then writes each output where it
	// is asked to and waits for the child.
	body := `sleep 300 & echo $! >> "$FAKE_PIDFILE"
out=""; prev=""
for a in "$@"; do if [ "$prev" = -o ]; then out="$a"; fi; prev="$a"; done
case "$1 $2" in
"pcb drc") printf '%s' "$FAKE_DRC" > "$out";;
"sch erc") printf '%s' "$FAKE_ERC" > "$out";;
"sch export") printf '%s' "$FAKE_NETLIST" > "$out";;
"jobset run") d="$(dirname "$4")/out"; printf '%s' "$FAKE_ERC" > "$d/erc.json"; printf '%s' "$FAKE_NETLIST" > "$d/netlist.xml";;
esac
wait`
	dir := t.TempDir()
	pcb, sch := filepath.Join(dir, "x.kicad_pcb"), filepath.Join(dir, "x.kicad_sch")
	for path, text := range map[string]string{pcb: "(kicad_pcb)", sch: "(kicad_sch)", filepath.Join(dir, "x.kicad_pro"): "{}"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	drcRun := func(tool *Tool) error { _, err := tool.DRC(context.Background(), pcb); return err }
	pairRun := func(apart bool) func(tool *Tool) error {
		return func(tool *Tool) error {
			p, err := tool.PrepareERCAndNetlist(sch)
			if err != nil {
				return err
			}
			if apart {
				p.Apart()
			}
			_, _, err = p.Run(context.Background())
			return err
		}
	}
	tests := []struct {
		name                string
		drc, erc, netlist   string
		run                 func(tool *Tool) error
		timeout             time.Duration
		wantErr             string // "": the run succeeds
		wantJobset, wantERC bool
	}{
		{name: "DRC", drc: drc, run: drcRun, timeout: 2 * time.Minute},
		{name: "jobset", erc: erc, netlist: netlist, run: pairRun(false), timeout: 2 * time.Minute},
		{name: "apart", erc: erc, netlist: netlist, run: pairRun(true), timeout: 2 * time.Minute},
		{name: "DRC report cut short", drc: `{"violations": [`, run: drcRun, timeout: 500 * time.Millisecond,
			wantErr: "timed out after 500ms and was killed"},
		{name: "netlist cut short", erc: erc, netlist: `<export version="E"><components>`, run: pairRun(true),
			timeout: 500 * time.Millisecond, wantErr: "timed out after 500ms and was killed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "children.pid")
			t.Setenv("FAKE_PIDFILE", pidFile)
			t.Setenv("FAKE_DRC", tc.drc)
			t.Setenv("FAKE_ERC", tc.erc)
			t.Setenv("FAKE_NETLIST", tc.netlist)
			fakeKicadCLI(t, "echo 9.0.8", body)
			tool, err := Find(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tool.Timeout, tool.CacheDir = tc.timeout, ""
			err = tc.run(tool)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("err = %v, want the run ended once its outputs parsed", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err = %v, want %q: an output that does not parse must not end the run", err, tc.wantErr)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Fields(string(data)) {
				pid, err := strconv.Atoi(line)
				if err != nil {
					t.Fatal(err)
				}
				waitGone(t, pid)
			}
		})
	}
}
