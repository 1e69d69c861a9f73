package draft

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/design"
)

// ErrWouldOverwrite refuses to replace a schematic that differs from the
// draft: drafting starts designs, it never silently discards hand edits.
var ErrWouldOverwrite = errors.New("would overwrite")

// Written is what WriteSchematic did.
type Written struct {
	Report
	Path      string `json:"path"`      // the sheet, absolute
	Unchanged bool   `json:"unchanged"` // the file already held exactly this draft
	Project   string `json:"project_file,omitempty"`
}

// WriteSchematic validates in and writes its sheet as dir/<project>.kicad_sch
// (project defaulting to dir's name), atomically, plus a minimal
// <project>.kicad_pro when the folder has none so KiCad opens it as a
// project. An existing sheet with other content is refused (ErrWouldOverwrite)
// unless force is set; one with the same bytes is left alone.
func WriteSchematic(in *Intent, name, dir string, force bool, opts Options) (*Written, error) {
	r, err := Validate(in, name, opts)
	if err != nil {
		return nil, err
	}
	project := in.Project
	if project == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		project = filepath.Base(abs)
	}
	out, rep, err := Schematic(r, project, opts)
	if err != nil {
		return nil, err
	}
	w := &Written{Report: *rep, Path: filepath.Join(dir, rep.File)}
	old, err := os.ReadFile(w.Path)
	switch {
	case err == nil && bytes.Equal(old, out):
		w.Unchanged = true
		return w, nil
	case err == nil && !force:
		return nil, fmt.Errorf("%w %s: it differs from the draft (hand edits?); pass --force to replace it", ErrWouldOverwrite, w.Path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", w.Path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	if err := atomicfile.Write(w.Path, out, 0o644); err != nil {
		return nil, err
	}
	pro := filepath.Join(dir, project+".kicad_pro")
	if _, err := os.Stat(pro); errors.Is(err, fs.ErrNotExist) {
		data := fmt.Sprintf("{\n  \"meta\": {\n    \"filename\": %q,\n    \"version\": 1\n  },\n  \"sheets\": [\n    [\n      %q,\n      \"Root\"\n    ]\n  ]\n}\n",
			project+".kicad_pro", uid(project, "sheet/root"))
		if err := atomicfile.Write(pro, []byte(data), 0o644); err != nil {
			return nil, err
		}
		w.Project = pro
	}
	return w, nil
}

// SheetDir is where a drafted sheet goes by default: the folder of the
// configured schematic, else <repo>/hardware.
func SheetDir(repo string, cfg config.Config) string {
	if cfg.Schematic != "" {
		return filepath.Join(repo, filepath.Dir(filepath.FromSlash(cfg.Schematic)))
	}
	return filepath.Join(repo, "hardware")
}

// BOMValues maps the refdes of the repo's BOM.md rows to their values, for
// Options.BOM; nil (no BOM check) when BOM.md is missing or has no rows.
func BOMValues(repo string, cfg config.Config) map[string]string {
	files, err := design.ReadFiles(repo, cfg)
	if err != nil {
		return nil
	}
	rows, err := design.ParseBOM(files[cfg.DocPath(design.BOMDoc)])
	if err != nil || len(rows) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.Refdes] = r.Value
	}
	return out
}
