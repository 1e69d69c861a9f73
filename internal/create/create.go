// Package create runs `copperhead create`: a product brief to a complete,
// verified output package in eight stages. Mode A is Mode B iterated: each
// model stage is one gated agent run (agent.Run on a runs.Run) with a stage
// prompt, and each stage is complete only when its gate, checked from the
// repository's content and never from a run's own claim, passes. All state
// lives in the repository (docs/BRIEF.md, the docs, the KiCad files,
// outputs/), so a run killed anywhere resumes at the first stage whose gate
// fails. The deterministic stages (layout draft, outputs, firmware, dev
// plan) run their engines directly. It must never import cli or llm
// providers' wire code.
package create

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"copperhead/internal/agent"
	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/devplan"
	"copperhead/internal/draft"
	"copperhead/internal/draft/layout"
	"copperhead/internal/fab"
	"copperhead/internal/firmware"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/outputs"
	"copperhead/internal/project"
	"copperhead/internal/runs"
)

//go:embed prompts/*.md
var prompts embed.FS

// DemoBrief is the packaged brief `copperhead demo` builds: a USB-C power
// breakout.
//
//go:embed briefs/usb-c-power-breakout.md
var DemoBrief []byte

// BriefPath is where create keeps the brief, so a resume needs no --brief.
const BriefPath = "docs/BRIEF.md"

// Stage is one step of the pipeline.
type Stage struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Model bool   `json:"model"` // a gated agent run; otherwise a deterministic engine
}

// Stages are the pipeline in order.
var Stages = []Stage{
	{"spec-seed", "specification seeded from the brief (OpenSpec + SPEC.md budgets, ASSUMED flags)", true},
	{"architecture", "subsystems (SUBSYSTEMS.md block diagram) and board intent (LAYOUT.md)", true},
	{"part-selection", "parts with real KiCad symbols; BOM.md with a rationale per row", true},
	{"schematic", "schematic drawn by the intent engine; ERC and drift clean", true},
	{"layout-draft", "first-draft board: placed by rule, DRC clean but for unrouted nets, Draft quality written", false},
	{"outputs", "fab package via kicad-cli: gerbers + drill, DXF, STEP, SVGs, 3D render, ordering BOM", false},
	{"firmware", "firmware scaffold with pins.h generated from PINOUT.md, built when the toolchain is here", false},
	{"devplan", "DEVPLAN.md: bring-up steps, test points, what to measure first, risks, order plan", false},
}

// StageByName finds a stage.
func StageByName(name string) (Stage, bool) {
	for _, s := range Stages {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}

// Prompt is a model stage's request: its stage prompt, plus guidance from
// a diagnosis when the stage is being retried.
func Prompt(st Stage, guidance string) string {
	data, err := prompts.ReadFile("prompts/" + st.Name + ".md")
	if err != nil {
		return st.Title
	}
	p := strings.TrimSpace(string(data))
	if guidance != "" {
		p += "\n\nThe previous attempt at this stage did not pass its gate. Diagnosis and guidance:\n" + strings.TrimSpace(guidance)
	}
	return p
}

// StageRun is one agent run (or diagnosis call) made for a stage.
type StageRun = runs.Brief

// Env is the repository the pipeline works in.
type Env struct {
	Repo   string
	Config config.Config
	KiCad  *kicadcli.Tool
}

// docPath is a design doc's absolute path, e.g. docPath("LAYOUT.md").
func (e Env) docPath(name string) string {
	return filepath.Join(e.Repo, filepath.FromSlash(e.Config.DocPath(name)))
}

// The architecture gate's reading of SUBSYSTEMS.md.
var (
	blockDiagramRE = regexp.MustCompile(`(?mi)^##\s+Block diagram`)
	sectionRE      = regexp.MustCompile(`(?m)^##\s+\S`)
)

// Input configures a pipeline run.
type Input struct {
	Env
	// Model starts the model stages' runs: the selected model and what
	// every run records; nil: model stages cannot run and stop the
	// pipeline.
	Model *runs.Options
	// Watch is handed each agent run a stage starts, before it begins: the
	// caller renders it and may set the hooks only a person can answer
	// (agent.RunInput.Extend). The func it returns is called when the run
	// is over. nil: nobody watches.
	Watch           func(rn *runs.Run, in *agent.RunInput) (stop func() error)
	MaxStageRetries int    // retries after a failed gate, each with a diagnosis
	Fab             string // outputs fab profile (default jlcpcb)
	SkipSTEP        bool   // outputs: no STEP export
	SkipRender      bool   // outputs: no 3D render
	Progress        func(string)
	// Approve, when set (create --interactive), is asked before the
	// pipeline moves past the spec (after spec-seed) and before exports
	// (before outputs); false stops the pipeline for a resume.
	Approve func(question string) bool

	// stage and diagnose stand in for the model in this package's tests;
	// nil is the agent (RunStage, runDiagnosis).
	stage    func(ctx context.Context, in Input, st Stage, request string, maxTurns int) (StageRun, error)
	diagnose func(ctx context.Context, in Input, st Stage, problems []string, last StageRun) (string, StageRun, error)
}

// DefaultMaxStageRetries is used when config.json has no maxStageRetries.
const DefaultMaxStageRetries = 2

// StageReport is what happened to one stage in this invocation.
type StageReport struct {
	Stage    string        `json:"stage"`
	Status   string        `json:"status"` // done, already complete, failed, not reached
	Runs     []StageRun    `json:"runs"`
	Problems []string      `json:"problems"` // the gate's, when it failed
	Note     string        `json:"note,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Tokens sums the stage's model usage.
func (s StageReport) Tokens() llm.Usage {
	var u llm.Usage
	for _, r := range s.Runs {
		u = u.Add(r.Tokens)
	}
	return u
}

// Report is the whole invocation, written as .copperhead/runs/REPORT.md and
// report.json.
type Report struct {
	Started   time.Time     `json:"started"`
	Ended     time.Time     `json:"ended"`
	Complete  bool          `json:"complete"`
	StoppedAt string        `json:"stopped_at,omitempty"`
	Stages    []StageReport `json:"stages"`
}

// Status reports state per stage without running anything: each gate in
// order, as resume would see it.
func Status(ctx context.Context, env Env) ([]StageReport, error) {
	var out []StageReport
	for _, st := range Stages {
		problems, err := Gate(ctx, env, st)
		if err != nil {
			return nil, err
		}
		status := "complete"
		if len(problems) > 0 {
			status = "pending"
		}
		out = append(out, StageReport{Stage: st.Name, Status: status, Problems: problems, Runs: []StageRun{}})
	}
	return out, nil
}

// ErrStopped is returned when a stage could not be completed: the report
// says which and why, and the caller prints the resume command.
var ErrStopped = errors.New("create stopped")

// Run runs the pipeline from the first stage whose gate fails.
func Run(ctx context.Context, in Input) (*Report, error) {
	rep := &Report{Started: time.Now().UTC()}
	say := in.Progress
	if say == nil {
		say = func(string) {}
	}
	retries := in.MaxStageRetries
	if retries < 0 {
		retries = 0
	}
	stopped := false
	for i, st := range Stages {
		sr := StageReport{Stage: st.Name, Runs: []StageRun{}, Problems: []string{}}
		if stopped {
			sr.Status = "not reached"
			rep.Stages = append(rep.Stages, sr)
			continue
		}
		began := time.Now()
		problems, err := Gate(ctx, in.Env, st)
		if err != nil {
			return rep, err
		}
		if len(problems) == 0 {
			sr.Status = "already complete"
			say(fmt.Sprintf("stage %d/8 %s: already complete", i+1, st.Name))
			rep.Stages = append(rep.Stages, sr)
			continue
		}
		if in.Approve != nil && st.Name == "outputs" && !in.Approve("The draft board is ready. Export the fab package now? [y/N] ") {
			sr.Status, sr.Note = "failed", "export declined at the pre-export review"
			sr.Problems = problems
			rep.Stages = append(rep.Stages, sr)
			stopped, rep.StoppedAt = true, st.Name
			continue
		}
		say(fmt.Sprintf("stage %d/8 %s: %s", i+1, st.Name, st.Title))
		if st.Model {
			problems, err = runModelStage(ctx, in, st, problems, retries, &sr, say)
		} else {
			problems, err = runEngineStage(ctx, in, st, &sr)
		}
		sr.Duration = time.Since(began)
		if err != nil && !errors.Is(err, ErrStopped) {
			sr.Status, sr.Problems = "failed", []string{err.Error()}
			rep.Stages = append(rep.Stages, sr)
			stopped, rep.StoppedAt = true, st.Name
			continue
		}
		if len(problems) > 0 {
			sr.Status, sr.Problems = "failed", problems
			rep.Stages = append(rep.Stages, sr)
			stopped, rep.StoppedAt = true, st.Name
			say(fmt.Sprintf("stage %d/8 %s: gate failed: %s", i+1, st.Name, strings.Join(problems, "; ")))
			continue
		}
		sr.Status = "done"
		rep.Stages = append(rep.Stages, sr)
		say(fmt.Sprintf("stage %d/8 %s: done", i+1, st.Name))
		if in.Approve != nil && st.Name == "spec-seed" && !in.Approve("SPEC.md and openspec/specs are written. Approve the spec and continue? [y/N] ") {
			stopped, rep.StoppedAt = true, "architecture"
			rep.Stages[len(rep.Stages)-1].Note = "spec not approved: edit the spec, then resume"
		}
	}
	rep.Ended = time.Now().UTC()
	rep.Complete = !stopped
	if err := writeReport(in.Repo, rep); err != nil {
		return rep, err
	}
	if stopped {
		return rep, ErrStopped
	}
	return rep, nil
}

// runModelStage runs the stage's agent run, then its gate; a failed gate
// gets a diagnosis and a retry with the diagnosis as guidance, up to
// retries times.
func runModelStage(ctx context.Context, in Input, st Stage, problems []string, retries int, sr *StageReport, say func(string)) ([]string, error) {
	stage, diagnose := in.stage, in.diagnose
	if stage == nil {
		if in.Model == nil {
			return problems, fmt.Errorf("stage %s needs a model: configure one (see 'copperhead models') and resume", st.Name)
		}
		stage, diagnose = RunStage, runDiagnosis
	}
	maxTurns := in.Config.MaxTurns
	if n := in.Config.StageMaxTurns[st.Name]; n > 0 {
		maxTurns = n // AC-15.18
	}
	guidance := ""
	for attempt := 0; ; attempt++ {
		run, err := stage(ctx, in, st, Prompt(st, guidance), maxTurns)
		run.Kind = "run"
		sr.Runs = append(sr.Runs, run)
		if err != nil {
			return problems, err
		}
		if problems, err = Gate(ctx, in.Env, st); err != nil {
			return problems, err
		}
		if len(problems) == 0 {
			return nil, nil
		}
		if !run.OK && run.Error != "" {
			problems = append(problems, "the run failed: "+run.Error)
		}
		if attempt >= retries || ctx.Err() != nil {
			return problems, nil
		}
		say(fmt.Sprintf("stage %s: gate failed (%s); diagnosing, retry %d of %d", st.Name, strings.Join(problems, "; "), attempt+1, retries))
		g, drun, err := diagnose(ctx, in, st, problems, run)
		drun.Kind = "diagnosis"
		sr.Runs = append(sr.Runs, drun)
		if err != nil {
			return problems, err
		}
		guidance = g
	}
}

// runEngineStage runs a deterministic stage's engine, commits what it
// wrote, and checks the gate.
func runEngineStage(ctx context.Context, in Input, st Stage, sr *StageReport) ([]string, error) {
	if in.KiCad == nil {
		return nil, fmt.Errorf("stage %s needs kicad-cli 9", st.Name)
	}
	pr, err := locate(in.Env)
	if err != nil {
		return nil, err
	}
	switch st.Name {
	case "layout-draft":
		rep, err := layout.Draft(ctx, in.KiCad, layout.Options{
			Schematic: pr.Schematic, Board: boardPath(pr),
			LayoutDoc: in.docPath(design.LayoutDoc),
			Display:   pr.Rel, MarkDraft: true,
			// The board is recorded in config.json in the draft's own
			// transaction, as `draft layout` records it.
			Repo: in.Repo, Record: true,
			// The board is drawn to the rules of the house --fab orders
			// it from, the same one the outputs stage packages it for.
			Fab: in.Fab,
		})
		if err != nil {
			return nil, fmt.Errorf("layout draft: %w", err)
		}
		sr.Note = fmt.Sprintf("%d parts placed, %d nets routed, %d left to route", len(rep.Parts), len(rep.Routed), len(rep.Unrouted)+len(rep.Partial))
		if rep.RecordedBoard != "" {
			sr.Note += "; board " + rep.RecordedBoard + " recorded in " + config.ConfigPath
		}
	case "outputs":
		res, err := generateOutputs(ctx, in, pr)
		if err != nil {
			return nil, err
		}
		sr.Note = res
	case "firmware":
		note, err := generateFirmware(ctx, in, pr)
		if err != nil {
			return nil, err
		}
		sr.Note = note
	case "devplan":
		if err := generateDevplan(ctx, in, pr); err != nil {
			return nil, err
		}
	}
	if _, err := gitrepo.CommitAll(ctx, in.Repo, "copperhead create: "+st.Name+"\n\n"+st.Title+"\n"); err != nil && !errors.Is(err, gitrepo.ErrNothingToCommit) {
		return nil, err
	}
	return Gate(ctx, in.Env, st)
}

func locate(env Env) (*project.Project, error) {
	pr, err := project.Locate(env.Repo, "", env.Config.Schematic, env.Config.Board)
	if err != nil {
		return nil, err
	}
	return pr, nil
}

// boardPath is the project's board, or where the layout draft writes one:
// beside the schematic with its name, as KiCad pairs them.
func boardPath(pr *project.Project) string {
	if pr.Board != "" {
		return pr.Board
	}
	return strings.TrimSuffix(pr.Schematic, ".kicad_sch") + ".kicad_pcb"
}

// outputsDir is where the fab package goes.
const outputsDir = "outputs"

func generateOutputs(ctx context.Context, in Input, pr *project.Project) (string, error) {
	house := cmp.Or(in.Fab, fab.Default)
	res, err := outputs.Generate(ctx, in.KiCad, outputs.Input{
		Name: pr.Name, Schematic: pr.Schematic, Board: boardPath(pr),
		BOMDoc: in.docPath(design.BOMDoc), Repo: pr.Repo,
	}, filepath.Join(in.Repo, outputsDir), outputs.Options{Fab: house, SkipSTEP: in.SkipSTEP, SkipRender: in.SkipRender})
	if err != nil {
		return "", fmt.Errorf("outputs: %w", err)
	}
	return fmt.Sprintf("%d files for %s", len(res.Manifest.Files), house), nil
}

// firmwareStatus records the firmware build line for the dev plan, so a
// resumed pipeline still knows whether the scaffold compiled here.
const firmwareStatus = config.FirmwareStatus

type firmwareState struct {
	MCU       string `json:"mcu"`
	Refdes    string `json:"refdes"`
	Build     string `json:"build"`
	HappyPath string `json:"happy_path"`
}

func generateFirmware(ctx context.Context, in Input, pr *project.Project) (string, error) {
	sch, err := kicad.LoadSchematicWithin(pr.Schematic, pr.Repo)
	if err != nil {
		return "", err
	}
	mcu, err := firmware.DetectMCU(design.Parts(sch), sch.Pins(), "")
	st := firmwareState{}
	if err != nil {
		// A board with no microcontroller (a power breakout) has no
		// firmware: that is a finding for DEVPLAN.md, not a failure.
		st.Build = "no firmware: " + err.Error()
	} else {
		// The clock follows the board's crystal (F_CPU, README), as
		// `copperhead firmware` does.
		if in.KiCad == nil {
			mcu.Clock = firmware.DetectClock(mcu, nil, "kicad-cli not found, no netlist to find a crystal in")
		} else if nl, nerr := in.KiCad.Netlist(ctx, pr.Schematic); nerr != nil {
			mcu.Clock = firmware.DetectClock(mcu, nil, "no netlist: "+nerr.Error())
		} else {
			mcu.Clock = firmware.DetectClock(mcu, nl, "")
		}
		pinout, err := os.ReadFile(in.docPath(design.PinoutDoc))
		if err != nil {
			return "", fmt.Errorf("firmware: %w", err)
		}
		res, err := firmware.Generate(ctx, mcu, pinout, firmware.Options{Repo: in.Repo, Pinout: in.Config.DocPath(design.PinoutDoc), Project: pr.Name})
		if err != nil {
			return "", fmt.Errorf("firmware: %w", err)
		}
		if err := res.Build.Gate(); err != nil {
			return "", fmt.Errorf("firmware: %w", err)
		}
		st = firmwareState{MCU: string(mcu.Family) + " " + mcu.Target, Refdes: mcu.Refdes, Build: res.Build.Line(), HappyPath: res.HappyPath}
	}
	data, _ := json.MarshalIndent(st, "", "  ")
	if err := atomicfile.Write(filepath.Join(in.Repo, filepath.FromSlash(firmwareStatus)), append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	return st.Build, nil
}

func readFirmwareState(repo string) (firmwareState, bool) {
	var st firmwareState
	data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(firmwareStatus)))
	if err != nil || json.Unmarshal(data, &st) != nil {
		return st, false
	}
	return st, true
}

func generateDevplan(ctx context.Context, in Input, pr *project.Project) error {
	sch, err := kicad.LoadSchematicWithin(pr.Schematic, pr.Repo)
	if err != nil {
		return err
	}
	fw, _ := readFirmwareState(in.Repo)
	dp, err := devplan.FromRepo(in.Repo, in.Config, sch, fw.MCU, fw.Refdes, fw.Build, fw.HappyPath)
	if err != nil {
		return fmt.Errorf("devplan: %w", err)
	}
	_, err = devplan.Write(in.Repo, in.Config, devplan.Generate(dp))
	return err
}

// Gate checks one stage's completion from the repository's content; no
// problems means complete.
func Gate(ctx context.Context, env Env, st Stage) ([]string, error) {
	files, err := design.ReadFiles(env.Repo, env.Config)
	if err != nil {
		return nil, err
	}
	doc := func(name string) (string, []byte) {
		p := env.Config.DocPath(name)
		return p, files[p]
	}
	var problems []string
	switch st.Name {
	case "spec-seed":
		if !specHasScenario(env.Repo) {
			problems = append(problems, "openspec/specs/ has no requirement with a scenario")
		}
		p, spec := doc(design.SpecDoc)
		if !sectionHasEntries(spec, "Budgets") {
			problems = append(problems, p+" has no populated ## Budgets section")
		}
	case "architecture":
		p, sub := doc(design.SubsystemsDoc)
		if !blockDiagramRE.Match(sub) || !strings.Contains(string(sub), "```") {
			problems = append(problems, p+" has no ## Block diagram section with a fenced diagram")
		}
		if n := len(sectionRE.FindAll(sub, -1)); n < 3 {
			problems = append(problems, fmt.Sprintf("%s has %d sections; want the block diagram and at least two subsystems", p, n))
		}
		if p, lay := doc(design.LayoutDoc); len(strings.TrimSpace(string(lay))) == 0 {
			problems = append(problems, p+" (the board intent) is missing")
		}
	case "part-selection":
		p, bom := doc(design.BOMDoc)
		rows, err := design.ParseBOM(bom)
		if err != nil || len(rows) == 0 {
			problems = append(problems, p+" has no parts table with rows")
			break
		}
		lib := draft.InstalledLibrary()
		for _, r := range rows {
			if why := strings.TrimSpace(r.Rationale); why == "" || strings.HasPrefix(strings.ToUpper(why), "TODO") {
				problems = append(problems, fmt.Sprintf("%s: %s has no rationale", p, r.Refdes))
			}
			// A footprint the layout engine cannot load stops the pipeline
			// two stages later; catch it while parts are being chosen.
			if err := draft.FootprintExists(lib, strings.TrimSpace(r.Footprint)); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", p, r.Refdes, err))
			}
		}
	case "schematic":
		pr, err := locate(env)
		if err != nil {
			problems = append(problems, "no schematic: "+err.Error())
			break
		}
		sch, err := kicad.LoadSchematicWithin(pr.Schematic, pr.Repo)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		if len(design.Parts(sch)) == 0 {
			problems = append(problems, pr.Rel(pr.Schematic)+" has no parts")
			break
		}
		if env.KiCad == nil {
			problems = append(problems, "kicad-cli 9 is needed to check ERC")
			break
		}
		erc, nl, err := env.KiCad.ERCAndNetlist(ctx, pr.Schematic)
		if err != nil {
			return nil, err
		}
		erc.PlaceSheets(sch.SheetsDeclaring) // as check files them
		if n := len(erc.Violations); n > 0 {
			problems = append(problems, fmt.Sprintf("ERC: %d violations (first: %s)", n, kicadcli.OneLine(erc.Violations[0].Description)))
		}
		if d := design.Drift(files, env.Config, sch, nl); !d.Clean() {
			problems = append(problems, fmt.Sprintf("drift: %d mismatches (first: %s)", len(d.Mismatches), d.Mismatches[0].Message))
		}
	case "layout-draft":
		pr, err := locate(env)
		if err != nil {
			problems = append(problems, "no schematic: "+err.Error())
			break
		}
		board := boardPath(pr)
		if _, err := os.Stat(board); err != nil {
			problems = append(problems, "no board yet: "+pr.Rel(board))
			break
		}
		if env.KiCad == nil {
			problems = append(problems, "kicad-cli 9 is needed to check DRC")
			break
		}
		gp, err := layout.Gate(ctx, env.KiCad, board, env.docPath(design.LayoutDoc))
		if err != nil {
			return nil, err
		}
		problems = append(problems, gp...)
	case "outputs":
		if _, err := outputs.Verify(filepath.Join(env.Repo, outputsDir)); err != nil {
			problems = append(problems, "outputs: "+err.Error())
		}
	case "firmware":
		if _, ok := readFirmwareState(env.Repo); !ok {
			problems = append(problems, "the firmware stage has not run ("+firmwareStatus+" is missing)")
			break
		}
		drift, err := firmware.Drift(env.Repo)
		if err != nil {
			return nil, err
		}
		for _, f := range drift {
			problems = append(problems, f.Message)
		}
	case "devplan":
		p, dp := doc(devplan.DocName)
		if len(dp) == 0 {
			problems = append(problems, p+" is missing")
		}
	}
	return problems, nil
}

// specHasScenario reports whether openspec/specs holds a requirement with
// a scenario.
func specHasScenario(repo string) bool {
	found := false
	_ = filepath.WalkDir(filepath.Join(repo, "openspec", "specs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || found || d.IsDir() || d.Name() != "spec.md" {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), "#### Scenario:") {
			found = true
		}
		return nil
	})
	return found
}

// sectionHasEntries reports whether doc's "## name" section holds at least
// one bullet or table data row.
func sectionHasEntries(doc []byte, name string) bool {
	in := false
	for _, line := range strings.Split(string(doc), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "## ") {
			in = strings.EqualFold(strings.TrimSpace(t[3:]), name)
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
			return true
		}
		if strings.HasPrefix(t, "|") && !strings.Contains(t, "---") && !strings.Contains(strings.ToLower(t), "| name") {
			return true
		}
	}
	return false
}
