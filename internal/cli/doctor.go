package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"copperhead/internal/config"
	"copperhead/internal/design"
	"copperhead/internal/gitrepo"
	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/openspec"
	"copperhead/internal/research/parts"
	"copperhead/internal/research/search"
)

// pinnedOpenSpec is the OpenSpec CLI version scripts/setup.sh installs.
const pinnedOpenSpec = openspec.Pinned

// DoctorRow is one dependency's state.
type DoctorRow struct {
	Name     string `json:"name"`
	Status   string `json:"status"` // ok | info | warn | fail
	Detail   string `json:"detail"`
	Fix      string `json:"fix,omitempty"`
	Required bool   `json:"required"`
}

// credentialVars are the provider credentials doctor reports, by name only:
// their values are never read into output.
var credentialVars = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}

func newDoctorCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check copperhead's dependencies and the repository's config",
		Long: `doctor prints one row per dependency with ok, info, warn or fail and a fix
hint: kicad-cli and its libraries, git, openspec, pdftotext, model provider
credentials (by variable name only; values are never shown), the repository's
.copperhead config, and, when a compat endpoint is configured and is not on
this machine, whether its operator is documented as training on prompts.
Research rows say whether research is enabled in the config and which web
search and part-data provider keys are set (names only). It exits 1 only
when something required fails.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows := a.doctorRows(cmd.Context())
			var failing []string
			for _, r := range rows {
				if r.Required && r.Status == "fail" {
					failing = append(failing, r.Name)
				}
			}
			failed := len(failing) > 0
			if a.mode() == modeJSON {
				if err := writeJSON(a.io.Out, struct {
					OK   bool        `json:"ok"`
					Rows []DoctorRow `json:"rows"`
				}{!failed, rows}); err != nil {
					return err
				}
			} else {
				tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
				for _, r := range rows {
					line := fmt.Sprintf("%s\t%s\t%s", r.Status, r.Name, r.Detail)
					if r.Fix != "" && r.Status != "ok" {
						line += " (fix: " + r.Fix + ")"
					}
					fmt.Fprintln(tw, line)
				}
				tw.Flush()
			}
			if failed {
				return quietf(ExitFailed, "doctor: required dependency failing: %s", strings.Join(failing, ", "))
			}
			return nil
		},
	}
}

func (a *app) doctorRows(ctx context.Context) []DoctorRow {
	var rows []DoctorRow
	add := func(r DoctorRow) { rows = append(rows, r) }

	if t, err := kicadcli.Find(ctx); err != nil {
		add(DoctorRow{Name: "kicad-cli", Status: "fail", Detail: oneLine(err.Error()), Required: true,
			Fix: "run scripts/setup.sh (installs KiCad 9 from bookworm-backports), or set COPPERHEAD_KICAD_CLI"})
	} else {
		add(DoctorRow{Name: "kicad-cli", Status: "ok", Detail: t.Version() + " at " + t.Path, Required: true})
		for _, lib := range t.Libraries() {
			r := DoctorRow{Name: lib.Name, Status: "ok", Detail: lib.Dir}
			if lib.Dir == "" {
				r.Status, r.Detail = "warn", "not installed: ERC/DRC report missing-library issues (counted as environment, not failures)"
				r.Fix = "apt-get install -t bookworm-backports " + lib.Package
			}
			add(r)
		}
	}

	if v, err := gitrepo.Version(ctx); err != nil {
		add(DoctorRow{Name: "git", Status: "fail", Detail: oneLine(err.Error()), Required: true, Fix: "apt-get install git"})
	} else {
		add(DoctorRow{Name: "git", Status: "ok", Detail: v, Required: true})
	}

	if v, err := openspec.Version(ctx); err != nil {
		add(DoctorRow{Name: "openspec", Status: "warn", Detail: "not found: check skips OpenSpec validation",
			Fix: "npm install -g @fission-ai/openspec@" + pinnedOpenSpec})
	} else if v != pinnedOpenSpec {
		add(DoctorRow{Name: "openspec", Status: "warn", Detail: v + " (copperhead is tested with " + pinnedOpenSpec + ")",
			Fix: "npm install -g @fission-ai/openspec@" + pinnedOpenSpec})
	} else {
		add(DoctorRow{Name: "openspec", Status: "ok", Detail: v})
	}

	if p, err := exec.LookPath("pdftotext"); err != nil {
		add(DoctorRow{Name: "pdftotext", Status: "warn", Detail: "not found: datasheet text extraction is unavailable", Fix: "apt-get install poppler-utils"})
	} else {
		add(DoctorRow{Name: "pdftotext", Status: "ok", Detail: p})
	}

	var set []string
	for _, v := range credentialVars {
		if os.Getenv(v) != "" {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		add(DoctorRow{Name: "model credentials", Status: "warn", Detail: "none of " + strings.Join(credentialVars, ", ") + " is set: agent commands need one; init and check do not",
			Fix: "export ANTHROPIC_API_KEY or OPENAI_API_KEY"})
	} else {
		add(DoctorRow{Name: "model credentials", Status: "ok", Detail: strings.Join(set, ", ") + " set"})
	}

	add(a.configRow())
	if r, ok := a.compatPrivacyRow(); ok {
		add(r)
	}
	rows = append(rows, a.researchRows()...)
	return rows
}

// researchKeyGroups are the research providers' credentials by tool, in the
// providers' preference order; a provider is a list of variables that must
// all be set. Names come from the provider packages, so doctor and the tools
// cannot disagree on them.
var researchKeyGroups = []struct {
	tool      string
	providers [][]string
}{
	{"web search", [][]string{{search.BraveKeyEnv}, {search.TavilyKeyEnv}, {search.OpenRouterKeyEnv}}},
	{"part data", [][]string{{parts.NexarClientIDEnv, parts.NexarClientSecretEnv}, {parts.MouserKeyEnv}}},
}

// researchRows report whether research is enabled in the repo's config and,
// per research tool, which providers' credentials are set: by variable name
// only, never a value. Nothing here is required: without research, copperhead
// designs from its own knowledge and leaves parts UNVERIFIED (D2).
func (a *app) researchRows() []DoctorRow {
	enabled := false
	r := DoctorRow{Name: "research"}
	repo, err := a.repoDir()
	if err == nil {
		var cfg config.Config
		if cfg, _, err = config.LoadConfig(repo); err == nil {
			enabled = cfg.Research.Enabled
		}
	}
	switch {
	case err != nil:
		r.Status, r.Detail = "info", "unknown: the repo config cannot be read (see repo config)"
	case enabled:
		r.Status, r.Detail = "ok", "enabled (research.enabled): research tools are offered when their keys are set; check requires a sourcing snapshot per BOM MPN"
	default:
		r.Status, r.Detail = "info", "disabled: no research tools; parts stay UNVERIFIED"
		r.Fix = `set "research": {"enabled": true} in ` + config.ConfigPath
	}
	rows := []DoctorRow{r}
	for _, g := range researchKeyGroups {
		row := DoctorRow{Name: g.tool + " credentials"}
		var ready, partial, all []string
		for _, vars := range g.providers {
			all = append(all, strings.Join(vars, " + "))
			var set, unset []string
			for _, v := range vars {
				if strings.TrimSpace(os.Getenv(v)) != "" {
					set = append(set, v)
				} else {
					unset = append(unset, v)
				}
			}
			switch {
			case len(unset) == 0:
				ready = append(ready, strings.Join(vars, " + "))
			case len(set) > 0:
				partial = append(partial, strings.Join(set, ", ")+" set but not "+strings.Join(unset, ", "))
			}
		}
		switch {
		case len(ready) > 0:
			row.Status, row.Detail = "ok", strings.Join(ready, ", ")+" set"
		case enabled:
			row.Status, row.Detail = "warn", "none of "+strings.Join(all, ", ")+" is set: the "+g.tool+" tool is absent"
		default:
			row.Status, row.Detail = "info", "none of "+strings.Join(all, ", ")+" is set"
		}
		if len(partial) > 0 {
			row.Detail += "; " + strings.Join(partial, "; ")
		}
		if row.Status != "ok" {
			row.Fix = "export " + strings.Join(all, " or ")
		}
		rows = append(rows, row)
	}
	return rows
}

// compatPrivacyRow is AC-3.17: when a compat endpoint is configured, say
// whether its operator is documented as training on prompts (warn), has no
// policy on record (info), or does not (ok). Never blocking; a loopback
// endpoint skips the check, since nothing leaves the machine.
func (a *app) compatPrivacyRow() (DoctorRow, bool) {
	base := os.Getenv(llm.EnvBaseURL)
	if base == "" {
		if repo, err := a.repoDir(); err == nil {
			if cfg, _, err := config.LoadConfig(repo); err == nil {
				base = cfg.BaseURL
			}
		}
	}
	if base == "" {
		return DoctorRow{}, false
	}
	pp := llm.EndpointPromptPolicy(base)
	if pp.Local {
		return DoctorRow{}, false
	}
	r := DoctorRow{Name: "compat endpoint", Detail: pp.Note}
	switch {
	case pp.Trains:
		r.Status, r.Fix = "warn", "use an endpoint or plan that does not train on prompts, or a local model"
	case !pp.OnRecord:
		r.Status = "info"
	default:
		r.Status = "ok"
	}
	return r, true
}

func (a *app) configRow() DoctorRow {
	r := DoctorRow{Name: "repo config"}
	repo, err := a.repoDir()
	if err != nil {
		r.Status, r.Detail = "fail", oneLine(err.Error())
		return r
	}
	cfg, found, err := config.LoadConfig(repo)
	switch {
	case err != nil:
		r.Status, r.Detail, r.Fix = "fail", oneLine(err.Error()), "fix the JSON, or delete it and run 'copperhead init'"
		r.Required = true
	case !found:
		r.Status, r.Detail, r.Fix = "warn", config.ConfigPath+" not found", "run 'copperhead init'"
	default:
		r.Status, r.Detail = "ok", fmt.Sprintf("%s: schematic %s", config.ConfigPath, dash(cfg.Schematic))
		if _, err := design.LoadConstraints(repo); err != nil {
			r.Status, r.Detail, r.Required = "fail", oneLine(err.Error()), true
		}
	}
	return r
}
