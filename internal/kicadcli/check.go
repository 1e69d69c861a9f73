package kicadcli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/kicad"
	"copperhead/internal/repofs"
)

// ERC runs the electrical rules check on the schematic at schPath (the root
// sheet of a hierarchy) and normalizes the report. Every severity is
// requested, exclusions included, so the report sorts them itself.
// kicad-cli's exit status reflects loading, not violations: a schematic with
// errors still succeeds here, and Report.Failed decides.
//
// Each violation is filed under the sheet its item is on (PlaceSheets), as
// check files it, from copperhead's own read of the schematic, done while
// kicad-cli runs: kicad-cli 9 files some sub-sheet violations under "/". A
// schematic copperhead cannot read keeps kicad-cli's sheets.
func (t *Tool) ERC(ctx context.Context, schPath string) (*Report, error) {
	sheets := make(chan func(uuid string) []string, 1)
	go func() { sheets <- t.sheetsDeclaring(schPath) }()
	r, err := t.check(ctx, ercJob(schPath), parseERC)
	if err != nil {
		return nil, err
	}
	if of := <-sheets; of != nil {
		r.PlaceSheets(of)
	}
	return r, nil
}

// sheetsDeclaring is kicad.Schematic.SheetsDeclaring of the schematic at
// schPath (read within its boundary), or nil when it does not load: ERC's
// own error, or kicad-cli's report as it is, says the rest.
func (t *Tool) sheetsDeclaring(schPath string) func(uuid string) []string {
	sch, err := kicad.LoadSchematicWithin(schPath, t.boundaryFor(schPath))
	if err != nil {
		return nil
	}
	return sch.SheetsDeclaring
}

func ercJob(schPath string) job {
	return job{
		args:  []string{"sch", "erc", "--format", "json", "--units", "mm", "--severity-all"},
		input: schPath,
		out:   "erc.json",
		whole: true,
	}
}

// DRC runs the design rules check on the board at pcbPath, including
// schematic parity against the schematic of the same name beside it, and
// normalizes the report. Without that schematic kicad-cli skips parity and
// says so on stderr, which lands in Report.Notes.
func (t *Tool) DRC(ctx context.Context, pcbPath string) (*Report, error) {
	c, err := t.PrepareDRC(pcbPath)
	if err != nil {
		return nil, err
	}
	return c.Run(ctx)
}

// PrepareDRC does DRC's work up to kicad-cli: the board's inputs checked
// and hashed, the cache looked up. A caller that has other work to do
// starts Run first and does it meanwhile, so kicad-cli (the slow part)
// starts as early as it can and nothing of ours competes with the hashing.
func (t *Tool) PrepareDRC(pcbPath string) (*PreparedCheck, error) {
	p, err := t.prepare(job{
		args:  []string{"pcb", "drc", "--format", "json", "--units", "mm", "--schematic-parity", "--severity-all"},
		input: pcbPath,
		out:   "drc.json",
		board: true,
	})
	if err != nil {
		return nil, err
	}
	p.early = earlyFor(func(data []byte) (*Report, error) { return parseDRC(data, pcbPath) })
	return &PreparedCheck{t: t, p: p, parse: parseDRC}, nil
}

// PreparedCheck is an ERC or DRC whose inputs are checked and hashed and
// whose cached result, if any, is loaded: Run is what is left.
type PreparedCheck struct {
	t     *Tool
	p     *prepared
	parse func(data []byte, input string) (*Report, error)
}

// Run runs kicad-cli (unless the result was cached) and parses its report.
func (c *PreparedCheck) Run(ctx context.Context) (*Report, error) {
	if !c.p.res.cached {
		if _, err := c.t.runPrepared(ctx, c.p); err != nil {
			return nil, err
		}
	}
	return parseReport(c.p.res, c.p.j.input, c.parse, c.p.early)
}

// check runs an ERC or DRC job and parses its JSON report with parse; the
// report carries what kicad-cli said on stderr and whether it came from the
// cache.
func (t *Tool) check(ctx context.Context, j job, parse func(data []byte, input string) (*Report, error)) (*Report, error) {
	e := earlyFor(func(data []byte) (*Report, error) { return parse(data, j.input) })
	res, err := t.produce(ctx, j, e)
	if err != nil {
		return nil, err
	}
	return parseReport(res, j.input, parse, e)
}

// parseReport parses a check's report, or takes its early parse (e, nil
// for none) of the same bytes.
func parseReport(res *result, input string, parse func(data []byte, input string) (*Report, error), e *early) (*Report, error) {
	r, err := parseOf(e, res.data, func(data []byte) (*Report, error) { return parse(data, input) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.label, err)
	}
	r.Notes, r.Cached = res.notes, res.cached
	return r, nil
}

// Netlist exports the connectivity of the schematic at schPath as KiCad sees
// it (kicadxml) and parses it with kicad.ParseNetlistXML.
func (t *Tool) Netlist(ctx context.Context, schPath string) (*kicad.Netlist, error) {
	e := earlyFor(kicad.ParseNetlistXML)
	res, err := t.produce(ctx, netlistJob(schPath), e)
	if err != nil {
		return nil, err
	}
	return parseNetlist(res, e)
}

func netlistJob(schPath string) job {
	return job{
		args:  []string{"sch", "export", "netlist", "--format", "kicadxml"},
		input: schPath,
		out:   "netlist.xml",
		whole: true,
	}
}

// parseNetlist parses an exported netlist, or takes its early parse (e,
// nil for none) of the same bytes.
func parseNetlist(res *result, e *early) (*kicad.Netlist, error) {
	nl, err := parseOf(e, res.data, kicad.ParseNetlistXML)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.label, err)
	}
	return nl, nil
}

// job is one kicad-cli command producing one output file.
type job struct {
	args  []string // the subcommand and its options, without -o and the input
	input string   // the file to check, as the caller named it
	out   string   // output file name inside the run folder
	board bool     // the board and its design rules are inputs too
	whole bool     // the result must cover every sheet: a missing sheet file is an error
}

// label names the job in errors: "kicad-cli sch erc hardware/x.kicad_sch".
func (j job) label() string {
	words := []string{"kicad-cli"}
	for _, a := range j.args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	return strings.Join(append(words, j.input), " ")
}

// result is a job's output file, from kicad-cli or the cache.
type result struct {
	label  string
	data   []byte
	notes  []string // kicad-cli's stderr lines
	cached bool
}

// produce runs a job, or reuses its cached result when no input changed;
// with e, its output is parsed early (early.go).
func (t *Tool) produce(ctx context.Context, j job, e *early) (*result, error) {
	p, err := t.prepare(j)
	if err != nil {
		return nil, err
	}
	p.early = e
	if p.res.cached {
		return p.res, nil
	}
	return t.runPrepared(ctx, p)
}

// prepared is a job whose inputs were checked and hashed: its argv, its
// cache key ("" when it must not be cached) and, when the cache had it, its
// result.
type prepared struct {
	j      job
	res    *result
	args   []string
	early  *early // its output's early parses (early.go); nil: parsed after the exit
	key    string
	inputs *inputSet
}

// prepare checks a job's input and collects its inputs, and looks its result
// up in the cache.
func (t *Tool) prepare(j job) (*prepared, error) {
	res := &result{label: j.label()}
	// Our own check names the file; kicad-cli would only say "Failed to load".
	if fi, err := os.Stat(j.input); err != nil {
		return nil, fmt.Errorf("%s: %w", res.label, err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, not a KiCad file", res.label)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: is not a regular file (%s), not a KiCad file", res.label, fi.Mode().Type())
	}
	abs, err := filepath.Abs(j.input)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.label, err)
	}
	p := &prepared{j: j, res: res, args: append(append(j.args[:len(j.args):len(j.args)], "-o", outPlaceholder), abs)}

	// The inputs are collected on every run, cached or not: a file outside
	// Boundary or one that is not a regular file is refused here, before
	// kicad-cli (or the hash) opens it, and a job that must cover the whole
	// design refuses a missing sheet, which kicad-cli would silently leave
	// out.
	inputs, inErr := t.inputsFor(j.input, j.board, t.boundaryFor(j.input))
	if errors.Is(inErr, repofs.ErrOutside) || errors.Is(inErr, repofs.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", res.label, inErr)
	}
	if inErr == nil && j.whole {
		if miss := inputs.missingSheets(); len(miss) > 0 {
			return nil, fmt.Errorf("%s: sheet file %s does not exist, and kicad-cli would export the rest of the design as if it were whole", res.label, strings.Join(miss, ", "))
		}
	}
	// A project we cannot fully read (an unreadable subfolder, say) is still
	// checked, just not cached: kicad-cli reports what matters.
	if t.CacheDir != "" && inErr == nil {
		p.key, p.inputs = t.cacheKey(p.args[:len(p.args)-1], j.input, inputs), inputs
		if e, ok := t.loadCached(p.key); ok {
			res.data, res.notes, res.cached = []byte(e.Data), notes(e.Stderr), true
		}
	}
	return p, nil
}

// runPrepared runs a prepared job's own kicad-cli call.
func (t *Tool) runPrepared(ctx context.Context, p *prepared) (*result, error) {
	out, data, err := t.executeFile(ctx, t.Timeout, p.res.label, p.j.out, p.early, p.args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, withOwnParse(err, p.j.input, t.boundaryFor(p.j.input))
	}
	t.finish(p, out.stderr, data)
	return p.res, nil
}

// finish records a job's output as its result and caches it when no input
// changed while kicad-cli ran.
//
// Within one check (SharingInputs) the entry is written in the background,
// beside the check's own work that follows (the parse and drift): encoding
// a netlist's entry cost 10-25 ms at the end of a schematic-only check.
// Flush waits for those writes.
func (t *Tool) finish(p *prepared, stderr, data []byte) {
	p.res.data, p.res.notes = data, notes(string(stderr))
	if p.key == "" || !p.inputs.unchanged() {
		return
	}
	store := func() { t.storeCached(p.key, cacheEntry{Stderr: string(stderr), Data: string(data)}) }
	if t.inputs == nil {
		store()
		return
	}
	t.inputs.stores.Go(store)
}

// Flush waits for the cache writes of the runs that share t's inputs
// (finish); a Tool that does not share writes before its run returns.
func (t *Tool) Flush() {
	if t.inputs != nil {
		t.inputs.stores.Wait()
	}
}

// boundaryFor is the folder input's design files must stay inside: Boundary
// for an input inside it, none for one outside it (copperhead's own scratch
// copy of an edited design, laid out in a temporary folder).
func (t *Tool) boundaryFor(input string) string {
	if t.Boundary == "" || !repofs.Within(t.Boundary, input) {
		return ""
	}
	return t.Boundary
}

// notes splits kicad-cli's stderr into its non-empty lines.
func notes(stderr string) []string {
	var lines []string
	for line := range strings.Lines(stderr) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// withOwnParse follows kicad-cli's failure on input with copperhead's own
// reading of the file. kicad-cli's "Failed to load schematic" names neither
// the file of a hierarchy at fault nor where; our parser does
// (file:line:col and a cause). When our parser reads the file, the message
// says so, and kicad-cli's words stay the only clue.
func withOwnParse(runErr error, input, boundary string) error {
	var err error
	switch filepath.Ext(input) {
	case ".kicad_sch":
		if boundary != "" {
			_, err = kicad.LoadSchematicWithin(input, boundary)
		} else {
			_, err = kicad.LoadSchematic(input)
		}
		if err != nil {
			return fmt.Errorf("%w; copperhead's parser: %s", runErr, strings.TrimPrefix(err.Error(), "load schematic: "))
		}
		return fmt.Errorf("%w; copperhead's parser reads %s and its sheets, so the cause is something only KiCad checks (a token it does not know, a file format newer than this kicad-cli): open it in KiCad to see", runErr, filepath.Base(input))
	case ".kicad_pcb":
		if _, err = kicad.LoadBoard(input); err != nil {
			return fmt.Errorf("%w; copperhead's parser: %s", runErr, strings.TrimPrefix(err.Error(), "load board: "))
		}
		return fmt.Errorf("%w; copperhead's parser reads %s, so the cause is something only KiCad checks (a token it does not know, a file format newer than this kicad-cli): open it in KiCad to see", runErr, filepath.Base(input))
	}
	return runErr
}
