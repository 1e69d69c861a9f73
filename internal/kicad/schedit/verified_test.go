package schedit

import "testing"

// loadVerified loads root for editing with KiCad's netlist attached, as the
// writers do before planning.
func loadVerified(t *testing.T, root string) *Design {
	t.Helper()
	d := mustLoad(t, root)
	d.Netlist = netlist(t, root)
	return d
}

// applyVerified applies p to d (loaded by loadVerified), exports KiCad's
// netlist of the written files and fails the test unless it shows exactly
// p.Expect.
func applyVerified(t *testing.T, d *Design, p *Plan) {
	t.Helper()
	if d.Netlist == nil {
		t.Fatal("applyVerified needs a design loaded with loadVerified")
	}
	applyPlan(t, d, p)
	after := netlist(t, d.RootPath)
	if err := Verify(p.Expect, d.Netlist, after); err != nil {
		t.Fatalf("%s: %v", p.Op, err)
	}
}
