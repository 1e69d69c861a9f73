package tools

import (
	"copperhead/internal/kicad/schedit"
)

type renameNetArgs struct {
	Old   string `json:"old" desc:"the net's current name, as list_nets shows it (\"/PTT\", \"/amp/OUT\", \"VCC\") or as the bare label text"`
	New   string `json:"new" desc:"the new name, as bare label text (e.g. PTT_N)"`
	Merge bool   `json:"merge,omitempty" desc:"allow renaming onto a net that already exists, joining the two (refused otherwise)"`
}

var renameNetTool = scheditTool("rename_net", func(d *schedit.Design, a renameNetArgs) (*schedit.Plan, error) {
	return schedit.RenameNet(d, a.Old, a.New, a.Merge)
})
