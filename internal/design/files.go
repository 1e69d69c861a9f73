package design

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"copperhead/internal/repofs"
)

// Files is a set of repo files keyed by slash-separated repo-relative path
// ("docs/BOM.md", ".copperhead/config.json"). An absent key is a missing file.
type Files map[string][]byte

// ReadFiles reads what design's checks and init need from a repo: every *.md
// directly in the docs folder, and .copperhead/config.json, constraints.json
// and README.md when present. Missing files and a missing docs folder are not
// errors; unreadable ones are, and so is a docs folder or file that leads
// outside the repository (a symbolic link) or is not a regular file
// (repofs.ErrOutside, repofs.ErrNotRegular).
func ReadFiles(repoRoot string, cfg Config) (Files, error) {
	files := Files{}
	docs := cfg.DocsDir()
	dir, err := repofs.ResolveDir(repoRoot, filepath.Join(repoRoot, filepath.FromSlash(docs)))
	if err != nil {
		return nil, readErr(docs, repofs.Renamed(err, docs))
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", docs, err)
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(path.Ext(e.Name()), ".md") {
			paths = append(paths, path.Join(docs, e.Name()))
		}
	}
	paths = append(paths, ConfigPath, ConstraintsPath, ReadmePath)
	for _, p := range paths {
		data, err := ReadRepoFile(repoRoot, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, readErr(p, err)
		}
		files[p] = data
	}
	return files, nil
}

// ReadRepoFile reads the repository file at the slash-separated path rel,
// through repofs: a file that leads outside repoRoot (a symbolic link, "..")
// or is not a regular file is refused, naming rel ("docs/BOM.md is outside
// the repository (it resolves to /elsewhere/BOM.md)"); a missing one wraps
// fs.ErrNotExist.
func ReadRepoFile(repoRoot, rel string) ([]byte, error) {
	data, err := repofs.ReadFile(repoRoot, filepath.Join(repoRoot, filepath.FromSlash(rel)))
	return data, repofs.Renamed(err, rel)
}

// readErr words a failed read of rel: a containment refusal already names
// the file ("docs/BOM.md is outside the repository"), anything else gets
// "read docs/BOM.md: ".
func readErr(rel string, err error) error {
	var re *repofs.Error
	if errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("read %s: %w", rel, err)
}

// InitPlan is what `copperhead init` would do to a repo. The CLI refuses when
// HandEdited is non-empty and --force is not given (listing HandEdited);
// otherwise it writes every entry of Writes atomically.
type InitPlan struct {
	Writes     Files    // files to write: new or changed generated docs, absent append-only docs, README.md, config.json
	HandEdited []string // generated docs on disk that init did not write as they are now; they are in Writes
	Kept       []string // append-only docs already present, left alone even with --force
	Unchanged  []string // files that already say what init would write (formatting aside)
	Config     Config   // the config init writes: p.Config with "generated" recomputed
}

// PlanInit compares what init would generate for p with the files on disk.
// A generated doc is rewritten freely when it is missing, or when its content
// hash still equals config.json "generated" (nobody edited it since init); a
// doc whose content already equals the new output is left alone, keeping a
// human's formatting; anything else is hand-edited. DECISIONS.md and
// CHANGELOG.md are created once and never rewritten. .copperhead/README.md is
// generated documentation, always rewritten.
func PlanInit(p Project, onDisk Files) InitPlan {
	plan := InitPlan{Writes: Files{}, Config: p.Config}
	plan.Config.Generated = map[string]string{}
	gen := GenerateDocs(p)
	for _, name := range GeneratedDocs {
		docPath := p.Config.DocPath(name)
		next := gen[docPath]
		nextHash := ContentHash(next)
		plan.Config.Generated[docPath] = nextHash
		old, exists := onDisk[docPath]
		switch {
		case !exists:
			plan.Writes[docPath] = next
		case ContentHash(old) == nextHash:
			plan.Unchanged = append(plan.Unchanged, docPath)
		default:
			plan.Writes[docPath] = next
			if handEdited(docPath, old, p.Config) {
				plan.HandEdited = append(plan.HandEdited, docPath)
			}
		}
	}
	for _, name := range AppendOnlyDocs {
		docPath := p.Config.DocPath(name)
		if _, exists := onDisk[docPath]; exists {
			plan.Kept = append(plan.Kept, docPath)
			continue
		}
		plan.Writes[docPath] = gen[docPath]
	}
	own := Files{ReadmePath: GenerateReadme(), ConfigPath: plan.Config.Marshal()}
	for name, data := range own {
		if bytes.Equal(onDisk[name], data) {
			plan.Unchanged = append(plan.Unchanged, name)
			continue
		}
		plan.Writes[name] = data
	}
	slices.Sort(plan.HandEdited)
	slices.Sort(plan.Kept)
	slices.Sort(plan.Unchanged)
	return plan
}

// HandEdited lists the generated docs on disk whose content is not what init
// last wrote: no hash recorded in config.json "generated" (the doc predates
// init), or a hash that differs from ContentHash of the file now. Missing docs
// are not listed. Sorted.
func HandEdited(onDisk Files, cfg Config) []string {
	var out []string
	for _, name := range GeneratedDocs {
		docPath := cfg.DocPath(name)
		if old, exists := onDisk[docPath]; exists && handEdited(docPath, old, cfg) {
			out = append(out, docPath)
		}
	}
	slices.Sort(out)
	return out
}

func handEdited(docPath string, content []byte, cfg Config) bool {
	recorded := cfg.Generated[docPath]
	return recorded == "" || recorded != ContentHash(content)
}
