// Package verify runs copperhead's deterministic gates over a KiCad project:
// ERC, DRC, doc drift (with datasheet citations), constraints (the
// requirement analysis of internal/consistency, shared with sync), sourcing
// snapshots and OpenSpec validation. It is what
// `copperhead check` and the agent's verification step call. It must never
// import llm, research or agent, nor anything that opens a socket: a test
// asserts that with go list -deps.
package verify

import (
	"context"
	"runtime"
	"sync"
	"time"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/consistency"
	"copperhead/internal/design"
	"copperhead/internal/firmware"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
)

// Result is `check --json`: one object per gate, each with "ok" and its
// list of problems. The keys are a stable, documented contract (README).
type Result struct {
	OK          bool              `json:"ok"`
	ERC         ToolGate          `json:"erc"`
	DRC         ToolGate          `json:"drc"`
	Drift       DriftGate         `json:"drift"`
	Constraints ConstraintsGate   `json:"constraints"`
	OpenSpec    OpenSpecGate      `json:"openspec"`
	Sourcing    SourcingGate      `json:"sourcing"`
	Environment EnvironmentCounts `json:"environment"`
	// Baseline is the revision findings were compared against (check
	// --baseline); each violation then carries "baseline_state".
	Baseline *BaselineInfo `json:"baseline,omitempty"`
	// Netlist is kicad-cli's netlist of the schematic checked (nil when
	// none was exported): ApplyBaseline finds renamed nets by comparing two
	// sides' netlists. Not part of --json.
	Netlist *kicad.Netlist `json:"-"`
}

// ToolGate is ERC or DRC as kicad-cli reported it.
type ToolGate struct {
	OK          bool                 `json:"ok"`
	Skipped     string               `json:"skipped,omitempty"` // why the gate did not run
	Errors      int                  `json:"errors"`
	Warnings    int                  `json:"warnings"`
	Violations  []kicadcli.Violation `json:"violations"`
	Unconnected []kicadcli.Violation `json:"unconnected"` // DRC only: unrouted connections
	Parity      []kicadcli.Violation `json:"parity"`      // DRC only: board vs schematic
	Environment []kicadcli.Violation `json:"environment"` // host library problems; never fail the gate
	Cached      bool                 `json:"cached"`      // reused from an identical earlier run
}

// DriftGate is docs against the as-built design.
type DriftGate struct {
	OK         bool              `json:"ok"`
	Mismatches []design.Mismatch `json:"mismatches"`
	Warnings   []string          `json:"warnings"`
}

// ConstraintsGate is consistency.CheckRequirements: forbidden pins in use,
// the resistive sleep leakage against sleep_current_uA, and config.json
// budgets against SPEC.md ## Budgets, the same findings sync reports.
type ConstraintsGate struct {
	OK         bool                         `json:"ok"`
	Violations []design.ConstraintViolation `json:"violations"`
	// SleepLeakage is the leakage model's numbers, over budget or not.
	SleepLeakage circuit.Leakage `json:"sleep_leakage"`
}

// OpenSpecGate is `openspec validate --all`.
type OpenSpecGate struct {
	OK      bool             `json:"ok"`
	Skipped string           `json:"skipped,omitempty"`
	Issues  []openspec.Issue `json:"issues"`
}

// SourcingGate is the sourcing snapshots of constraints.json against the
// BOM (design D7). Findings with severity "warn" are printed and never fail
// the gate; Strict (--strict-sourcing) makes them "fail".
type SourcingGate struct {
	OK       bool                     `json:"ok"`
	Skipped  string                   `json:"skipped,omitempty"`
	Strict   bool                     `json:"strict"`
	Findings []design.SourcingFinding `json:"findings"`
}

// EnvironmentCounts counts the violations caused by the host's missing KiCad
// libraries, which are reported but never fail a check.
type EnvironmentCounts struct {
	ERC int `json:"erc"`
	DRC int `json:"drc"`
}

// Input names what to check.
type Input struct {
	Repo      string         // repository folder, absolute
	Config    config.Config  // the repository's config (defaults when it has none)
	Schematic string         // root .kicad_sch, absolute
	Board     string         // .kicad_pcb, absolute; "" when the project has none
	Tool      *kicadcli.Tool // the kicad-cli to run
	Strict    bool           // fail ERC/DRC on warnings too
	// StrictSourcing requires a sourcing snapshot for every BOM MPN and
	// fails on stale and zero-stock snapshots (check --strict-sourcing).
	StrictSourcing bool
	Now            time.Time // the clock snapshots are aged against; zero means time.Now()
	// SkipOpenSpec leaves openspec validate out (the baseline side of
	// check --baseline, whose OpenSpec result is never compared).
	SkipOpenSpec bool
}

// Run checks every gate. Errors are for gates that could not run at all (an
// unreadable doc, a schematic kicad-cli cannot load); failed gates are in the
// Result.
func Run(ctx context.Context, in Input) (*Result, error) {
	var (
		wg             sync.WaitGroup
		erc, drc       *kicadcli.Report
		ercErr, drcErr error
		nl             *kicad.Netlist
		sch            *kicad.Schematic
		schErr         error
		spec           *openspec.Result
		specErr        error
		runSpec        = !in.SkipOpenSpec && openspec.Present(in.Repo)
		bar            = kicadcli.SeverityError
	)
	if in.Strict {
		bar = kicadcli.SeverityWarning
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// kicad-cli is the slow part, so it starts first, before any work of
	// ours competes for the cores: DRC (usually the slowest call) as soon
	// as its inputs are hashed, then ERC with the netlist export (one
	// kicad-cli run: ERCAndNetlist). Beside a board, ERC yields the CPU:
	// DRC is multithreaded and would otherwise lose cores to it, while ERC
	// fits in what DRC leaves idle (kicadcli.Tool.Yielding). ERC and the
	// export read the same schematics: hashed once (SharingInputs).
	tool := in.Tool.SharingInputs()
	defer tool.Flush() // the cache writes, made beside the work below
	ercTool := tool
	if in.Board != "" {
		var run *kicadcli.PreparedCheck
		if run, drcErr = tool.PrepareDRC(in.Board); drcErr == nil {
			wg.Go(func() { drc, drcErr = run.Run(ctx) })
		}
		ercTool = tool.Yielding()
	}
	// The drift and requirement analysis need only our parse and the
	// netlist: they run as soon as both are there, while DRC still runs,
	// not after it.
	var ready sync.WaitGroup
	ready.Add(2)
	if pair, err := ercTool.PrepareERCAndNetlist(in.Schematic); err != nil {
		ercErr = err
		ready.Done()
	} else {
		// Alone, ERC and the export each get a core (PreparedPair.Apart).
		if in.Board == "" && runtime.NumCPU() >= 2 {
			pair.Apart()
		}
		wg.Go(func() {
			defer ready.Done()
			erc, nl, ercErr = pair.Run(ctx)
		})
	}
	// An unreadable doc ends the kicad-cli runs: its error is the one
	// reported.
	files, err := design.ReadFiles(in.Repo, in.Config)
	var reg design.Constraints
	if err == nil {
		reg, err = design.LoadConstraints(in.Repo)
	}
	if err != nil {
		cancel()
		ready.Done()
		wg.Wait()
		return nil, err
	}
	// Our own parse is the fastest to fail (a damaged sheet, a file outside
	// the repository): it ends the kicad-cli runs at once, and its error,
	// which names file:line:col, is the one reported.
	wg.Go(func() {
		defer ready.Done()
		if sch, schErr = kicad.LoadSchematicWithin(in.Schematic, in.Repo); schErr != nil {
			cancel()
		}
	})
	if runSpec {
		wg.Go(func() { spec, specErr = openspec.ValidateAllYielding(ctx, in.Repo) })
	}
	var (
		drift             design.DriftReport
		pins              []firmware.DriftFinding
		req               consistency.Requirements
		coverErr, pinsErr error
	)
	wg.Go(func() {
		ready.Wait()
		if schErr != nil || ercErr != nil {
			return
		}
		// A sub-sheet kicad-cli could not load is left out of its netlist and
		// ERC without an error: the design would pass check as half of itself.
		if coverErr = kicad.CheckNetlistCovers(sch, nl); coverErr != nil {
			return
		}
		drift = design.Drift(files, in.Config, sch, nl)
		drift.Mismatches = append(drift.Mismatches, design.CheckCitations(in.Repo, files, in.Config)...)
		// A generated pins.h is PINOUT.md's copy in firmware: it drifts with it.
		if pins, pinsErr = firmware.Drift(in.Repo); pinsErr != nil {
			return
		}
		// The requirement analysis sync and the agent's finish gate share, on
		// the netlist already exported above: no kicad-cli run of its own.
		req = consistency.CheckRequirements(consistency.State{Config: in.Config, Files: files, Constraints: reg, Netlist: nl})
	})
	wg.Wait()
	for _, err := range []error{schErr, ercErr, drcErr, coverErr, pinsErr} {
		if err != nil {
			return nil, err
		}
	}

	// kicad-cli files some ERC violations under the root sheet whatever
	// sheet they are on: our parse knows which file declares each item.
	erc.PlaceSheets(sch.SheetsDeclaring)
	res := &Result{Netlist: nl}
	res.ERC = toolGate(erc, bar)
	if drc != nil {
		res.DRC = toolGate(drc, bar)
	} else {
		res.DRC = ToolGate{OK: true, Skipped: "no board (.kicad_pcb) in the project", Violations: []kicadcli.Violation{},
			Unconnected: []kicadcli.Violation{}, Parity: []kicadcli.Violation{}, Environment: []kicadcli.Violation{}}
	}
	res.Environment = EnvironmentCounts{ERC: len(res.ERC.Environment), DRC: len(res.DRC.Environment)}

	for _, f := range pins {
		drift.Mismatches = append(drift.Mismatches, design.Mismatch{Doc: f.Header, Kind: design.MismatchPinHeader, Field: f.Kind,
			Claim: f.Header, Actual: f.Kind, Message: f.Message})
	}
	res.Drift = DriftGate{OK: drift.Clean(), Mismatches: nonNil(drift.Mismatches), Warnings: nonNil(drift.Warnings)}

	res.Constraints = ConstraintsGate{OK: req.OK(), Violations: nonNil(req.Constraints), SleepLeakage: req.SleepLeakage}

	switch {
	case !runSpec:
		res.OpenSpec = OpenSpecGate{OK: true, Skipped: "no openspec/ folder", Issues: []openspec.Issue{}}
	case specErr != nil:
		res.OpenSpec = OpenSpecGate{OK: false, Issues: []openspec.Issue{{Level: "ERROR", Message: specErr.Error()}}}
	default:
		res.OpenSpec = OpenSpecGate{OK: spec.OK(), Issues: nonNil(spec.Issues)}
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	sr := design.CheckSourcing(files, in.Config, reg, now, in.StrictSourcing)
	res.Sourcing = SourcingGate{OK: !sr.Failed(), Skipped: sr.Skipped, Strict: in.StrictSourcing, Findings: nonNil(sr.Findings)}

	res.OK = res.ERC.OK && res.DRC.OK && res.Drift.OK && res.Constraints.OK && res.OpenSpec.OK && res.Sourcing.OK
	return res, nil
}

func toolGate(r *kicadcli.Report, bar kicadcli.Severity) ToolGate {
	c := r.Counts()
	return ToolGate{
		OK:          !r.FailedAt(bar),
		Errors:      c.Errors,
		Warnings:    c.Warnings,
		Violations:  nonNil(r.Violations),
		Unconnected: nonNil(r.Unconnected),
		Parity:      nonNil(r.Parity),
		Environment: nonNil(r.Environment),
		Cached:      r.Cached,
	}
}

// nonNil makes an empty list marshal as [] rather than null: --json keys are stable.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
