package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
)

// KiCad is what the engine asks kicad-cli: the netlist export and DRC.
// *kicadcli.Tool satisfies it.
type KiCad interface {
	Netlist(ctx context.Context, schPath string) (*kicad.Netlist, error)
	DRC(ctx context.Context, pcbPath string) (*kicadcli.Report, error)
}

// Options says what to draft and where.
type Options struct {
	Schematic string // the root .kicad_sch
	Board     string // the .kicad_pcb to write; beside the schematic with its name for DRC parity
	// LayoutDoc is LAYOUT.md: the intent is read from it and its Draft
	// quality section rewritten. "" drafts without intent and writes no doc.
	LayoutDoc string
	// Force overwrites a board that is not an earlier draft (any existing
	// file without DraftMarker in its title block).
	Force bool
	// Display renders a path for the report and messages (repo-relative,
	// say); nil shows paths as given.
	Display func(path string) string
	// MarkDraft sets DRC's unconnected_items severity to warning in the
	// project's .kicad_pro, so `check` passes a draft whose unrouted nets are
	// listed for a human, and adds restoring it to the redo list. create
	// sets it; a person running the engine decides for themselves.
	MarkDraft bool
}

func (o Options) show(p string) string {
	if o.Display == nil || p == "" {
		return p
	}
	return o.Display(p)
}

// ErrNotDraft is returned when the board exists and was not drafted by
// this engine (no DraftMarker in its title block): overwriting it could lose somebody's work.
var ErrNotDraft = errors.New("copperhead did not draft this board")

// maxRepairs bounds the DRC rounds: each round unroutes every net whose
// tracks DRC faulted, so two rounds normally suffice; the last round routes
// nothing at all.
const maxRepairs = 3

// Report is what a draft did, for the CLI and the Draft quality section.
type Report struct {
	Board     string        `json:"board"`
	LayoutDoc string        `json:"layout_doc,omitempty"`
	Outline   Outline       `json:"outline"`
	Parts     []PlacedPart  `json:"parts"`
	Rules     []AppliedRule `json:"rules"`
	Keepouts  []KeepoutNote `json:"keepouts"`
	Routed    []string      `json:"routed_nets"`
	Partial   []PartialNet  `json:"partly_routed_nets"`
	Unrouted  []string      `json:"unrouted_nets"`
	Tracks    int           `json:"tracks"`
	DRC       DRCSummary    `json:"drc"`
	Fine      []string      `json:"fine"`
	Redo      []string      `json:"redo"`
	// Gate is empty when the stage gate passes: DRC shows nothing but
	// unconnected items and LAYOUT.md holds the Draft quality section.
	Gate []string `json:"gate_problems"`
}

// OK reports whether the layout-draft gate passed.
func (r *Report) OK() bool { return len(r.Gate) == 0 }

// Outline is the board outline and where its size came from.
type Outline struct {
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
	Stated   bool    `json:"stated"` // LAYOUT.md states it; else computed from footprint area
	Source   string  `json:"source"`
}

// PlacedPart is one footprint's position (page coordinates, as KiCad
// shows them) and the rule that put it there.
type PlacedPart struct {
	Refdes    string  `json:"refdes"`
	Footprint string  `json:"footprint"`
	X         float64 `json:"x_mm"`
	Y         float64 `json:"y_mm"`
	Rotation  float64 `json:"rotation_deg"`
	Role      string  `json:"role"`
	Note      string  `json:"note,omitempty"`
}

// AppliedRule is one placement rule as applied to one part.
type AppliedRule struct {
	Rule   string `json:"rule"`
	Refdes string `json:"refdes"`
	Detail string `json:"detail"`
	Met    bool   `json:"met"`
}

// PartialNet is a net with some of its connections routed.
type PartialNet struct {
	Net         string `json:"net"`
	Routed      int    `json:"routed"`
	Connections int    `json:"connections"`
}

// DRCSummary is the final DRC of the drafted board.
type DRCSummary struct {
	Violations  int      `json:"violations"`
	Unconnected int      `json:"unconnected"`
	Parity      int      `json:"parity"`
	Environment int      `json:"environment"`
	Details     []string `json:"details"` // "type: description" of each violation and parity issue
	Unrouted    []string `json:"unrouted_after_drc,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// Draft drafts the layout: it reads the schematic, kicad-cli's netlist, the
// footprints and LAYOUT.md, writes the board, runs DRC (unrouting any net
// whose tracks DRC faults, and writing again), and rewrites LAYOUT.md's
// Draft quality section. The report's Gate says whether the stage gate
// passed; an error means no usable board was written.
func Draft(ctx context.Context, kc KiCad, o Options) (*Report, error) {
	if err := checkOverwrite(o); err != nil {
		return nil, err
	}
	in, err := loadInput(ctx, kc, o)
	if err != nil {
		return nil, err
	}
	var res *draftResult
	var drc *kicadcli.Report
	for round := 0; ; round++ {
		if res, err = build(in); err != nil {
			return nil, err
		}
		if err := atomicfile.Write(o.Board, res.board, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", o.show(o.Board), err)
		}
		if drc, err = kc.DRC(ctx, o.Board); err != nil {
			return nil, fmt.Errorf("check the drafted board: %w", err)
		}
		faulted := faultedNets(drc, res)
		if len(faulted) == 0 || round == maxRepairs-1 {
			break
		}
		if in.skip == nil {
			in.skip = map[string]string{}
		}
		for net, why := range faulted {
			in.skip[net] = why
		}
		if round == maxRepairs-2 {
			// Last round: route nothing, so what remains is placement's.
			for _, r := range res.routes {
				if _, ok := in.skip[r.Net]; !ok {
					in.skip[r.Net] = "unrouted after DRC faulted other tracks twice"
				}
			}
		}
	}
	rep := newReport(in, res, drc, o)
	if o.MarkDraft {
		pro := strings.TrimSuffix(o.Board, ".kicad_pcb") + ".kicad_pro"
		if err := markDraftSeverity(pro); err != nil {
			return nil, err
		}
		rep.Redo = append(rep.Redo, fmt.Sprintf("`%s` reports unrouted nets as DRC warnings while the board is a draft: set `board.design_settings.rule_severities.unconnected_items` back to `error` once it is routed, before ordering boards", o.show(pro)))
	}
	if o.LayoutDoc != "" {
		if err := writeDraftQuality(o.LayoutDoc, in.project, rep); err != nil {
			return nil, err
		}
		md, err := os.ReadFile(o.LayoutDoc)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", o.show(o.LayoutDoc), err)
		}
		rep.Gate = gateProblems(drc, md)
	} else {
		rep.Gate = gateProblems(drc, nil)
	}
	return rep, nil
}

// Gate checks the layout-draft stage from repository content alone: the
// board's DRC shows no violations other than unconnected items (parity
// included), and LAYOUT.md holds an assessed Draft quality section. It
// returns the problems; none means the gate passes.
func Gate(ctx context.Context, kc KiCad, board, layoutDoc string) ([]string, error) {
	drc, err := kc.DRC(ctx, board)
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	md, err := os.ReadFile(layoutDoc)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("gate: %w", err)
	}
	return gateProblems(drc, md), nil
}

// gateProblems is the one definition of the gate, shared by Draft and Gate.
// A nil md means no LAYOUT.md.
func gateProblems(drc *kicadcli.Report, md []byte) []string {
	var out []string
	if n := len(drc.Violations); n > 0 {
		out = append(out, fmt.Sprintf("DRC reports %d violation(s) other than unconnected items", n))
	}
	if n := len(drc.Parity); n > 0 {
		out = append(out, fmt.Sprintf("DRC reports %d schematic parity issue(s)", n))
	}
	if !HasDraftQuality(md) {
		out = append(out, "LAYOUT.md has no assessed ## "+DraftQualityHeading+" section")
	}
	return out
}

// checkOverwrite refuses to replace any board this engine did not draft:
// one whose title block lacks DraftMarker, whatever else it holds (a hand
// layout, KiCad 5 (module ...) syntax, an empty file, random bytes).
func checkOverwrite(o Options) error {
	data, err := os.ReadFile(o.Board)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", o.show(o.Board), err)
	}
	if o.Force {
		return nil
	}
	if why := notDraftReason(data); why != "" {
		return fmt.Errorf("%s: %w: %s", o.show(o.Board), ErrNotDraft, why)
	}
	return nil
}

// IsDraft reports whether board bytes are a board this engine drafted: a
// kicad_pcb whose title block carries DraftMarker in a comment.
func IsDraft(data []byte) bool { return notDraftReason(data) == "" }

// notDraftReason says why data is not a copperhead draft, or "" when it is.
func notDraftReason(data []byte) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return "the file is empty"
	}
	root, err := sexpr.Parse("board", data)
	if err != nil || root.Head() != "kicad_pcb" {
		return "the file is not a KiCad board"
	}
	for c := range root.Child("title_block").All("comment") {
		if strings.HasPrefix(c.Arg(1), DraftMarker) {
			return ""
		}
	}
	n := 0
	for range root.All("footprint") {
		n++
	}
	for range root.All("module") {
		n++
	}
	switch {
	case n == 1:
		return "it holds a layout (1 footprint)"
	case n > 1:
		return fmt.Sprintf("it holds a layout (%d footprints)", n)
	}
	return "its title block has no copperhead draft mark"
}

// loadInput reads everything build needs.
func loadInput(ctx context.Context, kc KiCad, o Options) (input, error) {
	in := input{project: strings.TrimSuffix(filepath.Base(o.Schematic), ".kicad_sch")}
	sch, err := kicad.LoadSchematic(o.Schematic)
	if err != nil {
		return in, err
	}
	in.sch = sch
	if in.netlist, err = kc.Netlist(ctx, o.Schematic); err != nil {
		return in, err
	}
	if in.symbolPaths, err = symbolPaths(sch); err != nil {
		return in, err
	}
	dir := filepath.Dir(o.Schematic)
	in.libs = FindLibraries(dir)
	if in.rules, err = readDesignRules(filepath.Join(dir, in.project+".kicad_pro")); err != nil {
		return in, err
	}
	if o.LayoutDoc != "" {
		md, err := os.ReadFile(o.LayoutDoc)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return in, fmt.Errorf("read %s: %w", o.show(o.LayoutDoc), err)
		}
		in.intent = ParseIntent(md)
	}
	return in, nil
}

// trackItemRE reads the net from a DRC item describing a track:
// "Track [GND] on F.Cu, length 3.1750 mm".
var trackItemRE = regexp.MustCompile(`^(?:Track|Via) \[(.*)\] on `)

// faultedNets are the routed nets whose tracks DRC reports in a violation,
// with the violation's type. A track whose net cannot be read faults every
// routed net: the draft must never keep a track DRC rejects.
func faultedNets(drc *kicadcli.Report, res *draftResult) map[string]string {
	routed := map[string]bool{}
	for _, r := range res.routes {
		if r.Routed > 0 {
			routed[r.Net] = true
		}
	}
	out := map[string]string{}
	for _, v := range drc.Violations {
		for _, it := range v.Items {
			if !strings.HasPrefix(it.Description, "Track ") && !strings.HasPrefix(it.Description, "Via ") {
				continue
			}
			m := trackItemRE.FindStringSubmatch(it.Description)
			if m != nil && routed[m[1]] {
				out[m[1]] = "DRC " + v.Type
				continue
			}
			for n := range routed {
				out[n] = "DRC " + v.Type + " on a track"
			}
		}
	}
	return out
}

// newReport gathers the facts of a draft.
func newReport(in input, res *draftResult, drc *kicadcli.Report, o Options) *Report {
	rep := &Report{
		Board: o.show(o.Board), LayoutDoc: o.show(o.LayoutDoc),
		Outline:  Outline{WidthMM: res.w, HeightMM: res.h, Stated: res.stated},
		Parts:    []PlacedPart{},
		Rules:    []AppliedRule{},
		Keepouts: append([]KeepoutNote{}, res.keepouts...),
		Routed:   []string{}, Partial: []PartialNet{}, Unrouted: []string{},
		Tracks: len(res.tracks),
	}
	if res.stated {
		rep.Outline.Source = "LAYOUT.md: " + in.intent.Source
	} else {
		rep.Outline.Source = "computed from footprint area (LAYOUT.md states no board size)"
	}
	for _, p := range res.parts {
		x, y := abs(p.pos)
		rep.Parts = append(rep.Parts, PlacedPart{Refdes: p.Refdes, Footprint: p.FootprintID, X: round4(x), Y: round4(y),
			Rotation: p.rot, Role: p.role.String(), Note: p.note})
		switch p.role {
		case roleConnector:
			rep.Rules = append(rep.Rules, AppliedRule{Rule: "connector on a board edge", Refdes: p.Refdes, Detail: p.note, Met: p.edge >= 0})
		case roleAntenna:
			rep.Rules = append(rep.Rules, AppliedRule{Rule: "antenna end on a board edge, keepout honoured", Refdes: p.Refdes, Detail: p.note, Met: p.edge >= 0})
		case roleMounting:
			rep.Rules = append(rep.Rules, AppliedRule{Rule: "mounting hole in a corner", Refdes: p.Refdes, Detail: p.note, Met: true})
		case roleDecoupling, roleCrystal:
			rule := "decoupling next to its IC"
			if p.role == roleCrystal {
				rule = "crystal next to the MCU"
			}
			met := strings.HasPrefix(p.note, "next to")
			detail := p.note
			if p.anchor == nil {
				detail, met = "no IC shares its nets: placed by connectivity", false
			}
			rep.Rules = append(rep.Rules, AppliedRule{Rule: rule, Refdes: p.Refdes, Detail: detail, Met: met})
		}
	}
	// Net outcomes: every net with two or more pads is routed, partly
	// routed or unrouted.
	tried := map[string]netRoute{}
	for _, r := range res.routes {
		tried[r.Net] = r
	}
	padCount := map[string]int{}
	for _, p := range res.parts {
		for i := range p.fp.Pads {
			pad := &p.fp.Pads[i]
			if n := p.pins[pad.Number].Net; n != "" && pad.Number != "" && pad.copper() {
				padCount[n]++
			}
		}
	}
	for _, n := range res.nets {
		if padCount[n.Name] < 2 {
			continue
		}
		r, ok := tried[n.Name]
		switch {
		case ok && r.Routed == r.Connections:
			rep.Routed = append(rep.Routed, n.Name)
		case ok && r.Routed > 0:
			rep.Partial = append(rep.Partial, PartialNet{Net: n.Name, Routed: r.Routed, Connections: r.Connections})
		default:
			rep.Unrouted = append(rep.Unrouted, n.Name)
		}
	}
	rep.DRC = DRCSummary{
		Violations: len(drc.Violations), Unconnected: len(drc.Unconnected), Parity: len(drc.Parity),
		Environment: len(drc.Environment), Details: []string{}, Notes: drc.Notes,
	}
	for _, v := range slices.Concat(drc.Violations, drc.Parity) {
		rep.DRC.Details = append(rep.DRC.Details, v.Type+": "+kicadcli.OneLine(v.Description)+itemsText(v))
	}
	for _, n := range sortedKeys(in.skip) {
		rep.DRC.Unrouted = append(rep.DRC.Unrouted, n+" ("+in.skip[n]+")")
	}
	rep.Fine, rep.Redo = assess(rep, res, in.rules)
	return rep
}

func itemsText(v kicadcli.Violation) string {
	var ds []string
	for _, it := range v.Items {
		ds = append(ds, kicadcli.OneLine(it.Description))
	}
	if len(ds) == 0 {
		return ""
	}
	return " (" + strings.Join(ds, "; ") + ")"
}

// markDraftSeverity sets unconnected_items to warning in a .kicad_pro
// (created when missing), keeping every other setting.
func markDraftSeverity(pro string) error {
	doc := map[string]any{}
	data, err := os.ReadFile(pro)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w", pro, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: %w", pro, err)
	}
	obj := func(m map[string]any, k string) map[string]any {
		if v, ok := m[k].(map[string]any); ok {
			return v
		}
		v := map[string]any{}
		m[k] = v
		return v
	}
	obj(obj(obj(doc, "board"), "design_settings"), "rule_severities")["unconnected_items"] = "warning"
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(pro, append(out, '\n'), 0o644)
}
