package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/design"
	"copperhead/internal/outputs"
	"copperhead/internal/textfmt"
)

func newExportCmd(a *app) *cobra.Command {
	return groupCmd("export", "Export one deliverable (export bom)", newExportBOMCmd(a))
}

func newExportBOMCmd(a *app) *cobra.Command {
	var supplier, out string
	cmd := &cobra.Command{
		Use:   "bom --supplier jlcpcb|digikey|mouser [--out FILE]",
		Short: "Write the ordering BOM as CSV, with a search link per line for the supplier",
		Long: `export bom writes the bill of materials for ordering: one CSV line per
item bought (same value, footprint, manufacturer, MPN and supplier part
number), with the columns

  Designator, Qty, Value, Footprint, Manufacturer, MPN, Supplier,
  Supplier Part Number, Link, Notes

Parts marked DNP or excluded from the BOM are not bought and are left out.
The MPN is the schematic's own field, else BOM.md's when it is not
UNVERIFIED; a part with neither has an empty MPN and a note. The supplier
part number is read from a schematic field named for the supplier (LCSC,
"LCSC Part #", JLCPCB for jlcpcb; DigiKey, Digi-Key_PN for digikey; Mouser,
"Mouser Part Number" for mouser). Link is the supplier's search page for that
part number, else the MPN, else value and package. Default output:
outputs/bom-<supplier>.csv. Reads the schematic with copperhead's own parser:
no kicad-cli, no network.

Exit codes: 0 written; 1 the schematic or BOM.md could not be read; 2 usage.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if supplier == "" {
				return withHint(usagef("export bom: --supplier is required"), "one of "+strings.Join(outputs.SupplierNames(), ", "))
			}
			sup, err := outputs.LookupSupplier(supplier)
			if err != nil {
				return withHint(usagef("--supplier: %v", err), "see 'copperhead export bom --help'")
			}
			w, err := a.open("")
			if err != nil {
				return err
			}
			path := out
			if path == "" {
				path = filepath.Join(w.repo, outputs.DefaultDir, "bom-"+sup.Name+".csv")
			} else if abs, err := filepath.Abs(path); err == nil {
				path = abs
			}
			lines, err := outputs.ExportBOM(w.repo, w.proj.Schematic, filepath.Join(w.repo, filepath.FromSlash(w.cfg.DocPath(design.BOMDoc))), sup, path)
			if err != nil {
				return failf("export bom: %v", w.relErr(err))
			}
			if a.mode() == modeJSON {
				return writeJSON(a.io.Out, struct {
					File     string              `json:"file"`
					Supplier string              `json:"supplier"`
					Lines    []outputs.OrderLine `json:"lines"`
				}{w.proj.Rel(path), sup.Name, nonNil(lines)})
			}
			parts, unverified := 0, 0
			for _, l := range lines {
				parts += l.Qty
				if l.MPN == "" {
					unverified++
				}
			}
			fmt.Fprintf(a.io.Out, "%s, %s for %s in %s\n", textfmt.Count(len(lines), "line"), textfmt.Count(parts, "part"), sup.Label, w.proj.Rel(path))
			if unverified > 0 {
				fmt.Fprintf(a.io.Out, "  %s with no verified MPN: the link searches by value and package\n", textfmt.Count(unverified, "line"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&supplier, "supplier", "", "supplier to link to: "+strings.Join(outputs.SupplierNames(), ", "))
	cmd.Flags().StringVar(&out, "out", "", "CSV `file` to write (default: outputs/bom-<supplier>.csv)")
	return cmd
}
