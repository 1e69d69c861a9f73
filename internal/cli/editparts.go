package cli

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"copperhead/internal/kicad"
	"copperhead/internal/kicad/schedit"
)

func newEditAddPartCmd(a *app, o *editOptions) *cobra.Command {
	var ref, value, footprint, at, near string
	cmd := &cobra.Command{
		Use:   "add-part LIB_ID --ref REF --value VALUE [--footprint FP] [--near REF | --at X,Y]",
		Short: "Place a library symbol, embedding its definition, with a unique reference",
		Long: `add-part resolves LIB_ID (e.g. Device:R) from the project's sym-lib-table or
KiCad's installed symbol libraries, embeds its definition in lib_symbols once,
and places it on a free 2.54 mm grid spot near --near (or at --at X,Y mm,
snapped to 1.27 mm). An empty --ref or "R?" takes the next free number for
the prefix. The new part gets a BOM.md row; connect its pins with connect.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pos *kicad.Point
			if at != "" {
				p, err := parsePoint(at)
				if err != nil {
					return usagef("--at %s: %v", at, err)
				}
				pos = p
			}
			return a.runEdit(cmd.Context(), o, func(d *schedit.Design) (*schedit.Plan, error) {
				return schedit.AddPart(d, args[0], ref, value, footprint, pos, near)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&ref, "ref", "", "the reference, e.g. R12 (default: the next free one)")
	f.StringVar(&value, "value", "", "the Value field, e.g. 10k")
	f.StringVar(&footprint, "footprint", "", "the footprint, e.g. Resistor_SMD:R_0603_1608Metric (default: the library's)")
	f.StringVar(&at, "at", "", "position in mm on the root sheet, X,Y")
	f.StringVar(&near, "near", "", "place next to this reference, on its sheet")
	return cmd
}

func newEditRemovePartCmd(a *app, o *editOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "remove-part REF",
		Short: "Remove a part and the wires, labels and no-connects that only served it",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runEdit(cmd.Context(), o, func(d *schedit.Design) (*schedit.Plan, error) {
				return schedit.RemovePart(d, args[0])
			})
		},
	}
}

func newEditConnectCmd(a *app, o *editOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "connect REF.PIN NET",
		Short: "Connect a pin to a net with a short wire stub and a label at its end",
		Args:  exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPinEdit(cmd.Context(), o, args[0], func(d *schedit.Design, ref, pin string) (*schedit.Plan, error) {
				return schedit.Connect(d, ref, pin, args[1])
			})
		},
	}
}

func newEditDisconnectCmd(a *app, o *editOptions) *cobra.Command {
	return newEditPinCmd(a, o, "disconnect REF.PIN", "Remove the stub and label (or no-connect flag) attached to a pin", schedit.Disconnect)
}

func newEditNoConnectCmd(a *app, o *editOptions) *cobra.Command {
	return newEditPinCmd(a, o, "no-connect REF.PIN", "Flag an unconnected pin as intentionally not connected", schedit.NoConnect)
}

// newEditPinCmd is an edit operation whose only argument is one pin.
func newEditPinCmd(a *app, o *editOptions, use, short string, op func(d *schedit.Design, ref, pin string) (*schedit.Plan, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPinEdit(cmd.Context(), o, args[0], op)
		},
	}
}

// runPinEdit reads REF.PIN and runs op on it as an edit.
func (a *app) runPinEdit(ctx context.Context, o *editOptions, refPin string, op func(d *schedit.Design, ref, pin string) (*schedit.Plan, error)) error {
	ref, pin, err := splitPin(refPin)
	if err != nil {
		return err
	}
	return a.runEdit(ctx, o, func(d *schedit.Design) (*schedit.Plan, error) { return op(d, ref, pin) })
}

// splitPin reads REF.PIN (the pin a number or a name); the last dot splits,
// so pin names may not hold one but references never do.
func splitPin(s string) (ref, pin string, err error) {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return "", "", usagef("%q: give a pin as REF.PIN, e.g. U1.5 or U1.IO5", s)
	}
	return s[:i], s[i+1:], nil
}

// parsePoint reads "X,Y" in mm.
func parsePoint(s string) (*kicad.Point, error) {
	xs, ys, ok := strings.Cut(s, ",")
	if !ok {
		return nil, errBadPoint
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(xs), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(ys), 64)
	if err1 != nil || err2 != nil {
		return nil, errBadPoint
	}
	pt := &kicad.Point{X: x, Y: y}
	if err := kicad.CheckPoint(*pt); err != nil {
		return nil, usagef("%v", err)
	}
	return pt, nil
}

var errBadPoint = usagef("want X,Y in mm, e.g. 50.8,76.2")
