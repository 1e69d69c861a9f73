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

	"copperhead/internal/config"
	"copperhead/internal/repofs"
)

// Files is a set of repo files keyed by slash-separated repo-relative path
// (docs/BOM.md, config.ConfigPath). An absent key is a missing file.
type Files map[string][]byte

// ReadFiles reads what design's checks and init need from a repo: every *.md
// directly in the docs folder, and .copperhead/config.json, constraints.json
// and README.md when present. Missing files and a missing docs folder are not
// errors; unreadable ones are, and so is a docs folder or file that leads
// outside the repository (a symbolic link) or is not a regular file
// (repofs.ErrOutside, repofs.ErrNotRegular).
func ReadFiles(repoRoot string, cfg config.Config) (Files, error) {
	files := Files{}
	docs := cfg.DocsDir()
	dir, err := repofs.ResolveDir(repoRoot, filepath.Join(repoRoot, filepath.FromSlash(docs)))
	if err != nil {
		return nil, config.ReadError(docs, repofs.Renamed(err, docs))
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
	paths = append(paths, config.ConfigPath, config.ConstraintsPath, config.ReadmePath)
	for _, p := range paths {
		data, err := config.ReadRepoFile(repoRoot, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, config.ReadError(p, err)
		}
		files[p] = data
	}
	return files, nil
}

// InitPlan is what `copperhead init` would do to a repo. The CLI refuses when
// HandEdited is non-empty and --force is not given (listing HandEdited);
// otherwise it writes every entry of Writes atomically.
type InitPlan struct {
	Writes     Files         // files to write: new or changed generated docs, absent append-only docs, README.md, config.json
	HandEdited []string      // generated docs on disk that init did not write as they are now; they are in Writes
	Kept       []string      // append-only docs already present, left alone even with --force
	Unchanged  []string      // files that already say what init would write (formatting aside)
	Config     config.Config // the config init writes: p.Config with "generated" recomputed
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
		old, exists := onDisk[docPath]
		if exists && name == LayoutDoc {
			// The layout engine's assessment survives a regeneration.
			next = keepSection(next, old, DraftQualityHeading)
		}
		nextHash := docHash(name, next)
		plan.Config.Generated[docPath] = nextHash
		switch {
		case !exists:
			plan.Writes[docPath] = next
		case docHash(name, old) == nextHash:
			plan.Unchanged = append(plan.Unchanged, docPath)
		default:
			plan.Writes[docPath] = next
			if handEdited(name, docPath, old, p.Config) {
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
	own := Files{config.ReadmePath: GenerateReadme(), config.ConfigPath: plan.Config.Marshal()}
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
func HandEdited(onDisk Files, cfg config.Config) []string {
	var out []string
	for _, name := range GeneratedDocs {
		docPath := cfg.DocPath(name)
		if old, exists := onDisk[docPath]; exists && handEdited(name, docPath, old, cfg) {
			out = append(out, docPath)
		}
	}
	slices.Sort(out)
	return out
}

// handEdited reports whether a generated doc's content is not what init
// last recorded (docHash: LAYOUT.md's Draft quality section aside).
func handEdited(name, docPath string, content []byte, cfg config.Config) bool {
	recorded := cfg.Generated[docPath]
	return recorded == "" || recorded != docHash(name, content)
}

// docHash is the hash init records in config.json "generated" for a
// generated doc: its ContentHash, except that LAYOUT.md's ## Draft quality
// section is hashed as init writes it, whatever it says now. The layout
// engine (draft layout, create) owns that section and rewrites it after every
// draft, so a change there is never a hand edit; and since init's own
// section is the same for every project, the hash of a doc init just wrote
// is its plain ContentHash (hashes recorded before this rule still match).
func docHash(name string, content []byte) string {
	if name == LayoutDoc {
		content = keepSection(content, GenerateLayout("", config.DefaultConfig()), DraftQualityHeading)
	}
	return ContentHash(content)
}

// sectionLines finds the "## title" section of md as a line range [start,
// end): from its heading to the next heading of level 1 or 2 (deeper
// headings belong to it), the bounds the layout engine's ReplaceSection
// uses. start is -1 when md has no such section.
func sectionLines(lines []string, title string) (start, end int) {
	start, end = -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 {
			if h, ok := strings.CutPrefix(t, "## "); ok && strings.TrimSpace(strings.TrimRight(h, "# ")) == title {
				start = i
			}
			continue
		}
		if strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "## ") {
			end = i
			break
		}
	}
	return start, end
}

func mdLines(md []byte) []string {
	var out []string
	for l := range strings.Lines(string(md)) {
		out = append(out, l)
	}
	return out
}

// keepSection is next with its "## title" section replaced by old's, when
// both have one; otherwise next unchanged.
func keepSection(next, old []byte, title string) []byte {
	ol := mdLines(old)
	oStart, oEnd := sectionLines(ol, title)
	nl := mdLines(next)
	ns, ne := sectionLines(nl, title)
	if oStart < 0 || ns < 0 {
		return next
	}
	kept := slices.Clone(ol[oStart:oEnd])
	if ne < len(nl) {
		// Keep a blank line before the heading that follows.
		if last := kept[len(kept)-1]; !strings.HasSuffix(last, "\n") {
			kept[len(kept)-1] = last + "\n"
		}
		if strings.TrimSpace(kept[len(kept)-1]) != "" {
			kept = append(kept, "\n")
		}
	}
	return []byte(strings.Join(slices.Concat(nl[:ns], kept, nl[ne:]), ""))
}
