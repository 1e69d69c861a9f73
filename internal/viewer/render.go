package viewer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"copperhead/internal/kicadcli"
	"copperhead/internal/tempdir"
)

// Exporter is the part of kicadcli.Tool the renderer uses: one SVG per
// schematic sheet, one of the board.
type Exporter interface {
	ExportSVG(ctx context.Context, input, outDir string) ([]string, error)
}

// Picture is one rendered sheet or the board. Key is what the page names it
// by: the server issued it, and a request for a key not in the render's own
// table is refused, so no request names a file.
type Picture struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	file  string
}

// Render is one generation of pictures of the design: every sheet and the
// board as they were when Hash (the design files' content) was read.
type Render struct {
	Gen      int       `json:"gen"`
	Hash     string    `json:"hash"`
	Pictures []Picture `json:"pictures"`
	Error    string    `json:"error,omitempty"` // why this generation has no (or fewer) pictures
	dir      string
}

// picture finds key in r.
func (r *Render) picture(key string) (Picture, bool) {
	if r == nil {
		return Picture{}, false
	}
	for _, p := range r.Pictures {
		if p.Key == key {
			return p, true
		}
	}
	return Picture{}, false
}

// renderer exports the design into numbered generation folders under its
// own temporary folder and keeps only the generations someone may still
// ask for: the current one and the "before" one.
type renderer struct {
	tool      Exporter
	schematic string // root .kicad_sch, absolute
	board     string // .kicad_pcb, absolute; "" when none
	dir       string // the renderer's temporary folder

	mu      sync.Mutex
	gen     int
	current *Render
	before  *Render
}

func newRenderer(tool Exporter, schematic, board string) (*renderer, error) {
	// Named for this process: a watch killed outright leaves a folder the
	// next command's tempdir.Prune removes.
	dir, err := tempdir.Make("watch")
	if err != nil {
		return nil, fmt.Errorf("render folder: %w", err)
	}
	return &renderer{tool: tool, schematic: schematic, board: board, dir: dir}, nil
}

// close removes every generation.
func (r *renderer) close() error { return os.RemoveAll(r.dir) }

// designHash is the content of the files a picture shows: every sheet of the
// project (as the kicad-cli cache lists them) and the board. A write that
// leaves them byte-identical (a tool touching a file, kicad-cli writing its
// project settings) renders nothing.
func (r *renderer) designHash() (string, error) {
	files, err := kicadcli.ProjectInputs(r.schematic)
	if err != nil {
		return "", fmt.Errorf("list %s: %w", filepath.Base(r.schematic), err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Ext(f) != ".kicad_sch" })
	if r.board != "" {
		files = append(files, r.board)
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00", f)
		fh, err := os.Open(f)
		if err != nil {
			fmt.Fprintf(h, "missing\x00")
			continue
		}
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("read %s: %w", f, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// refresh renders a new generation when the design changed since the
// current one (or when there is none) and reports whether it did. An export
// that fails still makes a generation, with the error and whatever was
// plotted, so the page says why the picture is missing.
func (r *renderer) refresh(ctx context.Context) (*Render, bool, error) {
	hash, err := r.designHash()
	if err != nil {
		return nil, false, err
	}
	r.mu.Lock()
	cur := r.current
	if cur != nil && cur.Hash == hash {
		r.mu.Unlock()
		return cur, false, nil
	}
	r.gen++
	gen := r.gen
	r.mu.Unlock()
	out := &Render{Gen: gen, Hash: hash, dir: filepath.Join(r.dir, strconv.Itoa(gen))}
	// The sheets and the board are two kicad-cli runs that share nothing:
	// side by side, a render takes about as long as the slower one.
	var (
		boardFiles []string
		boardErr   error
		wg         sync.WaitGroup
	)
	if r.board != "" {
		wg.Go(func() { boardFiles, boardErr = r.tool.ExportSVG(ctx, r.board, filepath.Join(out.dir, "board")) })
	}
	var problems []string
	files, err := r.tool.ExportSVG(ctx, r.schematic, filepath.Join(out.dir, "sch"))
	if err != nil {
		problems = append(problems, err.Error())
	}
	wg.Wait()
	stem := strings.TrimSuffix(filepath.Base(r.schematic), ".kicad_sch")
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".svg")
		label := "root sheet"
		if sub, ok := strings.CutPrefix(name, stem+"-"); ok {
			label = "sheet " + sub
		}
		out.Pictures = append(out.Pictures, Picture{Label: label, file: f})
	}
	// The root sheet first, the sub-sheets in kicad-cli's (sorted) order;
	// the keys follow that order, so sch-0 is always the root sheet.
	slices.SortStableFunc(out.Pictures, func(a, b Picture) int {
		return boolRank(a.Label != "root sheet") - boolRank(b.Label != "root sheet")
	})
	for i := range out.Pictures {
		out.Pictures[i].Key = "sch-" + strconv.Itoa(i)
	}
	if r.board != "" {
		switch {
		case boardErr != nil:
			problems = append(problems, boardErr.Error())
		case len(boardFiles) > 0:
			out.Pictures = append(out.Pictures, Picture{Key: "board", Label: "board", file: boardFiles[0]})
		}
	}
	if ctx.Err() != nil {
		os.RemoveAll(out.dir)
		return nil, false, ctx.Err()
	}
	out.Error = strings.Join(problems, "; ")
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.before == nil {
		// The first render is the "before" of changes made while watching,
		// until a run starts and takes its own.
		r.before = out
	}
	old := r.current
	r.current = out
	if old != nil && old != r.before {
		os.RemoveAll(old.dir)
	}
	return out, true, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// markBefore makes the current generation the "before" picture (a run is
// starting) and returns it.
func (r *renderer) markBefore() *Render {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current == nil {
		return r.before
	}
	if old := r.before; old != nil && old != r.current {
		os.RemoveAll(old.dir)
	}
	r.before = r.current
	return r.before
}

// state is the current and before generations.
func (r *renderer) state() (current, before *Render) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current, r.before
}

// svg is the picture key of generation gen, when gen is the current or
// the before generation.
func (r *renderer) svg(gen int, key string) ([]byte, bool, error) {
	r.mu.Lock()
	var p Picture
	ok := false
	for _, g := range []*Render{r.current, r.before} {
		if g != nil && g.Gen == gen {
			p, ok = g.picture(key)
			break
		}
	}
	r.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	data, err := os.ReadFile(p.file)
	if err != nil {
		// The generation was replaced between the lookup and the read.
		return nil, false, nil
	}
	return data, true, nil
}
