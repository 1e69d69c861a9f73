package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/project"
	"copperhead/internal/redact"
)

// Tool is one tool the model may call. Each lives in its own file named for
// it (edit_file.go), with its model-facing description in a Markdown file
// beside it (edit_file.md, embedded).
type Tool interface {
	// Spec is what the model sees: name, description and JSON Schema.
	Spec() llm.Tool
	// Mutating tools change the repository or the run's registry; they are
	// withheld until the run's OpenSpec change validates (the spec gate).
	Mutating() bool
	// Run executes the call. A problem the model can act on (a bad anchor, a
	// path outside the repo) is a Result with IsError set; error is for
	// failures that must end the run.
	Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	Text    string
	IsError bool

	// Changed are the repo-relative files the call wrote (slash-separated).
	// Dispatch runs the post-call hooks on them: it records them in
	// Session.Touched and opens the ledger obligations they imply. A tool
	// never opens edit obligations itself, so no tool can forget one.
	Changed []string
	// Fatal is set by Dispatch when the tool failed in a way that must end
	// the run (a cancelled context, a tool that panicked); Text then says why.
	Fatal error
}

// Errorf builds an IsError result.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// RequirementsCheck is one run of consistency.CheckRequirements by the
// finish gate: how many findings, and the sleep leakage against its budget.
type RequirementsCheck struct {
	Findings int
	Detail   string
}

// Session is the state one run's tools share. The loop owns it; tools read
// and update it.
type Session struct {
	Repo    string           // repository root, absolute, symlinks resolved
	Config  config.Config    // the repository's config
	Project *project.Project // the located KiCad project (nil when the repo has none yet)
	KiCad   *kicadcli.Tool   // kicad-cli
	RunID   string
	Request string

	// ChangeID is the OpenSpec change this run proposed ("" until
	// propose_change succeeds); Validated turns true when validate_change
	// passes (and, with --interactive, the human approved). Mutating tools
	// need Validated.
	ChangeID  string
	Validated bool
	// Approve, when set (--interactive), is asked between validation and
	// unlocking the edit tools; false keeps them locked.
	Approve func(changeID string) bool

	// Sync marks a sync run: the KiCad files are the truth it reconciles
	// the docs against, so the tools that change them are absent from its
	// tool list and refused for the whole run (SyncWithheld), and edit_file
	// and write_file refuse KiCad files. A sync run changes docs, the
	// registry and generated files only.
	Sync bool

	Ledger *Ledger

	// Touched are repo-relative files the run changed, in first-touch order.
	Touched []string
	// KiCadEditSeq counts edits to .kicad_sch/.kicad_pcb files; a
	// verification run records the sequence number it saw, so finish can
	// tell whether the last ERC/DRC came after the last KiCad edit.
	KiCadEditSeq int
	// SchematicEditSeq and BoardEditSeq are the KiCadEditSeq of the last
	// .kicad_sch and .kicad_pcb edit (0: none): finish(done) needs an ERC no
	// older than the first and a DRC no older than the second.
	SchematicEditSeq int
	BoardEditSeq     int
	LastERC          *Verification
	LastDRC          *Verification
	// LastRequirements is the last requirement analysis the finish gate
	// ran (nil: none ran); the run's verification reports it.
	LastRequirements *RequirementsCheck
	// RepairCycles counts verification runs that failed (ERC/DRC with
	// counted violations); more than Config.MaxRepairCycles ends the run.
	RepairCycles int

	Decisions []Decision
	Finished  *Finish // set by the finish tool when it is accepted

	// Redactor scrubs secrets from every byte a tool writes into the
	// repository: a key the model echoes must not reach a file, a commit or
	// the failed-run stash. nil applies redact's shape rules only.
	Redactor *redact.Redactor

	tools toolState // the tools' private bookkeeping (dispatch.go)
}

// Verification is one ERC or DRC run as the gate sees it.
type Verification struct {
	Clean     bool
	AfterEdit int // Session.KiCadEditSeq when it ran
	Report    *kicadcli.Report
}

// Decision is a non-trivial decision with its one-line reason, written to
// docs/DECISIONS.md at commit.
type Decision struct {
	Decision  string   `json:"decision"`
	Rationale string   `json:"rationale"`
	Affects   []string `json:"affects,omitempty"`
}

// Outcome is how the model ends a run.
type Outcome string

const (
	OutcomeDone   Outcome = "done"
	OutcomeRefuse Outcome = "refuse"
)

// Finish is an accepted finish call.
type Finish struct {
	Outcome Outcome `json:"outcome"`
	Summary string  `json:"summary"`
}

// WriteFile is how tools write into the repository: redacted, then atomic.
func (s *Session) WriteFile(abs string, data []byte) error {
	return atomicfile.Write(abs, s.Redactor.Bytes(data), 0o644)
}
