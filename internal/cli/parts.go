package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
)

func newPartsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "parts",
		Short: "List the schematic's parts (every reference, across all sheet instances)",
		Long: `parts lists every real part reference in the schematic, read by copperhead's
own parser: one entry per reference per sheet instance, units aggregated.
Power symbols and #-references are not parts. Read-only.

'parts search' looks a part up in a part-data service instead.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := a.open("")
			if err != nil {
				return err
			}
			sch, err := w.schematic()
			if err != nil {
				return err
			}
			if a.mode() == modeJSON {
				return writeJSON(a.io.Out, struct {
					Schematic string       `json:"schematic"`
					Parts     []kicad.Part `json:"parts"`
				}{w.proj.Rel(w.proj.Schematic), nonNil(sch.Parts)})
			}
			tw := tabwriter.NewWriter(a.io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "REFDES\tVALUE\tFOOTPRINT\tMPN\tSHEET\tFLAGS")
			for _, p := range sch.Parts {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Refdes, dash(p.Value), dash(p.Footprint), dash(p.MPN), p.SheetPath, partFlags(p))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(a.io.Out, "%s in %s\n", textfmt.Count(len(sch.Parts), "part"), w.proj.Rel(w.proj.Schematic))
			return nil
		},
	}
	cmd.AddCommand(newPartsSearchCmd(a))
	return cmd
}

func partFlags(p kicad.Part) string {
	var f []string
	if p.DNP {
		f = append(f, "dnp")
	}
	if !p.InBOM {
		f = append(f, "not-in-bom")
	}
	if !p.OnBoard {
		f = append(f, "not-on-board")
	}
	if len(p.Units) > 1 {
		f = append(f, fmt.Sprintf("units:%d", len(p.Units)))
	}
	return strings.Join(f, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// nonNil makes an empty list marshal as [] rather than null: --json keys are stable.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// writeJSON prints v indented, without HTML escaping: "<model-id>" stays
// readable for the humans who also read --json output.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
