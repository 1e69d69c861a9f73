package consistency

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"copperhead/internal/circuit"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
	"copperhead/internal/pinsh"
	"copperhead/internal/textfmt"
)

// Kind classifies an inconsistency.
type Kind string

const (
	KindDocDrift         Kind = "doc_drift"               // a BOM.md/PINOUT.md table disagrees with the schematic
	KindUnregistered     Kind = "constraint_unregistered" // a doc states a constraint constraints.json lacks
	KindUndocumented     Kind = "constraint_undocumented" // a constraints.json entry no doc states
	KindConstraintValue  Kind = "constraint_value"        // a registry limit differs from the SPEC.md budget
	KindConstraintSource Kind = "constraint_source"       // a registry source names a file that does not exist
	KindBudgetMirror     Kind = "budget_mirror"           // config.json budgets and SPEC.md ## Budgets differ
	KindPinHeader        Kind = "pin_header"              // a firmware pins.h disagrees with PINOUT.md
	KindLogMissing       Kind = "log_missing"             // DECISIONS.md or CHANGELOG.md is absent
	KindOpenSpec         Kind = "openspec"                // openspec validate --all failed
	KindForbiddenPin     Kind = "forbidden_pin"           // violation: a forbidden pin is in use
	KindBudgetExceeded   Kind = "budget_exceeded"         // violation: the design exceeds a budget
	KindCitation         Kind = "citation"                // a VERIFIED(datasheet) row's citation does not hold
	KindSourcing         Kind = "sourcing"                // a sourcing snapshot is missing, stale, zero-stock or end-of-life
)

// Inconsistency is one disagreement in the design state. Doc is the file on
// the wrong side (for a violation: the file stating the requirement), Claim
// what it says, Actual what the governing side says, Governing where the
// truth comes from (the schematic, a SPEC.md budget, a constraint's source).
//
// Exactly one of three things is true: Resolvable (the sync agent may apply
// ProposedResolution), Violation (the as-built design breaks a requirement:
// flagged for the human, never rewritten), or neither (something a human
// must look at, such as openspec failing to run).
type Inconsistency struct {
	Kind               Kind   `json:"kind"`
	Doc                string `json:"doc"`
	Subject            string `json:"subject"` // what it is about: "R6 value", a constraint key, a define
	Claim              string `json:"claim"`
	Actual             string `json:"actual"`
	ProposedResolution string `json:"proposed_resolution"`
	Resolvable         bool   `json:"resolvable"`
	Violation          bool   `json:"violation"`
	Governing          string `json:"governing"`
}

// Report is the whole audit. Inconsistencies are ordered violations first,
// then in check order (drift, constraints, budgets, pins.h, logs, openspec),
// each check's own order within.
type Report struct {
	Inconsistencies []Inconsistency `json:"inconsistencies"`
	// SleepLeakage is the leakage model's numbers, reported whether or not
	// they break the budget: explain and a reviewer read them.
	SleepLeakage circuit.Leakage `json:"sleep_leakage"`
	// Skipped names the checks that did not run, and why.
	Skipped []string `json:"skipped"`
}

// Clean reports whether nothing at all is inconsistent.
func (r *Report) Clean() bool { return len(r.Inconsistencies) == 0 }

// Violations are the requirement violations.
func (r *Report) Violations() []Inconsistency {
	return r.filter(func(i Inconsistency) bool { return i.Violation })
}

// Resolvable are the inconsistencies the sync agent may resolve.
func (r *Report) Resolvable() []Inconsistency {
	return r.filter(func(i Inconsistency) bool { return i.Resolvable })
}

// Flagged are the inconsistencies that are neither resolvable nor a
// violation: a human must look at them.
func (r *Report) Flagged() []Inconsistency {
	return r.filter(func(i Inconsistency) bool { return !i.Resolvable && !i.Violation })
}

func (r *Report) filter(keep func(Inconsistency) bool) []Inconsistency {
	out := []Inconsistency{}
	for _, i := range r.Inconsistencies {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// Input names the repository to audit.
type Input struct {
	Repo      string         // repository folder, absolute
	Config    config.Config  // its config (defaults when it has none)
	Schematic string         // root .kicad_sch, absolute
	Tool      *kicadcli.Tool // exports the netlist
}

// State is everything the audit reads, already loaded: Run loads it from a
// repository, tests build it.
type State struct {
	Config        config.Config
	Files         design.Files       // design.ReadFiles, plus every file a constraint source names
	Constraints   design.Constraints // .copperhead/constraints.json
	Schematic     *kicad.Schematic
	SchematicPath string // repo-relative, for messages
	Netlist       *kicad.Netlist
	PinHeaders    design.Files     // firmware/**/pins.h by repo-relative path
	OpenSpec      *openspec.Result // nil: the repository has no openspec/ folder
	OpenSpecErr   error            // openspec could not run
	// Citations are BOM.md's broken datasheet citations (D8) and Sourcing
	// the sourcing snapshots' findings (D7): both read files beside the
	// docs, so Load computes them and Analyze only reports them.
	Citations []design.Mismatch
	Sourcing  design.SourcingReport
}

// Run loads the repository's state and audits it. Errors are for state that
// cannot be read at all (a malformed constraints.json, a schematic kicad-cli
// cannot load); everything else is in the Report.
func Run(ctx context.Context, in Input) (*Report, error) {
	st, err := Load(ctx, in)
	if err != nil {
		return nil, err
	}
	return Analyze(st), nil
}

// Load reads what Analyze needs from the repository.
func Load(ctx context.Context, in Input) (State, error) {
	st := State{Config: in.Config}
	files, err := design.ReadFiles(in.Repo, in.Config)
	if err != nil {
		return st, err
	}
	st.Files = files
	if st.Constraints, err = design.LoadConstraints(in.Repo); err != nil {
		return st, err
	}
	for _, p := range sourceFiles(st.Constraints) {
		if _, have := files[p]; have {
			continue
		}
		data, err := config.ReadRepoFile(in.Repo, p)
		if err == nil {
			files[p] = data
		} else if !errors.Is(err, fs.ErrNotExist) {
			return st, fmt.Errorf("read %s: %w", p, err)
		}
	}
	if rel, err := filepath.Rel(in.Repo, in.Schematic); err == nil {
		st.SchematicPath = filepath.ToSlash(rel)
	}
	if st.Schematic, err = kicad.LoadSchematicWithin(in.Schematic, in.Repo); err != nil {
		return st, err
	}
	if st.Netlist, err = in.Tool.Netlist(ctx, in.Schematic); err != nil {
		return st, err
	}
	if err := kicad.CheckNetlistCovers(st.Schematic, st.Netlist); err != nil {
		return st, err
	}
	st.Citations = design.CheckCitations(in.Repo, files, in.Config)
	st.Sourcing = design.CheckSourcing(files, in.Config, st.Constraints, time.Now(), false)
	if st.PinHeaders, err = pinsh.ReadAll(in.Repo); err != nil {
		return st, err
	}
	if openspec.Present(in.Repo) {
		st.OpenSpec, st.OpenSpecErr = openspec.ValidateAll(ctx, in.Repo)
		if st.OpenSpec == nil && st.OpenSpecErr == nil {
			st.OpenSpecErr = errors.New("openspec validate --all returned no report")
		}
	}
	return st, nil
}

// Analyze audits loaded state. It is a pure function of st.
func Analyze(st State) *Report {
	r := &Report{Inconsistencies: []Inconsistency{}, Skipped: []string{}}
	add := func(is ...Inconsistency) { r.Inconsistencies = append(r.Inconsistencies, is...) }
	req := CheckRequirements(st)
	add(driftInconsistencies(st)...)
	add(registryInconsistencies(st)...)
	add(req.Budgets...)
	hdr, skipped := pinHeaderInconsistencies(st)
	add(hdr...)
	r.Skipped = append(r.Skipped, skipped...)
	add(logInconsistencies(st)...)
	if st.OpenSpec == nil && st.OpenSpecErr == nil {
		r.Skipped = append(r.Skipped, "openspec: no openspec/ folder")
	}
	add(openspecInconsistencies(st)...)
	add(evidenceInconsistencies(st)...)
	// Forbidden pins and budgets exceeded: the analysis check, check_drift
	// and the finish gate share.
	add(req.Violations...)
	r.SleepLeakage = req.SleepLeakage
	// Violations first: they decide the exit code and must not scroll away.
	slices.SortStableFunc(r.Inconsistencies, func(a, b Inconsistency) int {
		switch {
		case a.Violation == b.Violation:
			return 0
		case a.Violation:
			return -1
		}
		return 1
	})
	return r
}

func logInconsistencies(st State) []Inconsistency {
	var out []Inconsistency
	for _, name := range design.AppendOnlyDocs {
		p := st.Config.DocPath(name)
		if _, ok := st.Files[p]; ok {
			continue
		}
		out = append(out, Inconsistency{
			Kind: KindLogMissing, Doc: p, Subject: name,
			Claim: "(no file)", Actual: "every committed run appends an entry to it",
			ProposedResolution: fmt.Sprintf("create %s with the template `copperhead init` writes; the sync run then appends its own entry", p),
			Resolvable:         true,
			Governing:          "design D12/D13: DECISIONS.md and CHANGELOG.md are the append-only logs",
		})
	}
	return out
}

func openspecInconsistencies(st State) []Inconsistency {
	switch {
	case st.OpenSpecErr != nil:
		return []Inconsistency{{
			Kind: KindOpenSpec, Doc: "openspec/", Subject: "openspec validate --all",
			Claim: "(could not run)", Actual: st.OpenSpecErr.Error(),
			ProposedResolution: "install the openspec CLI (scripts/setup.sh) and re-run sync",
			Governing:          "openspec/specs/",
		}}
	case st.OpenSpec == nil || st.OpenSpec.OK():
		return nil
	}
	var out []Inconsistency
	for _, is := range st.OpenSpec.Issues {
		if !strings.EqualFold(is.Level, "ERROR") {
			continue
		}
		doc := path.Join("openspec", "specs", is.Item, "spec.md")
		if is.Type == "change" {
			doc = path.Join("openspec", "changes", is.Item)
		}
		out = append(out, Inconsistency{
			Kind: KindOpenSpec, Doc: doc, Subject: fmt.Sprintf("%s %s", is.Type, is.Item),
			Claim: cmp.Or(is.Path, "(structure)"), Actual: textfmt.OneLine(is.Message),
			ProposedResolution: "fix the structure openspec reports without changing what any requirement says",
			Resolvable:         true,
			Governing:          "openspec validate --all",
		})
	}
	return out
}

func forbiddenPinViolation(st State, v design.ConstraintViolation) Inconsistency {
	c := st.Constraints[v.Key]
	return Inconsistency{
		Kind: KindForbiddenPin, Doc: config.ConstraintsPath, Subject: v.Key,
		Claim:  fmt.Sprintf("%s forbids %s", v.Key, strings.Join(c.Forbidden, ", ")),
		Actual: v.Message,
		ProposedResolution: "a human decides: move the net to an allowed pin in the schematic (then sync the docs), " +
			"or change the requirement at its source; sync rewrites neither side",
		Violation: true,
		Governing: fmt.Sprintf("%s (source: %s)", v.Key, cmp.Or(c.Source, "none given")),
	}
}
