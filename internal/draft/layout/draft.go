package layout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/fab"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/sexpr"
	"copperhead/internal/tempdir"
	"copperhead/internal/txn"
)

// KiCad is what the engine asks kicad-cli: the netlist export and DRC.
// *kicadcli.Tool satisfies it.
type KiCad interface {
	Netlist(ctx context.Context, schPath string) (*kicad.Netlist, error)
	DRC(ctx context.Context, pcbPath string) (*kicadcli.Report, error)
}

// ZoneFiller fills a board's zones with KiCad's filler and returns the
// board as KiCad saved it (*kicadcli.Tool.FillZones). A KiCad that is not
// one leaves the ground pour unfilled, and the report says so.
type ZoneFiller interface {
	FillZones(ctx context.Context, board string) ([]byte, error)
}

// fillPour fills the scratch board's ground pour with KiCad's zone filler,
// takes the filled polygons into the draft and rewrites the scratch copy,
// so DRC judges the pour's connections and the Gerbers carry it. Without a
// filler the pour stays unfilled (res.pourNote says why).
func fillPour(ctx context.Context, kc KiCad, in input, res *draftResult, board string) error {
	zf, ok := kc.(ZoneFiller)
	if !ok {
		res.pourNote = "no zone filler"
		return nil
	}
	data, err := zf.FillZones(ctx, board)
	if errors.Is(err, kicadcli.ErrNoZoneFiller) {
		res.pourNote = err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	root, err := sexpr.Parse("filled board", data)
	if err != nil {
		return fmt.Errorf("read the filled board: %w", err)
	}
	name := res.pourNet + " pour"
	var polys []sexpr.Node
	for z := range root.All("zone") {
		if z.Value1("name") != name {
			continue
		}
		for fp := range z.All("filled_polygon") {
			polys = append(polys, *fp)
		}
	}
	res.pourFill, res.pourNote = polys, ""
	if len(polys) == 0 {
		res.pourNote = "the zone filler left the pour empty"
	}
	res.board = emit(in, res, res.tracks)
	return os.WriteFile(board, res.board, 0o644)
}

// Options says what to draft and where.
type Options struct {
	Schematic string // the root .kicad_sch
	Board     string // the .kicad_pcb to write; beside the schematic with its name for DRC parity
	// LayoutDoc is LAYOUT.md: the intent is read from it and its Draft
	// quality section rewritten. "" drafts without intent and writes no doc.
	LayoutDoc string
	// LayoutSeed is the LAYOUT.md to start from when LayoutDoc does not
	// exist yet (the doc init would write, so a later init finds it as its
	// own); nil starts from a title line.
	LayoutSeed []byte
	// Force overwrites a board that is not an earlier draft (any existing
	// file without DraftMarker in its title block).
	Force bool
	// ProjectBoard is the project's existing board: a footprint no library
	// holds is taken from it when it has one placed. "" is Board (read
	// before it is replaced).
	ProjectBoard string
	// Display renders a path for the report and messages (repo-relative,
	// say); nil shows paths as given.
	Display func(path string) string
	// MarkDraft sets DRC's unconnected_items severity to warning in the
	// project's .kicad_pro, so `check` passes a draft whose unrouted nets are
	// listed for a human, and adds restoring it to the redo list. create
	// sets it; a person running the engine decides for themselves.
	MarkDraft bool
	// Repo is the repository the draft's files lie in: the board, the
	// .kicad_pro, LAYOUT.md and (with Record) .copperhead/config.json are
	// committed there through internal/txn in one journaled transaction,
	// after every byte is computed and DRC has run on a scratch copy. ""
	// is the schematic's folder.
	Repo string
	// Fab is the board house whose published rules the .kicad_pro gets and
	// the draft routes within (internal/fab; "" is fab.Default).
	Fab string
	// Record names the board in Repo's .copperhead/config.json ("board") in
	// the same transaction, so check runs DRC on it, outputs finds it and
	// init keeps it. A repository without a config.json yet gets none (init
	// writes it and records the board it finds); the report says so.
	Record bool
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
	// Fab is the board house (internal/fab) whose rules the .kicad_pro got;
	// BoardRules says them in one line.
	Fab        string        `json:"fab"`
	BoardRules string        `json:"board_rules"`
	Keepouts   []KeepoutNote `json:"keepouts"`
	// FromBoard are the footprints no library holds, taken from the
	// project's board.
	FromBoard []BoardFootprint `json:"footprints_from_board"`
	Routed    []string         `json:"routed_nets"`
	Partial   []PartialNet     `json:"partly_routed_nets"`
	Unrouted  []string         `json:"unrouted_nets"`
	Tracks    int              `json:"tracks"`
	Pour      Pour             `json:"pour"`
	Vias      int              `json:"vias"`
	// Connections are the pad-to-pad connections the routed nets' spanning
	// trees need; RoutedConnections of them are tracks. RoutedShare is
	// their ratio (1 when there is nothing to route).
	Connections       int     `json:"connections"`
	RoutedConnections int     `json:"routed_connections"`
	RoutedShare       float64 `json:"routed_share"`
	// Utilisation is the parts' own area (courtyards, pads, silkscreen) over
	// the board's area.
	Utilisation float64    `json:"utilisation"`
	DRC         DRCSummary `json:"drc"`
	Fine        []string   `json:"fine"`
	Redo        []string   `json:"redo"`
	// Gate is empty when the stage gate passes: DRC shows nothing but
	// unconnected items and LAYOUT.md holds the Draft quality section.
	Gate []string `json:"gate_problems"`
	// RecordedBoard is the repo-relative board Record wrote into
	// config.json; "" when the config already named it or nothing was
	// recorded (NotRecorded says why, when Record was asked for).
	RecordedBoard string `json:"recorded_board,omitempty"`
	NotRecorded   string `json:"board_not_recorded,omitempty"`
	// Written lists the files the draft's transaction wrote, as displayed.
	Written []string `json:"written"`
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

// Pour is the ground pour the draft wrote.
type Pour struct {
	Net      string `json:"net"` // "" for none
	Layer    string `json:"layer,omitempty"`
	Filled   bool   `json:"filled"`
	Unfilled string `json:"unfilled_because,omitempty"`
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
// footprints and LAYOUT.md, builds the board, runs DRC on it in a scratch
// copy of the project (unrouting any net whose tracks DRC faults, and
// building again), computes the .kicad_pro, LAYOUT.md's Draft quality
// section and (Record) config.json, and only then commits every file
// through internal/txn in one journaled transaction: a failure before the
// commit leaves every file as it was, a kill during it is rolled forward by
// the next command (txn.Recover). The report's Gate says whether the stage
// gate passed; an error means nothing was written.
func Draft(ctx context.Context, kc KiCad, o Options) (*Report, error) {
	rep, files, err := prepare(ctx, kc, o)
	if err != nil {
		return nil, err
	}
	rep.Written = []string{}
	repo := o.repo()
	for _, f := range files {
		// A new LAYOUT.md may need its docs folder; an empty folder is all
		// a failed commit can leave.
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return nil, fmt.Errorf("write %s: %w", o.show(f.Path), err)
		}
	}
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			return nil, err
		}
	}
	if err := txn.Commit(repo, files); err != nil {
		return nil, fmt.Errorf("write the draft: %w", err)
	}
	for _, f := range files {
		rep.Written = append(rep.Written, o.show(f.Path))
	}
	return rep, nil
}

// beforeCommit, when a test sets it, runs after every byte is computed and
// before the transaction: a failure there must leave every file as it was.
var beforeCommit func() error

// repo is Repo, else the deepest folder holding the schematic, the board
// and LAYOUT.md.
func (o Options) repo() string {
	if o.Repo != "" {
		return o.Repo
	}
	dir, _ := filepath.Abs(filepath.Dir(o.Schematic))
	for _, p := range []string{o.Board, o.LayoutDoc} {
		if p == "" {
			continue
		}
		p, _ = filepath.Abs(p)
		for {
			rel, err := filepath.Rel(dir, p)
			if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	return dir
}

// prepare computes the report and every file's new bytes, writing nothing
// but a scratch copy in the temporary folder.
func prepare(ctx context.Context, kc KiCad, o Options) (*Report, []txn.File, error) {
	if err := checkOverwrite(o); err != nil {
		return nil, nil, err
	}
	in, err := loadInput(ctx, kc, o)
	if err != nil {
		return nil, nil, err
	}
	scratch, err := tempdir.Make("layout")
	if err != nil {
		return nil, nil, fmt.Errorf("create a scratch copy: %w", err)
	}
	defer os.RemoveAll(scratch)
	board, err := layScratch(scratch, o)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(strings.TrimSuffix(board, ".kicad_pcb")+".kicad_pro", in.proData, 0o644); err != nil {
		return nil, nil, fmt.Errorf("write the scratch copy's project file: %w", err)
	}
	var res *draftResult
	var drc *kicadcli.Report
	for round := 0; ; round++ {
		if res, err = build(in); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(board, res.board, 0o644); err != nil {
			return nil, nil, fmt.Errorf("write the scratch copy of %s: %w", o.show(o.Board), err)
		}
		if res.pourNet != "" {
			if err := fillPour(ctx, kc, in, res, board); err != nil {
				return nil, nil, fmt.Errorf("fill the ground pour of %s: %w", o.show(o.Board), err)
			}
		}
		if drc, err = kc.DRC(ctx, board); err != nil {
			return nil, nil, fmt.Errorf("check the drafted board: %s", strings.ReplaceAll(err.Error(), board, o.show(o.Board)))
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
	for i, n := range drc.Notes {
		drc.Notes[i] = strings.ReplaceAll(n, scratch+string(filepath.Separator), "")
	}
	rep := newReport(in, res, drc, o)
	pro := strings.TrimSuffix(o.Board, ".kicad_pcb") + ".kicad_pro"
	files := []txn.File{{Path: o.Board, Data: res.board}, {Path: pro, Data: in.proData}}
	if o.MarkDraft {
		rep.Redo = append(rep.Redo, fmt.Sprintf("`%s` reports unrouted nets as DRC warnings while the board is a draft: set `board.design_settings.rule_severities.unconnected_items` back to `error` once it is routed, before ordering boards", o.show(pro)))
	}
	if o.Record {
		f, rel, why, err := RecordBoard(o.repo(), o.Board)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			files = append(files, *f)
		}
		rep.RecordedBoard, rep.NotRecorded = rel, why
	}
	if o.LayoutDoc != "" {
		md, err := draftQuality(o.LayoutDoc, in.project, o.LayoutSeed, rep)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, txn.File{Path: o.LayoutDoc, Data: md})
		rep.Gate = gateProblems(drc, md)
	} else {
		rep.Gate = gateProblems(drc, nil)
	}
	return rep, files, nil
}

// layScratch lays the project out in scratch for DRC: the schematic's
// project inputs (sheets, project file, library tables and libraries) at
// their places relative to the schematic's folder, and the .kicad_pro
// beside the board, so kicad-cli's DRC (schematic parity included) sees
// what it would see beside the real board. It returns where the board goes.
func layScratch(scratch string, o Options) (string, error) {
	schDir, err := filepath.Abs(filepath.Dir(o.Schematic))
	if err != nil {
		return "", err
	}
	inputs, err := kicadcli.ProjectInputs(o.Schematic)
	if err != nil {
		return "", err
	}
	board, err := filepath.Abs(o.Board)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(scratch, "elsewhere", filepath.Base(board))
	if rel, err := filepath.Rel(schDir, board); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		dst = filepath.Join(scratch, "project", rel)
	}
	pro := strings.TrimSuffix(board, ".kicad_pcb") + ".kicad_pro"
	copyIn := func(src, to string) error {
		data, err := os.ReadFile(src)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", o.show(src), err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	}
	for _, p := range inputs {
		if p == board {
			continue
		}
		rel, err := filepath.Rel(schDir, p)
		if err != nil {
			continue
		}
		if err := copyIn(p, filepath.Join(scratch, "project", rel)); err != nil {
			return "", err
		}
	}
	if err := copyIn(pro, strings.TrimSuffix(dst, ".kicad_pcb")+".kicad_pro"); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	return dst, nil
}

// RecordBoard returns config.json's new bytes naming board as the
// project's board ("board"), for the transaction that writes the board, and
// the repo-relative path it records. It returns no file when nothing needs
// to change (the config already names it), and no file with a reason when
// the board cannot be recorded: the repository has no config.json yet (init
// writes it, recording the board it finds beside the schematic) or the
// board lies outside the repository. A config.json that cannot be read or
// parsed is an error: the draft is not written.
func RecordBoard(repo, board string) (file *txn.File, rel, why string, err error) {
	repo, err = filepath.Abs(repo)
	if err != nil {
		return nil, "", "", err
	}
	abs, err := filepath.Abs(board)
	if err != nil {
		return nil, "", "", err
	}
	rel, err = filepath.Rel(repo, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, "", "the board is outside the repository", nil
	}
	rel = filepath.ToSlash(rel)
	cfg, found, err := config.LoadConfig(repo)
	if err != nil {
		return nil, "", "", fmt.Errorf("record the board: %w", err)
	}
	if !found {
		return nil, "", "no " + config.ConfigPath + " yet", nil
	}
	if cfg.Board == rel {
		return nil, "", "", nil
	}
	cfg.Board = rel
	return &txn.File{Path: filepath.Join(repo, filepath.FromSlash(config.ConfigPath)), Data: cfg.Marshal()}, rel, "", nil
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
	src := o.ProjectBoard
	if src == "" {
		src = o.Board
	}
	in.board = &boardSource{path: src, name: o.show(src)}
	if in.house, err = fab.Lookup(o.Fab); err != nil {
		return in, err
	}
	// The board's project file (beside the board, as KiCad and DRC read it)
	// with the house's rules; the router works within exactly what DRC
	// will check.
	var nets []netInfo
	for _, n := range in.netlist.Nets {
		nets = append(nets, netInfo{Name: n.Name, Nodes: n.Nodes})
	}
	kinds := classifyNets(nets, sch.PowerNets)
	var powerNets []string
	for _, n := range nets {
		if kinds.power[n.Name] {
			powerNets = append(powerNets, boardNetName(sch, n.Name))
		}
	}
	proPath := strings.TrimSuffix(o.Board, ".kicad_pcb") + ".kicad_pro"
	if _, err := os.Stat(proPath); errors.Is(err, fs.ErrNotExist) {
		// A new board's project starts from the schematic's.
		proPath = filepath.Join(dir, in.project+".kicad_pro")
	}
	if in.proData, err = projectFile(proPath, in.house, o.MarkDraft, powerNets); err != nil {
		return in, err
	}
	if in.rules, err = parseDesignRules(in.proData); err != nil {
		return in, fmt.Errorf("read design rules: %w", err)
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
		if v.Type == "copper_sliver" && len(v.Items) == 0 {
			// kicad-cli reports a sliver with neither item nor position:
			// the suspects are the nets whose tracks meet at an acute angle
			// on that layer (the wedge between them is the sliver).
			for _, n := range acuteNets(res, v.Description) {
				if routed[n] {
					out[n] = "DRC " + v.Type + " (tracks meeting at an acute angle)"
				}
			}
			continue
		}
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
		Outline:   Outline{WidthMM: res.w, HeightMM: res.h, Stated: res.stated},
		Parts:     []PlacedPart{},
		Rules:     []AppliedRule{},
		Keepouts:  append([]KeepoutNote{}, res.keepouts...),
		FromBoard: append([]BoardFootprint{}, res.fromBoard...),
		Routed:    []string{}, Partial: []PartialNet{}, Unrouted: []string{},
		Tracks: len(res.tracks), Vias: len(res.vias),
		Fab: in.house.Name, BoardRules: boardRulesText(in.house),
	}
	if res.pourNet != "" {
		rep.Pour = Pour{Net: res.pourNet, Layer: layerNames[1], Filled: len(res.pourFill) > 0, Unfilled: res.pourNote}
	}
	partArea := 0.0
	for _, p := range res.parts {
		o := p.outline(0)
		partArea += o.W() * o.H()
	}
	if res.w > 0 && res.h > 0 {
		rep.Utilisation = round4(partArea / (res.w * res.h))
	}
	for _, r := range res.routes {
		rep.Connections += r.Connections
		rep.RoutedConnections += r.Routed
	}
	// Nets DRC made the draft skip still count: their connections are unrouted.
	for _, n := range sortedKeys(in.skip) {
		rep.Connections += skippedConnections(res, n)
	}
	rep.RoutedShare = 1
	if rep.Connections > 0 {
		rep.RoutedShare = round4(float64(rep.RoutedConnections) / float64(rep.Connections))
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
		case roleDecoupling, roleCrystal, roleLoadCap:
			rule := "decoupling next to its IC"
			switch p.role {
			case roleCrystal:
				rule = "crystal next to the MCU"
			case roleLoadCap:
				rule = "load capacitor beside its crystal"
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

// skippedConnections is the number of connections a net left unrouted on
// purpose needs: the edges of its pads' spanning tree.
func skippedConnections(res *draftResult, net string) int {
	return len(spanningTree(res.padsByNet[net]))
}

// sliverAngle is the angle below which two tracks of one net that touch
// are taken for a copper sliver's cause.
const sliverAngle = 40.0

// acuteNets are the nets with two tracks on the layer named in desc
// ("Copper sliver (F.Cu)") that touch at an angle below sliverAngle.
func acuteNets(res *draftResult, desc string) []string {
	layer := -1
	for i, l := range layerNames {
		if strings.Contains(desc, "("+l+")") {
			layer = i
		}
	}
	hit := map[string]bool{}
	ts := res.tracks
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			a, b := ts[i], ts[j]
			if a.net != b.net || a.layer != b.layer || (layer >= 0 && a.layer != layer) || hit[a.net] {
				continue
			}
			if segSegDist(a.a, a.b, b.a, b.b) > (a.width+b.width)/2 {
				continue
			}
			if ang, ok := meetAngle(a, b); ok && ang < sliverAngle {
				hit[a.net] = true
			}
		}
	}
	return sortedKeys(hit)
}

// meetAngle is the angle of the wedge between two touching tracks: at a
// shared end, between the rays to their other ends; elsewhere (a crossing
// or an end on the other's side), between the lines. ok is false for a
// zero-length track.
func meetAngle(a, b track) (float64, bool) {
	ang := func(u, v Pt) (float64, bool) {
		lu, lv := math.Hypot(u.X, u.Y), math.Hypot(v.X, v.Y)
		if lu < eps || lv < eps {
			return 0, false
		}
		c := (u.X*v.X + u.Y*v.Y) / (lu * lv)
		return math.Acos(math.Max(-1, math.Min(1, c))) * 180 / math.Pi, true
	}
	for _, p := range []Pt{a.a, a.b} {
		for _, q := range []Pt{b.a, b.b} {
			if p.Dist(q) < eps {
				oa, ob := a.a, b.a
				if oa.Dist(p) < eps {
					oa = a.b
				}
				if ob.Dist(q) < eps {
					ob = b.b
				}
				return ang(oa.Sub(p), ob.Sub(q))
			}
		}
	}
	d, ok := ang(a.b.Sub(a.a), b.b.Sub(b.a))
	return math.Min(d, 180-d), ok
}
