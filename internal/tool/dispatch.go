package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"runtime/debug"
	"slices"
	"strings"

	"copperhead/internal/llm"
	"copperhead/internal/textfmt"
)

// ToolList is the tool list the model is shown this turn: every tool in
// order, except mutating ones while the run's change has not validated
// (invariant 1: the edit tools are absent, not merely discouraged). Each
// tool's Spec is built once, so the same session state yields the same bytes.
//
// A sync run (Session.Sync) never shows the tools that change KiCad files
// (SyncWithheld), validated or not.
func ToolList(s *Session, tools []Tool) []llm.Tool {
	out := make([]llm.Tool, 0, len(tools))
	for _, t := range tools {
		if t.Mutating() && !s.Validated {
			continue
		}
		if s.Sync && SyncWithheld(t.Spec().Name) {
			continue
		}
		out = append(out, t.Spec())
	}
	return out
}

// syncWithheld are the tools that change KiCad files: a sync run never has
// them (Session.Sync). edit_file and write_file stay, for the docs, but
// refuse KiCad files in a sync run (KiCadFileRefusal).
var syncWithheld = []string{
	"rename_net", "set_field", "swap_pins", "add_part", "remove_part",
	"connect_pin", "disconnect_pin", "no_connect_pin", "draft_schematic",
}

// SyncWithheld reports whether the tool named name changes KiCad files, so
// that a sync run withholds it.
func SyncWithheld(name string) bool { return slices.Contains(syncWithheld, name) }

// IsKiCadFile reports whether rel (slash-separated) is a file KiCad owns: a
// .kicad_* file (schematic, board, project, symbol or footprint library,
// rules) or a sym-lib-table / fp-lib-table.
func IsKiCadFile(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	return strings.HasPrefix(path.Ext(base), ".kicad_") || base == "sym-lib-table" || base == "fp-lib-table"
}

// KiCadFileRefusal is why tool may not write rel in this session ("" when
// it may): a sync run writes no KiCad file.
func (s *Session) KiCadFileRefusal(tool, rel string) string {
	if !s.Sync || !IsKiCadFile(rel) {
		return ""
	}
	return fmt.Sprintf("%s: refuses %s in a sync run: sync treats the KiCad files as the truth and never changes them; change the doc that disagrees with them instead", tool, rel)
}

// Dispatch runs one tool call and returns what the model gets back. Calls
// the model can correct are IsError results, never Go errors: an unknown
// tool, a mutating tool before validation (the second half of the spec gate,
// for a model that calls a tool it was not shown), arguments that are not a
// JSON object. After the tool runs, Dispatch runs the post-call hooks on the
// files it changed (hook). Result.Fatal is set when the run must end.
//
// Dispatch is not safe for concurrent use on one Session: the loop runs a
// turn's calls one after another, in the order the model gave them.
func Dispatch(ctx context.Context, s *Session, tools []Tool, call llm.ToolCall) (res Result) {
	s.EnsureLedger()
	var tool Tool
	for _, t := range tools {
		if t.Spec().Name == call.Name {
			tool = t
			break
		}
	}
	if tool == nil {
		var names []string
		for _, t := range ToolList(s, tools) {
			names = append(names, t.Name)
		}
		return Errorf("unknown tool %q; the tools available now are: %s", call.Name, strings.Join(names, ", "))
	}
	if s.Sync && SyncWithheld(call.Name) {
		return Errorf("%s is not available in a sync run: sync treats the KiCad files as the truth and never changes them; bring the docs, the registry or the generated files in line with the schematic and board instead (edit_file on the doc), or finish with outcome refuse if the KiCad file itself is wrong", call.Name)
	}
	if tool.Mutating() && !s.Validated {
		return Errorf("%s is locked until validate_change passes: write the proposal with propose_change, then call validate_change; the edit tools unlock when it validates", call.Name)
	}
	args := bytes.TrimSpace(call.Args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return Errorf("arguments for %s must be one JSON object matching its schema; got %s", call.Name, textfmt.ClipBytes(string(args), 200))
	}
	if err := ctx.Err(); err != nil {
		return Result{Text: "run cancelled: " + err.Error(), IsError: true, Fatal: err}
	}

	defer func() {
		if r := recover(); r != nil {
			err := fmt.Errorf("tool %s panicked: %v\n%s", call.Name, r, debug.Stack())
			res = Result{Text: "internal error in " + call.Name + " (a copperhead bug); the run stops", IsError: true, Fatal: err}
		}
	}()
	res, err := tool.Run(ctx, s, json.RawMessage(args))
	if err != nil {
		res.Text = strings.TrimSpace(res.Text + "\n" + call.Name + " failed: " + err.Error())
		res.IsError, res.Fatal = true, err
	}
	if err := ctx.Err(); err != nil && res.Fatal == nil {
		res.IsError, res.Fatal = true, err
	}
	if opened := hook(s, res.Changed); len(opened) > 0 {
		res.Text = strings.TrimRight(res.Text, "\n") + "\n\nLedger: opened " + strings.Join(opened, "; ") + "."
	}
	return res
}

// hook is the post-call hook (design D13): deterministic code, not the
// model, decides what a changed file obliges the run to do. For each changed
// file it records the first touch and opens
//
//   - .kicad_sch: ERC and drift, and counts a KiCad edit;
//   - .kicad_pcb: DRC and drift, and counts a KiCad edit;
//   - a doc (*.md directly in the docs folder): drift.
//
// It returns the obligations it newly opened, as phrases for the model.
func hook(s *Session, changed []string) []string {
	var opened []string
	open := func(kind ObligationKind, subject, reason string) {
		if s.Ledger.Open(kind, subject, reason) {
			opened = append(opened, fmt.Sprintf("%s for %s (%s closes it)", kind, subject, closer[kind]))
		}
	}
	for _, rel := range changed {
		if !slices.Contains(s.Touched, rel) {
			s.Touched = append(s.Touched, rel)
		}
		switch {
		case strings.HasSuffix(rel, ".kicad_sch"):
			s.KiCadEditSeq++
			s.SchematicEditSeq = s.KiCadEditSeq
			open(OblERC, rel, "schematic edited")
			open(OblDrift, rel, "schematic edited")
		case strings.HasSuffix(rel, ".kicad_pcb"):
			s.KiCadEditSeq++
			s.BoardEditSeq = s.KiCadEditSeq
			open(OblDRC, rel, "board edited")
			open(OblDrift, rel, "board edited")
		case isDoc(s, rel):
			open(OblDrift, rel, "design doc edited")
		}
	}
	return opened
}

// isDoc reports whether rel is a design doc: a Markdown file directly in the
// docs folder, which is what the drift check reads (design.ReadFiles).
func isDoc(s *Session, rel string) bool {
	return path.Dir(rel) == s.Config.DocsDir() && strings.EqualFold(path.Ext(rel), ".md")
}

// toolState is the tools' private bookkeeping inside a Session.
type toolState struct {
	// loadable remembers, per repo-relative KiCad file, whether content with
	// a given hash loaded (guard.go), so the edit guard probes a file before
	// an edit only the first time.
	loadable map[string]loadState
	// repairCounted is the KiCadEditSeq at which a failed ERC or DRC last
	// counted as a repair cycle: re-running a check without an edit in
	// between, or running the other check on the same edit, is not another
	// attempt at a fix.
	repairCounted int
}
