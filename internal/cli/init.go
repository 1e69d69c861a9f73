package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicad"
	"copperhead/internal/repofs"
	"copperhead/internal/textfmt"
)

// InitResult is `init --json`.
type InitResult struct {
	Schematic string   `json:"schematic"`
	Board     string   `json:"board"`
	Docs      string   `json:"docs"`
	Written   []string `json:"written"`   // files created or rewritten
	Unchanged []string `json:"unchanged"` // files that already held what init would write
	Kept      []string `json:"kept"`      // append-only docs left as they are
	Hook      string   `json:"hook"`      // installed | present | skipped | foreign | no-git
}

// gitignoreEntries must be in .gitignore from the first commit: secrets and
// agent transcripts never enter history.
var gitignoreEntries = []string{".env", config.RunsDir}

// hookMarker identifies the pre-commit hook copperhead installs.
const hookMarker = "# installed by copperhead init"

// preCommitHook calls the installed CLI; it never copies check's logic, and
// warns rather than blocks when copperhead is not on PATH. It checks against
// HEAD (check --baseline HEAD), so a board with accepted errors can still be
// committed while a new violation blocks the commit.
const preCommitHook = `#!/bin/sh
` + hookMarker + `: keeps docs, schematic and constraints in step.
# Remove this file (or run 'copperhead init --no-hooks' in a new clone) to opt out.
# Findings already committed (accepted upstream DRC errors) do not block a
# commit: only what is new since HEAD does. The first commit has no HEAD.
if command -v copperhead >/dev/null 2>&1; then
	if git rev-parse --verify --quiet HEAD >/dev/null 2>&1; then
		exec copperhead check --plain --baseline HEAD
	fi
	exec copperhead check --plain
fi
echo "copperhead pre-commit: copperhead is not on PATH; the design check did not run" >&2
exit 0
`

func newInitCmd(a *app) *cobra.Command {
	var path string
	var force, noHooks bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Generate the design docs from the schematic (SPEC, BOM, PINOUT, SUBSYSTEMS, LAYOUT, ...)",
		Long: `init finds the KiCad project, reads its schematic and kicad-cli's netlist,
and writes:

  docs/SPEC.md SUBSYSTEMS.md LAYOUT.md BOM.md PINOUT.md DECISIONS.md CHANGELOG.md
  .copperhead/config.json and .copperhead/README.md (every config key explained)
  .gitignore entries for .env and .copperhead/runs/
  a git pre-commit hook running 'copperhead check --baseline HEAD' (unless --no-hooks)

The project is searched for in the repository, or at --path: a folder to
search, a .kicad_pro (its root schematic is the .kicad_sch of the same name
beside it) or the root .kicad_sch. One project whose folder encloses all the
others (library or test projects in sub-folders) is taken; several are
refused until --path chooses one. The choice is recorded in
.copperhead/config.json, which every later command follows.

Re-running changes nothing. A doc edited by hand since init wrote it is not
overwritten unless --force is given; DECISIONS.md and CHANGELOG.md are
append-only and never rewritten.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runInit(cmd.Context(), path, force, noHooks)
		},
	}
	cmd.Flags().StringVar(&path, "path", "", "the KiCad project to use: a `folder` of the repository to search (e.g. hardware/), a .kicad_pro or the root .kicad_sch")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite docs that were edited by hand")
	cmd.Flags().BoolVar(&noHooks, "no-hooks", false, "do not install the git pre-commit hook")
	return cmd
}

func (a *app) runInit(ctx context.Context, path string, force, noHooks bool) error {
	w, unlock, err := a.openLockedAt(ctx, path, true)
	if err != nil {
		return err
	}
	defer unlock()
	sch, err := w.schematic()
	if err != nil {
		return err
	}
	tool, err := findKiCad(ctx)
	if err != nil {
		return err
	}
	nl, err := w.netlist(ctx, tool)
	if err != nil {
		return err
	}
	cfg := w.cfg
	cfg.Schematic = w.proj.Rel(w.proj.Schematic)
	cfg.Board = w.proj.Rel(w.proj.Board)
	onDisk, err := design.ReadFiles(w.repo, cfg)
	if err != nil {
		return failf("%v", err)
	}
	plan := design.PlanInit(design.Project{Name: w.proj.Name, Schematic: sch, Netlist: nl, Config: cfg}, onDisk)
	if len(plan.HandEdited) > 0 && !force {
		return withHint(failf("init would overwrite %s edited by hand: %s", textfmt.Count(len(plan.HandEdited), "doc"), strings.Join(plan.HandEdited, ", ")),
			"keep your edits, or re-run with --force to regenerate them")
	}

	res := InitResult{Schematic: cfg.Schematic, Board: cfg.Board, Docs: cfg.DocsDir(), Unchanged: nonNil(plan.Unchanged), Kept: nonNil(plan.Kept), Written: []string{}}
	names := make([]string, 0, len(plan.Writes))
	for name := range plan.Writes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		// Written where the path really leads, and only inside the repository:
		// a docs/ link pointing elsewhere is refused, not written through.
		target, err := repofs.Resolve(w.repo, filepath.Join(w.repo, filepath.FromSlash(name)))
		if err != nil {
			return failf("write %v", repofs.Renamed(err, name))
		}
		if err := atomicfile.Write(target, plan.Writes[name], 0o644); err != nil {
			return failf("%v", w.relErr(err))
		}
		res.Written = append(res.Written, name)
	}
	changed, err := ensureGitignore(w.repo)
	if err != nil {
		return failf("%v", w.relErr(err))
	}
	if changed {
		res.Written = append(res.Written, ".gitignore")
	} else {
		res.Unchanged = append(res.Unchanged, ".gitignore")
	}
	res.Hook = "skipped"
	if !noHooks {
		if res.Hook, err = installHook(ctx, w.repo); err != nil {
			return failf("%v", w.relErr(err))
		}
	}

	if a.mode() == modeJSON {
		return writeJSON(a.io.Out, res)
	}
	out := a.io.Out
	fmt.Fprintf(out, "schematic %s", res.Schematic)
	if res.Board != "" {
		fmt.Fprintf(out, ", board %s", res.Board)
	}
	fmt.Fprintf(out, ": %s, %s\n", textfmt.Count(len(sch.Parts), "part"), textfmt.Count(countNamedNets(nl.Nets), "named net"))
	for _, f := range res.Written {
		fmt.Fprintf(out, "wrote %s\n", f)
	}
	for _, f := range res.Kept {
		fmt.Fprintf(out, "kept %s (append-only)\n", f)
	}
	switch res.Hook {
	case "installed":
		fmt.Fprintln(out, "installed the git pre-commit hook (runs 'copperhead check --baseline HEAD')")
	case "foreign":
		fmt.Fprintln(out, "left the existing git pre-commit hook alone; add 'copperhead check' to it yourself")
	case "no-git":
		fmt.Fprintln(out, "not a git repository: no pre-commit hook installed")
	}
	if len(res.Written) == 0 {
		fmt.Fprintf(out, "docs in %s are up to date; nothing changed\n", res.Docs)
	} else {
		fmt.Fprintf(out, "docs are in %s; run 'copperhead check' next\n", res.Docs)
	}
	return nil
}

func countNamedNets(nets []kicad.Net) int {
	n := 0
	for _, net := range nets {
		if !kicad.IsUnconnectedNet(net.Name) {
			n++
		}
	}
	return n
}

// ensureGitignore adds the entries .gitignore must hold, keeping every
// existing line; it reports whether the file changed.
func ensureGitignore(repo string) (bool, error) {
	p := filepath.Join(repo, ".gitignore")
	old, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read .gitignore: %w", err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	for _, e := range gitignoreEntries {
		// /.env and .copperhead/runs mean the same to git.
		if !have[e] && !have["/"+e] && !have[strings.TrimSuffix(e, "/")] {
			add = append(add, e)
		}
	}
	if len(add) == 0 {
		return false, nil
	}
	var b bytes.Buffer
	b.Write(old)
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		b.WriteByte('\n')
	}
	b.WriteString("# copperhead: secrets and agent run transcripts stay out of git\n")
	for _, e := range add {
		b.WriteString(e + "\n")
	}
	return true, atomicfile.Write(p, b.Bytes(), 0o644)
}

// installHook writes the pre-commit hook unless a foreign one is there.
func installHook(ctx context.Context, repo string) (string, error) {
	if !gitrepo.IsRepo(ctx, repo) {
		return "no-git", nil
	}
	dir, err := gitrepo.HooksDir(ctx, repo)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "pre-commit")
	old, err := os.ReadFile(p)
	switch {
	case err == nil && string(old) == preCommitHook:
		return "present", nil
	case err == nil && !strings.Contains(string(old), hookMarker):
		return "foreign", nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	if err := atomicfile.Write(p, []byte(preCommitHook), 0o755); err != nil {
		return "", err
	}
	// atomicfile keeps an existing file's mode; a hook must be executable.
	if err := os.Chmod(p, 0o755); err != nil {
		return "", fmt.Errorf("chmod %s: %w", p, err)
	}
	return "installed", nil
}
