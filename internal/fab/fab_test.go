package fab

import "testing"

// TestRulesInsideLimits: every value a draft routes with is at or above
// the house's minimum, and a via's ring is at least the minimum ring.
func TestRulesInsideLimits(t *testing.T) {
	for _, name := range Names() {
		r := Houses[name].Rules
		checks := []struct {
			what      string
			got, min_ float64
		}{
			{"clearance", r.Clearance, r.MinClearance},
			{"track width", r.TrackWidth, r.MinTrackWidth},
			{"power width", r.PowerWidth, r.TrackWidth},
			{"via diameter", r.ViaDiam, r.MinViaDiameter},
			{"via drill", r.ViaDrill, r.MinViaDrill},
			{"via ring", (r.ViaDiam - r.ViaDrill) / 2, r.MinAnnularRing},
			{"min hole", r.MinViaDrill, r.MinThroughHole},
		}
		for _, c := range checks {
			if c.got < c.min_-1e-9 || c.got <= 0 {
				t.Errorf("%s: %s %.3f below the minimum %.3f", name, c.what, c.got, c.min_)
			}
		}
		if Houses[name].Name != name || Houses[name].Source == "" {
			t.Errorf("%s: name %q, source %q", name, Houses[name].Name, Houses[name].Source)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"", "jlcpcb", ""},
		{"PCBWay", "pcbway", ""},
		{"oshpark", "", `unknown fab "oshpark": want one of jlcpcb, pcbway`},
	}
	for _, tc := range tests {
		h, err := Lookup(tc.in)
		switch {
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("Lookup(%q) error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || h.Name != tc.want):
			t.Errorf("Lookup(%q) = %q, %v; want %q", tc.in, h.Name, err, tc.want)
		}
	}
}
