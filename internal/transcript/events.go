package transcript

import (
	"encoding/json"
	"time"
)

// Event types this package defines payloads for. Other producers (the llm
// package's chat turns) choose their own type names; readers skip types
// they do not know.
const (
	TypeRunStart = "run-start" // RunStart: first event of every agent-loop run
	TypeRunEnd   = "run-end"   // RunEnd: last event, on every exit path
	TypeTool     = "tool"      // ToolEvent: one tool call and its result
	// TypeResearchRequest is ResearchRequest: one research network request
	// (a redirect hop is one of its own) or one refusal.
	TypeResearchRequest = "research-request"
)

// SelectionSource names which rule picked the model (spec §4.4): the
// --model flag, COPPERHEAD_MODEL, config.json, or the only provider key set.
type SelectionSource string

const (
	SourceFlag         SelectionSource = "flag"
	SourceEnv          SelectionSource = "env"
	SourceConfig       SelectionSource = "config"
	SourceOpenAIKey    SelectionSource = "openai-key"
	SourceAnthropicKey SelectionSource = "anthropic-key"
	// SourceMCP is a run whose model is an MCP client's: copperhead chose
	// none, the client's user did (runs.Options.Reasoner).
	SourceMCP SelectionSource = "mcp"
)

// RunStart is the run-start event (AC-8.1): everything needed to reproduce
// or explain a run, collected before the first turn without the model or the
// network. Pointer fields come from environment probes and are null when
// their probe failed (AC-8.3): a metadata failure never aborts a run. The
// same values render as summary.md's ## Environment section (AC-8.4).
type RunStart struct {
	RunID     string    `json:"run_id"`
	StartedAt time.Time `json:"started_at"`
	// Command is the copperhead command running the loop: do, sync,
	// create, repl, demo.
	Command string `json:"command"`
	// Request is the change request as given. The name predates AC-8 and
	// is kept, as are model and provider.
	Request         string          `json:"request"`
	Model           string          `json:"model"`
	Provider        string          `json:"provider"`
	SelectionSource SelectionSource `json:"selection_source"`
	Interactive     bool            `json:"interactive"`
	Stage           *Stage          `json:"stage"` // null outside a create pipeline

	CopperheadVersion string  `json:"copperhead_version"`
	InstallPath       *string `json:"install_path"`
	KicadCLIVersion   *string `json:"kicad_cli_version"`
	NodeVersion       *string `json:"node_version"` // runs the openspec CLI
	// Platform is GOOS/GOARCH plus the OS release when known, e.g.
	// "linux/amd64 (Debian GNU/Linux 12)".
	Platform string `json:"platform"`

	Config ConfigSnapshot `json:"config"`
	Git    GitState       `json:"git"`

	PreCommitHook   *bool `json:"pre_commit_hook"`  // copperhead's pre-commit hook is installed
	OpenConstraints *int  `json:"open_constraints"` // entries in .copperhead/constraints.json
	PriorRuns       *int  `json:"prior_runs"`       // run folders before this one
}

// Stage places a run in a create pipeline: name (Index/Count), 1-based.
type Stage struct {
	Name  string `json:"name"`
	Index int    `json:"index"`
	Count int    `json:"count"`
}

// ConfigSnapshot is the configuration the run actually uses, after flags
// and defaults (AC-8.2): `do --max-turns 12` records 12 whatever
// config.json says.
type ConfigSnapshot struct {
	Schematic       *string            `json:"schematic"` // null when the repo has none yet
	Board           *string            `json:"board"`     // null when the repo has none yet
	Docs            string             `json:"docs"`
	MaxTurns        int                `json:"max_turns"`
	MaxRepairCycles int                `json:"max_repair_cycles"`
	Budgets         map[string]float64 `json:"budgets"` // written {} when empty, never null
}

// MarshalJSON writes nil Budgets as {} so every run-start has the same keys.
func (c ConfigSnapshot) MarshalJSON() ([]byte, error) {
	type plain ConfigSnapshot
	if c.Budgets == nil {
		c.Budgets = map[string]float64{}
	}
	return json.Marshal(plain(c))
}

// GitState is the repo's git state at run start. Each field is null when
// its own probe failed (a detached HEAD has no branch; a repo with no
// commits has no commit).
type GitState struct {
	Commit      *string `json:"commit"`
	Branch      *string `json:"branch"`
	Dirty       *bool   `json:"dirty"`
	Uncommitted *int    `json:"uncommitted"` // changed + untracked paths
}

// ExitPath is how a run ended (AC-8.5). Every terminal branch of the loop
// maps to exactly one.
type ExitPath string

const (
	ExitDone                  ExitPath = "done"
	ExitRefused               ExitPath = "refused"
	ExitTurnBudgetExhausted   ExitPath = "turn-budget-exhausted"
	ExitRepairCyclesExhausted ExitPath = "repair-cycles-exhausted"
	ExitCommitFailed          ExitPath = "commit-failed"
	ExitProviderError         ExitPath = "provider-error"
	ExitStalled               ExitPath = "stalled"
	// ExitNoChange: the model finished as done but the run changed nothing
	// a commit would carry (no design or doc edit beyond its own
	// bookkeeping): nothing is committed, the tree is restored.
	ExitNoChange ExitPath = "no-change"
	// ExitInterrupted: the user stopped the run (Ctrl-C, SIGTERM), or it
	// was killed before it could end (SIGKILL, power loss) and `copperhead
	// recover` wrote its run-end, restored the pre-run tree and kept the
	// run's work in a stash. Not the model's fault either way.
	ExitInterrupted ExitPath = "interrupted"
)

// Valid reports whether p is one of the exit paths above.
func (p ExitPath) Valid() bool {
	switch p {
	case ExitDone, ExitRefused, ExitTurnBudgetExhausted, ExitRepairCyclesExhausted,
		ExitCommitFailed, ExitProviderError, ExitStalled, ExitNoChange, ExitInterrupted:
		return true
	}
	return false
}

// Tokens counts tokens. Its fields match llm.Usage one for one, so a usage
// converts directly: transcript.Tokens(turn.Usage). Input includes the cache
// reads and writes.
type Tokens struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cache_read"`
	CacheWrite int `json:"cache_write"`
}

// TurnTokens is one turn's usage, 1-based.
type TurnTokens struct {
	Turn int `json:"turn"`
	Tokens
}

// RunEnd is the run-end event (AC-8.5), written on every exit path.
type RunEnd struct {
	ExitPath          ExitPath     `json:"exit_path"`
	TurnsUsed         int          `json:"turns_used"`
	TurnBudget        int          `json:"turn_budget"`
	RepairCyclesUsed  int          `json:"repair_cycles_used"`
	RepairCycleBudget int          `json:"repair_cycle_budget"`
	Tokens            Tokens       `json:"tokens"`
	PerTurn           []TurnTokens `json:"per_turn"` // written [] when empty, never null
	DurationMS        int64        `json:"duration_ms"`
	Verification      Verification `json:"verification"`
	Commit            *string      `json:"commit"`    // the commit made; null when none
	StashRef          *string      `json:"stash_ref"` // stash holding a failed run's work
	Error             *string      `json:"error"`     // what failed, in the tool's own words
}

// MarshalJSON writes nil PerTurn as [] so every run-end has the same shape.
func (e RunEnd) MarshalJSON() ([]byte, error) {
	type plain RunEnd
	if e.PerTurn == nil {
		e.PerTurn = []TurnTokens{}
	}
	return json.Marshal(plain(e))
}

// Verification status values.
const (
	VerifyPassed = "passed"
	VerifyFailed = "failed"
	VerifyNotRun = "not-run"
)

// Verification is the gates' verdict at the end of a run.
type Verification struct {
	Status string         `json:"status"` // VerifyPassed, VerifyFailed or VerifyNotRun
	Checks []CheckOutcome `json:"checks"` // in the order they last ran; [] when none
}

// MarshalJSON writes nil Checks as [].
func (v Verification) MarshalJSON() ([]byte, error) {
	type plain Verification
	if v.Checks == nil {
		v.Checks = []CheckOutcome{}
	}
	if v.Status == "" {
		v.Status = VerifyNotRun
	}
	return json.Marshal(plain(v))
}

// CheckOutcome is one gate's last result: erc, drc, drift, openspec,
// constraints.
type CheckOutcome struct {
	Name       string `json:"name"`
	Status     string `json:"status"` // VerifyPassed, VerifyFailed or VerifyNotRun
	Violations int    `json:"violations"`
	Detail     string `json:"detail,omitempty"`
}

// ToolEvent is one tool call and its result.
type ToolEvent struct {
	Turn       int             `json:"turn"`
	CallID     string          `json:"call_id"` // the model's id for the call (llm.ToolCall.ID)
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"` // as the model sent them
	Result     string          `json:"result"`
	IsError    bool            `json:"is_error"`
	DurationMS int64           `json:"duration_ms"`
}

// ResearchRequest is one line of a run's research network log: a request
// the egress client sent, with its status, body size and duration, or one it
// refused before sending, with why. URL has key-bearing query values
// redacted.
type ResearchRequest struct {
	Method     string `json:"method"`
	URL        string `json:"url"`
	Status     int    `json:"status"`
	Bytes      int64  `json:"bytes"`
	DurationMS int64  `json:"duration_ms"`
	Refused    string `json:"refused,omitempty"` // why it was refused
	Error      string `json:"error,omitempty"`   // transport failure (timeout, reset, TLS)
}

// ResearchStats counts a run's research requests for summary.md.
type ResearchStats struct {
	Requests int // every request and refusal the run's egress client logged
	Refused  int // of those, refusals
}
