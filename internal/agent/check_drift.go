package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/llm"
)

//go:embed check_drift.md
var checkDriftDoc string

type checkDriftArgs struct{}

var checkDriftSpec = llm.ToolFor[checkDriftArgs]("check_drift", strings.TrimSpace(checkDriftDoc))

type checkDriftTool struct{}

func (checkDriftTool) Spec() llm.Tool { return checkDriftSpec }
func (checkDriftTool) Mutating() bool { return false }

// driftLine is one mismatch as check_drift shows it (spec §4.2: doc, claim,
// actual).
type driftLine struct {
	Doc     string `json:"doc"`
	Claim   string `json:"claim"`
	Actual  string `json:"actual"`
	Message string `json:"message"`
}

func (checkDriftTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	if _, bad := decodeArgs[checkDriftArgs]("check_drift", raw); bad != nil {
		return *bad, nil
	}
	// Everything is read fresh: the point is to see the files as they are
	// after this run's edits, config.json's budgets included.
	cfg, _, err := design.LoadConfig(s.Repo)
	if err != nil {
		return Errorf("check_drift: %s", s.scrub(err.Error())), nil
	}
	cfg.Docs = s.Config.Docs
	files, err := design.ReadFiles(s.Repo, cfg)
	if err != nil {
		return Errorf("check_drift: %s", s.scrub(err.Error())), nil
	}
	reg, err := design.LoadConstraints(s.Repo)
	if err != nil {
		return Errorf("check_drift: %s", s.scrub(err.Error())), nil
	}
	var sch *kicad.Schematic
	var nl *kicad.Netlist
	if abs, _ := s.designFile(false); abs != "" {
		if sch, err = kicad.LoadSchematicWithin(abs, s.Repo); err != nil {
			return Errorf("check_drift: %s", s.scrub(err.Error())), nil
		}
		if s.KiCad == nil {
			return Errorf("check_drift: kicad-cli is not available on this machine, so PINOUT.md cannot be checked against the netlist"), nil
		}
		if nl, err = s.KiCad.Netlist(ctx, abs); err != nil {
			return Errorf("check_drift: %s", s.scrub(err.Error())), nil
		}
	}
	drift := design.Drift(files, cfg, sch, nl)
	// Broken datasheet citations (D8) are drift too, as check counts them.
	drift.Mismatches = append(drift.Mismatches, design.CheckCitations(s.Repo, files, cfg)...)
	violations := design.CheckConstraints(reg, cfg, files, nl)

	var b strings.Builder
	if drift.Clean() && len(violations) == 0 {
		closed := s.ledger().Resolve(OblDrift, "", "check_drift clean")
		b.WriteString("drift: clean: the docs agree with the design, and no constraint or budget is violated")
		if sch == nil {
			b.WriteString(" (no schematic yet: only budgets were checked)")
		}
		if closed > 0 {
			fmt.Fprintf(&b, "; closed %s", plural(closed, "drift obligation", "drift obligations"))
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "drift: NOT clean: %s, %s. Make the docs agree with the design (the schematic is ground truth for as-built facts) and run check_drift again; if a mismatch means the design breaks a requirement or budget, say so instead.\n",
			plural(len(drift.Mismatches), "mismatch", "mismatches"), plural(len(violations), "constraint violation", "constraint violations"))
		for _, m := range drift.Mismatches {
			writeJSONLine(&b, driftLine{Doc: m.Doc, Claim: m.Claim, Actual: m.Actual, Message: m.Message})
		}
		for _, v := range violations {
			fmt.Fprintf(&b, "constraint %s (%s): %s\n", v.Key, v.Kind, v.Message)
		}
	}
	for _, w := range drift.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return Result{Text: b.String()}, nil
}
