package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/llm"
)

//go:embed rename_net.md
var renameNetDoc string

type renameNetArgs struct {
	Old   string `json:"old" desc:"the net's current name, as list_nets shows it (\"/PTT\", \"/amp/OUT\", \"VCC\") or as the bare label text"`
	New   string `json:"new" desc:"the new name, as bare label text (e.g. PTT_N)"`
	Merge bool   `json:"merge,omitempty" desc:"allow renaming onto a net that already exists, joining the two (refused otherwise)"`
}

var renameNetSpec = llm.ToolFor[renameNetArgs]("rename_net", strings.TrimSpace(renameNetDoc))

type renameNetTool struct{}

func (renameNetTool) Spec() llm.Tool { return renameNetSpec }
func (renameNetTool) Mutating() bool { return true }

func (renameNetTool) Run(ctx context.Context, s *Session, raw json.RawMessage) (Result, error) {
	a, bad := decodeArgs[renameNetArgs]("rename_net", raw)
	if bad != nil {
		return *bad, nil
	}
	return runSchedit(ctx, s, "rename_net", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.RenameNet(d, a.Old, a.New, a.Merge)
	})
}
