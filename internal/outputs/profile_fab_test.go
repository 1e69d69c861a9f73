package outputs

import (
	"slices"
	"testing"

	"copperhead/internal/fab"
)

// TestProfilesAreFabHouses: outputs has a Gerber recipe for exactly the
// houses internal/fab names, under the same names and labels, so
// `draft layout --fab X` and `outputs --fab X` mean one house.
func TestProfilesAreFabHouses(t *testing.T) {
	if got, want := FabNames(), fab.Names(); !slices.Equal(got, want) {
		t.Fatalf("outputs profiles %v, fab houses %v", got, want)
	}
	for name, p := range Profiles {
		if h := fab.Houses[name]; p.Name != h.Name || p.Label != h.Label {
			t.Errorf("%s: profile %q/%q, house %q/%q", name, p.Name, p.Label, h.Name, h.Label)
		}
	}
}
