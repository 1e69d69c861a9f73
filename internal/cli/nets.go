package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/kicad"
	"copperhead/internal/textfmt"
)

func newNetsCmd(a *app) *cobra.Command {
	var unconnected bool
	cmd := &cobra.Command{
		Use:   "nets",
		Short: "List the schematic's nets and the pins on each (from kicad-cli's netlist)",
		Long: `nets lists every net with its pins, from kicad-cli's own netlist export (the
authority for hierarchy, power symbols and multi-unit parts). Nets KiCad names
unconnected-(...) are single unconnected pins and are left out unless
--unconnected is given. Read-only.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, t, err := a.openKiCad(cmd.Context())
			if err != nil {
				return err
			}
			nl, err := w.netlist(cmd.Context(), t)
			if err != nil {
				return err
			}
			var nets []kicad.Net
			for _, n := range nl.Nets {
				if unconnected || !kicad.IsUnconnectedNet(n.Name) {
					nets = append(nets, n)
				}
			}
			if a.mode() == modeJSON {
				return writeJSON(a.io.Out, struct {
					Schematic string      `json:"schematic"`
					Nets      []kicad.Net `json:"nets"`
				}{w.proj.Rel(w.proj.Schematic), nonNil(nets)})
			}
			for _, n := range nets {
				pins := make([]string, len(n.Nodes))
				for i, p := range n.Nodes {
					pins[i] = p.Refdes + "." + p.Pin
					if p.PinFunction != "" && p.PinFunction != p.Pin {
						pins[i] += "(" + p.PinFunction + ")"
					}
				}
				fmt.Fprintf(a.io.Out, "%s  %s\n", n.Name, strings.Join(pins, " "))
			}
			fmt.Fprintf(a.io.Out, "%s in %s\n", textfmt.Count(len(nets), "net"), w.proj.Rel(w.proj.Schematic))
			return nil
		},
	}
	cmd.Flags().BoolVar(&unconnected, "unconnected", false, "also list KiCad's unconnected-(...) single-pin nets")
	return cmd
}
