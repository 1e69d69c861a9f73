package kicadcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"copperhead/internal/kicad"
)

// ERCAndNetlist is ERC(schPath) and Netlist(schPath) together. When neither
// is cached and schPath is its project's root schematic, both come from one
// kicad-cli run: a jobset of the two jobs, which loads the project and its
// schematics once. The export then costs next to nothing on top of ERC
// (measured on the demos: the pair takes as long as ERC alone, where a
// separate export took 0.4-1.2 s more CPU), which is what lets check on two
// cores end with DRC instead of after it. The results are the very files
// the two separate calls write (TestJobsetMatchesSeparateCalls), cached
// under the same keys, so either path serves the other.
//
// A jobset that fails or writes less than both files is not trusted with an
// error message: the two calls then run on their own, and their errors (with
// copperhead's own parse of the schematic) are the ones reported.
//
// Unlike ERC's, the report keeps kicad-cli's sheets: every caller loads the
// schematic for its own needs and files the violations with it
// (Report.PlaceSheets(sch.SheetsDeclaring)), so it is not read twice.
func (t *Tool) ERCAndNetlist(ctx context.Context, schPath string) (*Report, *kicad.Netlist, error) {
	c, err := t.PrepareERCAndNetlist(schPath)
	if err != nil {
		return nil, nil, err
	}
	return c.Run(ctx)
}

// PrepareERCAndNetlist does ERCAndNetlist's work up to kicad-cli (see
// PrepareDRC).
func (t *Tool) PrepareERCAndNetlist(schPath string) (*PreparedPair, error) {
	own := t.inputs == nil
	if own {
		t = t.SharingInputs() // the two jobs read the same schematics: hashed once
	}
	erc, err := t.prepare(ercJob(schPath))
	if err != nil {
		return nil, err
	}
	nl, err := t.prepare(netlistJob(schPath))
	if err != nil {
		return nil, err
	}
	erc.early = earlyFor(func(data []byte) (*Report, error) { return parseERC(data, schPath) })
	nl.early = earlyFor(kicad.ParseNetlistXML)
	return &PreparedPair{t: t, schPath: schPath, erc: erc, nl: nl, flush: own}, nil
}

// PreparedPair is ERCAndNetlist prepared: Run is what is left.
type PreparedPair struct {
	t       *Tool
	schPath string
	erc, nl *prepared
	flush   bool // Run waits for the cache writes: nobody else shares its inputs
	apart   bool // the two calls run as two processes at once (Apart)
}

// Apart makes Run start the two calls as two kicad-cli processes at once
// instead of one jobset: for a pair with no other kicad-cli run beside it
// (a project without a board) on two cores or more. Each process loads the
// schematics, but on its own core, so the pair takes as long as ERC alone,
// where the jobset takes ERC and then the export. Measured on the video
// demo's schematic (8 rounds, 2 cores): sch erc alone 1.38 s, the jobset
// 1.39 s, the two processes at once 1.02 s.
func (c *PreparedPair) Apart() { c.apart = true }

// Run runs the jobset (or the calls not cached) and parses both results.
func (c *PreparedPair) Run(ctx context.Context) (*Report, *kicad.Netlist, error) {
	t, erc, nl := c.t, c.erc, c.nl
	if c.flush {
		defer t.Flush()
	}
	if c.apart && !erc.res.cached && !nl.res.cached {
		runCtx, cancel := context.WithCancel(ctx)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, p := range []*prepared{erc, nl} {
			wg.Go(func() {
				if _, errs[i] = t.runPrepared(runCtx, p); errs[i] != nil {
					cancel() // the pair fails as one
				}
			})
		}
		wg.Wait()
		cancel()
		// The first call's own error, not the other's "context canceled".
		for i, err := range errs {
			if err != nil && (ctx.Err() != nil || errs[1-i] == nil || !errors.Is(err, context.Canceled)) {
				return nil, nil, err
			}
		}
	} else if project := jobsetProject(c.schPath); project != "" && !erc.res.cached && !nl.res.cached {
		err := t.runJobset(ctx, project, erc, nl)
		if err != nil && (ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
			return nil, nil, err
		}
	}
	for _, p := range []*prepared{erc, nl} {
		if p.res.data != nil {
			continue
		}
		if _, err := t.runPrepared(ctx, p); err != nil {
			return nil, nil, err
		}
	}
	rep, err := parseReport(erc.res, c.schPath, parseERC, erc.early)
	if err != nil {
		return nil, nil, err
	}
	netlist, err := parseNetlist(nl.res, nl.early)
	if err != nil {
		return nil, nil, err
	}
	return rep, netlist, nil
}

// jobsetProject is the .kicad_pro whose root schematic schPath is, or "":
// a jobset runs on a project, whose root sheet is the schematic of its name.
func jobsetProject(schPath string) string {
	if filepath.Ext(schPath) != ".kicad_sch" {
		return ""
	}
	abs, err := filepath.Abs(strings.TrimSuffix(schPath, ".kicad_sch") + ".kicad_pro")
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return abs
}

// ercSeverities is the severity mask of `--severity-all` for a jobset's ERC
// job: errors, warnings and exclusions. KiCad 9's bit values moved between
// releases; 63 covers the three in both layouts, and runJobset checks the
// report says it included exactly them.
const ercSeverities = 63

// runJobset runs the ERC and netlist jobs p as one jobset on project and
// records both results. kicad-cli resolves ${KIPRJMOD} from the project
// path as given, so it is absolute; the jobset file must end in
// .kicad_jobset (any other name exits 0 having run nothing: the missing
// outputs catch that too).
func (t *Tool) runJobset(ctx context.Context, project string, erc, nl *prepared) error {
	label := erc.res.label + " (with its netlist export)"
	dir, env, err := t.newRunFolder(label)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	spec := jobset{
		Meta: jobsetMeta{Version: 1},
		Jobs: []jobsetJob{
			{ID: "00000000-0000-4000-8000-000000000001", Type: "sch_erc", Settings: map[string]any{
				"format": "json", "units": "mm", "severity": ercSeverities, "fail_on_error": false,
				"output_filename": erc.j.out}},
			{ID: "00000000-0000-4000-8000-000000000002", Type: "sch_export_netlist", Settings: map[string]any{
				"format": "xml", "output_filename": nl.j.out}},
		},
		Outputs: []jobsetOutput{{ID: "00000000-0000-4000-8000-0000000000a1", Type: "folder", Only: []string{},
			Settings: map[string]any{"output_path": out}}},
	}
	data, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	file := filepath.Join(dir, "check.kicad_jobset")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	// kicad-cli copies both outputs into out as its last work: each is
	// parsed while it ends (early.go).
	if err := os.Mkdir(out, 0o755); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	watch := map[string]func(string){}
	var whole []<-chan struct{}
	for _, p := range []*prepared{erc, nl} {
		if p.early != nil {
			watch[p.j.out] = p.early.closed
			whole = append(whole, p.early.whole())
		}
	}
	if len(whole) < 2 {
		whole = nil // an output not parsed early: wait for the exit
	}
	defer watchClosed(out, watch)()
	res, err := runGroup(ctx, t.Timeout, t.yield, label, dir, env, whole, t.Path, "jobset", "run", "--file", file, project)
	if err != nil {
		return err
	}
	ercData, err1 := os.ReadFile(filepath.Join(out, erc.j.out))
	nlData, err2 := os.ReadFile(filepath.Join(out, nl.j.out))
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("%s: wrote no report: %w", label, err)
	}
	if !allSeverities(ercData) {
		return fmt.Errorf("%s: the report does not include every severity", label)
	}
	t.finish(erc, res.stderr, ercData)
	t.finish(nl, res.stderr, nlData)
	return nil
}

// allSeverities reports whether an ERC report included errors, warnings
// and exclusions, as `--severity-all` asks.
func allSeverities(report []byte) bool {
	var r struct {
		Included []string `json:"included_severities"`
	}
	if json.Unmarshal(report, &r) != nil {
		return false
	}
	for _, s := range []string{"error", "warning", "exclusion"} {
		if !slices.Contains(r.Included, s) {
			return false
		}
	}
	return true
}

// jobset is the .kicad_jobset file format of KiCad 9 (JSON).
type jobset struct {
	Jobs    []jobsetJob    `json:"jobs"`
	Meta    jobsetMeta     `json:"meta"`
	Outputs []jobsetOutput `json:"outputs"`
}

type jobsetMeta struct {
	Version int `json:"version"`
}

type jobsetJob struct {
	Description string         `json:"description"`
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Settings    map[string]any `json:"settings"`
}

type jobsetOutput struct {
	Description string         `json:"description"`
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Only        []string       `json:"only"`
	Settings    map[string]any `json:"settings"`
}
