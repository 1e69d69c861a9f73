package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"copperhead/internal/config"
	"copperhead/internal/kicad"
	"copperhead/internal/kicadcli"
	"copperhead/internal/openspec"
	"copperhead/internal/project"
)

// workspace is a repository opened for a command: its config and its located
// KiCad project.
type workspace struct {
	repo     string
	cfg      config.Config
	cfgFound bool
	proj     *project.Project

	sch *kicad.Schematic // the loaded schematic, once schematic() succeeded
}

// ambiguousHint follows a search that found several projects in a command
// other than init: only init takes --path, and its choice is what later
// commands follow.
const ambiguousHint = "run 'copperhead init --path …' once: every command then follows the choice it records in .copperhead/config.json"

// open reads .copperhead/config.json (when present) and locates the KiCad
// project, at sub when it is non-empty (init --path: a folder, a .kicad_pro
// or the root .kicad_sch).
func (a *app) open(sub string) (*workspace, error) { return a.openAt(sub, false) }

// openAt is open for init (forInit), whose own --path resolves an
// ambiguous search, and for every other command, which is told how to
// choose.
func (a *app) openAt(sub string, forInit bool) (*workspace, error) {
	repo, err := a.repoDir()
	if err != nil {
		return nil, err
	}
	cfg, found, err := config.LoadConfig(repo)
	if err != nil {
		return nil, failf("%v", err)
	}
	sch, brd := "", ""
	if found && sub == "" {
		sch, brd = cfg.Schematic, cfg.Board
	}
	pr, err := project.Locate(repo, sub, sch, brd)
	if err != nil {
		if errors.Is(err, project.ErrLegacySchematic) {
			return nil, failf("%v", err) // the message says what to do
		}
		if errors.Is(err, project.ErrNoSchematic) {
			return nil, withHint(failf("%v", err), "copperhead works on a KiCad project: run it in a repository holding a .kicad_sch, or pass --repo")
		}
		if errors.Is(err, project.ErrBadPath) {
			return nil, usagef("%v", err)
		}
		if errors.Is(err, project.ErrAmbiguous) && !forInit {
			return nil, withHint(failf("%v", err), ambiguousHint)
		}
		return nil, failf("%v", err)
	}
	if !found {
		cfg = config.DefaultConfig()
	}
	return &workspace{repo: repo, cfg: cfg, cfgFound: found, proj: pr}, nil
}

// schematic loads the project's whole hierarchical schematic, every file
// inside the repository (once per workspace).
func (w *workspace) schematic() (*kicad.Schematic, error) {
	if w.sch != nil {
		return w.sch, nil
	}
	sch, err := kicad.LoadSchematicWithin(w.proj.Schematic, w.repo)
	if err != nil {
		return nil, failf("%v", w.relErr(err))
	}
	w.sch = sch
	return sch, nil
}

// relErr shortens absolute repository paths in err to repo-relative ones, so
// messages read like the paths the user works with.
func (w *workspace) relErr(err error) error {
	msg := strings.ReplaceAll(err.Error(), w.repo+string(filepath.Separator), "")
	return errors.New(msg)
}

// findKiCad locates kicad-cli 9; its absence is an environment error (exit 2).
func findKiCad(ctx context.Context) (*kicadcli.Tool, error) {
	t, err := kicadcli.Find(ctx)
	if err != nil {
		if errors.Is(err, kicadcli.ErrUnavailable) {
			return nil, withHint(usagef("%v", err), "run scripts/setup.sh, or point COPPERHEAD_KICAD_CLI at a KiCad 9 kicad-cli")
		}
		return nil, usagef("%v", err)
	}
	return t, nil
}

// findOpenSpec checks that the openspec CLI is there: every agent run needs
// it for the spec gate (validate_change), so a run without it ends before
// turn 1, as an environment error with the install hint.
func findOpenSpec() error {
	if _, err := openspec.Binary(); err != nil {
		return withHint(usagef("%v", err), openspec.InstallHint)
	}
	return nil
}

// openKiCad opens the repository and finds kicad-cli: what every command
// that asks KiCad anything needs first.
func (a *app) openKiCad(ctx context.Context) (*workspace, *kicadcli.Tool, error) {
	w, err := a.open("")
	if err != nil {
		return nil, nil, err
	}
	t, err := findKiCad(ctx)
	if err != nil {
		return nil, nil, err
	}
	t.Boundary = w.repo
	return w, t, nil
}

// netlist exports the project's connectivity through kicad-cli. Our own
// parse comes first: kicad-cli exports a design with a missing or damaged
// sheet as if the rest were whole, and says only "Failed to load
// schematic" where our parser names the file, line and column.
func (w *workspace) netlist(ctx context.Context, t *kicadcli.Tool) (*kicad.Netlist, error) {
	if _, err := w.schematic(); err != nil {
		return nil, err
	}
	t.Boundary = w.repo
	nl, err := t.Netlist(ctx, w.proj.Schematic)
	if err != nil {
		return nil, failf("%v", w.relErr(err))
	}
	// kicad-cli exports a design whose sub-sheet it cannot load as if the
	// rest were whole (exit 0): refuse that netlist.
	if err := kicad.CheckNetlistCovers(w.sch, nl); err != nil {
		return nil, failf("%v", w.relErr(err))
	}
	return nl, nil
}
