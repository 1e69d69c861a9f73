package create

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/gitrepo"
	"copperhead/internal/openspec"
)

// ReportDir holds REPORT.md and report.json, beside the run records.
const ReportDir = config.Dir + "/runs"

// writeReport writes REPORT.md (the per-stage cost table a person reads)
// and report.json (the same, for tools).
func writeReport(repo string, rep *Report) error {
	dir := filepath.Join(repo, filepath.FromSlash(ReportDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "REPORT.md"), []byte(ReportMarkdown(rep)), 0o644)
}

// ReportMarkdown renders the report: outcome, then one table row per stage
// with its status, model runs, turns, tokens and time.
func ReportMarkdown(rep *Report) string {
	var b strings.Builder
	b.WriteString("# copperhead create: report\n\n")
	switch {
	case rep.Complete:
		b.WriteString("Outcome: **complete**: every stage's gate passed.\n\n")
	default:
		fmt.Fprintf(&b, "Outcome: **stopped at %s**: resume with `copperhead create` in this repository.\n\n", rep.StoppedAt)
	}
	fmt.Fprintf(&b, "Started %s, ended %s.\n\n", rep.Started.Format(time.RFC3339), rep.Ended.Format(time.RFC3339))
	b.WriteString("| Stage | Status | Model runs | Turns | Tokens in | Tokens out | Time | Note |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var turns, runs int
	var in, out int
	for _, s := range rep.Stages {
		t := 0
		for _, r := range s.Runs {
			t += r.Turns
		}
		u := s.Tokens()
		turns, runs, in, out = turns+t, runs+len(s.Runs), in+u.Input, out+u.Output
		note := s.Note
		if len(s.Problems) > 0 {
			note = strings.TrimSpace(note + " " + strings.Join(s.Problems, "; "))
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s |\n", s.Stage, s.Status, len(s.Runs), t, u.Input, u.Output,
			s.Duration.Round(time.Second), strings.ReplaceAll(note, "|", "\\|"))
	}
	fmt.Fprintf(&b, "| **total** | | %d | %d | %d | %d | %s | |\n", runs, turns, in, out, rep.Ended.Sub(rep.Started).Round(time.Second))
	return b.String()
}

// ErrBriefDiffers refuses to swap the brief of a design under way.
var ErrBriefDiffers = errors.New("a different brief is already under way")

// Prepare readies repo for the pipeline: a git repository, the brief in
// docs/BRIEF.md (a resume may pass none), OpenSpec initialised without
// questions, a .copperhead/config.json, all committed once. A different
// brief over one already under way is refused unless force.
func Prepare(ctx context.Context, repo string, brief []byte, force bool) (config.Config, error) {
	if !gitrepo.IsRepo(ctx, repo) {
		if _, err := gitrepo.Run(ctx, repo, "init", "--quiet", "--initial-branch=main"); err != nil {
			return config.Config{}, err
		}
	}
	path := filepath.Join(repo, filepath.FromSlash(BriefPath))
	have, err := os.ReadFile(path)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return config.Config{}, fmt.Errorf("read %s: %w", BriefPath, err)
	case brief == nil && err != nil:
		return config.Config{}, fmt.Errorf("no brief: pass --brief FILE (a resume reads %s, which this repository does not have)", BriefPath)
	case brief != nil && err == nil && !bytes.Equal(have, brief) && !force:
		return config.Config{}, fmt.Errorf("%w in %s: resume without --brief, or pass --force to start over from the new brief", ErrBriefDiffers, BriefPath)
	case brief != nil && !bytes.Equal(have, brief):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return config.Config{}, err
		}
		if err := atomicfile.Write(path, brief, 0o644); err != nil {
			return config.Config{}, err
		}
	}
	if err := ensureIgnored(repo, ".env", config.RunsDir); err != nil {
		return config.Config{}, err
	}
	if err := openspec.Init(ctx, repo); err != nil {
		return config.Config{}, err
	}
	cfg, found, err := config.LoadConfig(repo)
	if err != nil {
		return cfg, err
	}
	if !found {
		data := cfg.Marshal()
		cp := filepath.Join(repo, filepath.FromSlash(config.ConfigPath))
		if err := os.MkdirAll(filepath.Dir(cp), 0o755); err != nil {
			return cfg, err
		}
		if err := atomicfile.Write(cp, data, 0o644); err != nil {
			return cfg, err
		}
	}
	if _, err := gitrepo.CommitAll(ctx, repo, "copperhead create: brief and scaffold\n"); err != nil && !errors.Is(err, gitrepo.ErrNothingToCommit) {
		return cfg, err
	}
	return cfg, nil
}

// ensureIgnored appends the entries .gitignore lacks: secrets and run
// transcripts never enter the history, and a run's own records must not
// make the tree dirty for the next stage.
func ensureIgnored(repo string, entries ...string) error {
	path := filepath.Join(repo, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read .gitignore: %w", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	out := string(data)
	added := false
	for _, e := range entries {
		if !have[e] {
			if out != "" && !strings.HasSuffix(out, "\n") {
				out += "\n"
			}
			if !added && out == "" {
				out = "# copperhead: secrets and agent run transcripts stay out of git\n"
			}
			out += e + "\n"
			added = true
		}
	}
	if !added {
		return nil
	}
	return atomicfile.Write(path, []byte(out), 0o644)
}
