package tools

import (
	"context"

	"copperhead/internal/kicad/schedit"
	"copperhead/internal/tool"
)

type renameNetArgs struct {
	Old   string `json:"old" desc:"the net's current name, as list_nets shows it (\"/PTT\", \"/amp/OUT\", \"VCC\") or as the bare label text"`
	New   string `json:"new" desc:"the new name, as bare label text (e.g. PTT_N)"`
	Merge bool   `json:"merge,omitempty" desc:"allow renaming onto a net that already exists, joining the two (refused otherwise)"`
}

var renameNetTool = newTool("rename_net", renameNet, tool.Mutating)

func renameNet(ctx context.Context, s *tool.Session, a renameNetArgs) (tool.Result, error) {
	return runSchedit(ctx, s, "rename_net", func(d *schedit.Design) (*schedit.Plan, error) {
		return schedit.RenameNet(d, a.Old, a.New, a.Merge)
	})
}
