package agent

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"copperhead/internal/config"
	"copperhead/internal/datasheets"
	"copperhead/internal/repofs"
	"copperhead/internal/tool"
)

// The model-facing text of the loop lives in prompts/ as Markdown templates,
// reviewable as prose rather than buried in string literals.
//
//go:embed prompts/*.md
var promptFS embed.FS

var prompts = template.Must(template.New("prompts").Option("missingkey=error").ParseFS(promptFS, "prompts/*.md"))

// renderPrompt executes one template of prompts/ by file name.
func renderPrompt(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// mustPrompt renders a template whose data is fixed by this package: a
// failure is a bug in prompts/, caught by the tests.
func mustPrompt(name string, data any) string {
	s, err := renderPrompt(name, data)
	if err != nil {
		panic(err)
	}
	return s
}

// PromptInput is what the system prompt is built from.
type PromptInput struct {
	Repo            string // repository root, absolute
	Config          config.Config
	RunID           string
	MaxTurns        int
	MaxRepairCycles int
	// ResearchTools names the run's research tools; empty leaves the
	// prompt's research section out, so a run without research sees the
	// same prompt as before research existed.
	ResearchTools []string
}

// systemData fills prompts/system.md.
type systemData struct {
	RunID           string
	MaxTurns        int
	MaxRepairCycles int
	Budgets         []budgetLine
	ConstraintsPath string
	Constraints     string
	KiCadFiles      []string
	Docs            []promptDoc
	ResearchTools   []string
	SearchParts     bool // search_parts is among ResearchTools
	DatasheetsDir   string
}

type budgetLine struct{ Key, Value string }

// promptDoc is one design doc included whole, fenced with a fence longer than
// any backtick run inside it so a doc's own code blocks cannot close it.
type promptDoc struct {
	Path, Content, Fence string
}

// SystemPrompt builds the run's system prompt: the §4.3 rules as written, the
// workflow with its batching guidance, the budgets from config, the
// constraint registry, the KiCad file list and every doc in the docs folder
// whole (spec §4.1 step 1). It is built once per run and sent unchanged every
// turn, so the provider's prompt cache holds it across the run; the
// model sees later changes through its own tool results.
//
// Every list is sorted, so the same repository yields the same bytes.
func SystemPrompt(in PromptInput) (string, error) {
	sys, _, err := systemPrompt(in)
	return sys, err
}

// systemPrompt is SystemPrompt with its warnings: the files it left out
// because the tools' path gate refuses them (a symlink out of the
// repository, a dangling one, a file that may hold secrets), each a line
// naming the file. What enters the prompt passes the same gate as what a
// tool reads (AC-4.2), so no file reaches the model through the prompt
// that read_file would refuse.
func systemPrompt(in PromptInput) (string, []string, error) {
	d := systemData{
		RunID:           in.RunID,
		MaxTurns:        in.MaxTurns,
		MaxRepairCycles: in.MaxRepairCycles,
		ConstraintsPath: config.ConstraintsPath,
		Constraints:     "{}",
		ResearchTools:   in.ResearchTools,
		SearchParts:     slices.Contains(in.ResearchTools, "search_parts"),
		DatasheetsDir:   datasheets.DirName,
	}
	for _, k := range slices.Sorted(maps.Keys(in.Config.Budgets)) {
		d.Budgets = append(d.Budgets, budgetLine{k, strconv.FormatFloat(in.Config.Budgets[k], 'f', -1, 64)})
	}
	gate := &tool.Session{Repo: in.Repo}
	var warnings []string
	reg, err := readForPrompt(gate, config.ConstraintsPath)
	switch {
	case err == nil:
		if s := strings.TrimSpace(string(reg)); s != "" {
			d.Constraints = s
		}
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errGated):
		warnings = append(warnings, err.Error())
	default:
		return "", nil, fmt.Errorf("read %s: %w", config.ConstraintsPath, err)
	}
	if d.KiCadFiles, err = kicadFiles(in.Repo); err != nil {
		return "", nil, err
	}
	docs, skipped, err := designDocs(gate, in.Config.DocsDir())
	if err != nil {
		return "", nil, err
	}
	d.Docs = docs
	warnings = append(warnings, skipped...)
	sys, err := renderPrompt("system.md", d)
	return sys, warnings, err
}

// errGated marks a file the prompt leaves out because tool.Session.ResolvePath refuses it.
var errGated = errors.New("left out of the prompt")

// readForPrompt reads the repository file rel for the system prompt through
// tool.Session.ResolvePath, the gate every file tool uses. A missing file wraps
// fs.ErrNotExist; one the gate refuses, a dangling symlink or a
// non-regular file wraps errGated with a message naming rel.
func readForPrompt(s *tool.Session, rel string) ([]byte, error) {
	abs := filepath.Join(s.Repo, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s %w: it is a dangling symbolic link", rel, errGated)
		}
	}
	p, err := s.ResolvePath(rel)
	if err != nil {
		return nil, gated(rel, err)
	}
	data, err := repofs.ReadRegular(p.Abs)
	if errors.Is(err, repofs.ErrNotRegular) {
		return nil, fmt.Errorf("%s %w: it is not a regular file", rel, errGated)
	}
	return data, err
}

// kicadSuffixes are the KiCad source files the model is told about.
var kicadSuffixes = []string{".kicad_sch", ".kicad_pcb", ".kicad_pro", ".kicad_sym", ".kicad_mod"}

// skipDirs hold no design source: VCS data, dependencies, copperhead's own
// state, generated outputs.
var skipDirs = map[string]bool{".git": true, "node_modules": true, config.Dir: true, "outputs": true}

// kicadFiles lists the repository's KiCad files, repo-relative and sorted.
func kicadFiles(repo string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(repo, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != repo && skipDirs[e.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		for _, suf := range kicadSuffixes {
			if strings.HasSuffix(e.Name(), suf) {
				rel, _ := filepath.Rel(repo, p)
				out = append(out, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list KiCad files: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// gated words ResolvePath's refusal of rel as a prompt warning: "docs/x.md
// left out of the prompt: it is a symlink ... that points outside the
// repository; it is refused".
func gated(rel string, err error) error {
	why := strings.TrimPrefix(err.Error(), "path "+rel+" ")
	if strings.HasPrefix(why, "is ") {
		why = "it " + why
	}
	return fmt.Errorf("%s %w: %s", rel, errGated, why)
}

// designDocs reads every *.md directly in the docs folder, sorted by name,
// through the tools' path gate; skipped names each file the gate refused.
func designDocs(gate *tool.Session, docsDir string) (docs []promptDoc, skipped []string, err error) {
	dir := filepath.Join(gate.Repo, filepath.FromSlash(docsDir))
	if _, err := gate.ResolvePath(docsDir); err != nil {
		if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, []string{gated(docsDir, err).Error()}, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", docsDir, err)
	}
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		rel := path.Join(docsDir, e.Name())
		data, err := readForPrompt(gate, rel)
		switch {
		case errors.Is(err, errGated):
			skipped = append(skipped, err.Error())
			continue
		case errors.Is(err, fs.ErrNotExist): // removed meanwhile
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("read %s: %w", rel, err)
		}
		content := strings.TrimRight(string(data), "\n")
		docs = append(docs, promptDoc{Path: rel, Content: content, Fence: strings.Repeat("`", max(4, backtickRun(content)+1))})
	}
	return docs, skipped, nil
}

// backtickRun is the longest run of backticks in s.
func backtickRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
