// Package runmeta collects the run-start metadata of an agent run (spec
// AC-8.1): versions, platform, the resolved config, git state and the
// repository's copperhead state. Collection is LLM-free and network-free, and
// a failing probe yields null for that field only (AC-8.3): metadata never
// aborts or alters a run. It must never import llm, research or agent.
package runmeta

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
	"copperhead/internal/transcript"
)

// Input is what the caller already knows about the run.
type Input struct {
	RunID           string
	StartedAt       time.Time
	Command         string // do, sync, create, repl, demo, models
	Request         string
	Model           string
	Provider        string
	SelectionSource string
	Interactive     bool
	Stage           *transcript.Stage
	Version         string // copperhead's version
	Repo            string // repository folder, absolute
	Config          config.Config
	// Schematic and Board are repo-relative; "" records null (the repo has none yet).
	Schematic, Board string
	// MaxTurns and MaxRepairCycles are the effective budgets after flags (AC-8.2).
	MaxTurns, MaxRepairCycles int
	// HookMarker identifies copperhead's pre-commit hook; "" skips the probe.
	HookMarker string
	// KicadCLIVersion is kicad-cli's version when the caller has already
	// asked it (the command found kicad-cli): the probe is not run again.
	KicadCLIVersion string
}

// Probes are the slow or fallible lookups, replaceable in tests to prove that
// one failing probe nulls only its own field.
type Probes struct {
	KicadCLIVersion func(ctx context.Context) (string, error)
	NodeVersion     func(ctx context.Context) (string, error)
	Executable      func() (string, error)
	Git             func(ctx context.Context, repo string, args ...string) (string, error)
}

// DefaultProbes asks the real tools.
func DefaultProbes() Probes {
	return Probes{
		KicadCLIVersion: func(ctx context.Context) (string, error) {
			t, err := kicadcli.Find(ctx)
			if err != nil {
				return "", err
			}
			return t.Version(), nil
		},
		NodeVersion: openspec.NodeVersion,
		Executable:  os.Executable,
		Git:         gitrepo.Run,
	}
}

// Collect builds the run-start event.
func Collect(ctx context.Context, in Input, pr Probes) transcript.RunStart {
	rs := transcript.RunStart{
		RunID:             in.RunID,
		StartedAt:         in.StartedAt.UTC(),
		Command:           in.Command,
		Request:           in.Request,
		Model:             in.Model,
		Provider:          in.Provider,
		SelectionSource:   transcript.SelectionSource(in.SelectionSource),
		Interactive:       in.Interactive,
		Stage:             in.Stage,
		CopperheadVersion: in.Version,
		Platform:          platform(),
		Config: transcript.ConfigSnapshot{
			Schematic:       strPtr(in.Schematic),
			Board:           strPtr(in.Board),
			Docs:            in.Config.DocsDir(),
			MaxTurns:        in.MaxTurns,
			MaxRepairCycles: in.MaxRepairCycles,
			Budgets:         in.Config.Budgets,
		},
	}
	if p, err := pr.Executable(); err == nil {
		rs.InstallPath = &p
	}
	if v := in.KicadCLIVersion; v != "" {
		rs.KicadCLIVersion = &v
	} else if v, err := pr.KicadCLIVersion(ctx); err == nil {
		rs.KicadCLIVersion = &v
	}
	if v, err := pr.NodeVersion(ctx); err == nil {
		rs.NodeVersion = &v
	}
	rs.Git = gitState(ctx, in.Repo, pr)
	rs.PreCommitHook = hookInstalled(ctx, in.Repo, in.HookMarker, pr)
	if reg, err := design.LoadConstraints(in.Repo); err == nil {
		n := len(reg)
		rs.OpenConstraints = &n
	}
	if runs, err := transcript.List(in.Repo); err == nil {
		n := 0
		for _, r := range runs {
			if r.ID != in.RunID {
				n++
			}
		}
		rs.PriorRuns = &n
	}
	return rs
}

func gitState(ctx context.Context, repo string, pr Probes) transcript.GitState {
	var g transcript.GitState
	if out, err := pr.Git(ctx, repo, "rev-parse", "HEAD"); err == nil && out != "" {
		g.Commit = &out
	}
	if out, err := pr.Git(ctx, repo, "symbolic-ref", "--short", "-q", "HEAD"); err == nil && out != "" {
		g.Branch = &out
	}
	if out, err := pr.Git(ctx, repo, "status", "--porcelain", "--untracked-files=all"); err == nil {
		n := 0
		for _, line := range strings.Split(out, "\n") {
			// copperhead's own run records are git-ignored, so they never count.
			if strings.TrimSpace(line) != "" {
				n++
			}
		}
		dirty := n > 0
		g.Dirty, g.Uncommitted = &dirty, &n
	}
	return g
}

func hookInstalled(ctx context.Context, repo, marker string, pr Probes) *bool {
	if marker == "" {
		return nil
	}
	dir, err := pr.Git(ctx, repo, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(repo, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, "pre-commit"))
	installed := err == nil && strings.Contains(string(data), marker)
	if err != nil && !os.IsNotExist(err) {
		return nil
	}
	return &installed
}

// platform is GOOS/GOARCH and, when /etc/os-release names it, the OS.
func platform() string {
	p := runtime.GOOS + "/" + runtime.GOARCH
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return p
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			return p + " (" + v + ")"
		}
	}
	return p
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
