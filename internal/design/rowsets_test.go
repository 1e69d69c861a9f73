package design

import (
	"strings"
	"testing"
)

func TestAddRemoveRows(t *testing.T) {
	doc := "# BOM\n\n| Refdes | Value | Footprint | MPN | Rationale |\n| --- | --- | --- | --- | --- |\n" +
		"| R1 | 10k | R_0603 | UNVERIFIED | pull-up, kept by hand |\n" +
		"| R2 | 1k | R_0603 | UNVERIFIED | LED current |\n\nTrailing prose.\n"
	row := func(ref, val string) map[string]string {
		return map[string]string{"refdes": ref, "value": val, "footprint": "R_0603", "mpn": "UNVERIFIED", "rationale": "TODO: why this part"}
	}
	before := rowSet{"R1": row("R1", "10k"), "R2": row("R2", "1k")}
	after := rowSet{"R1": row("R1", "10k"), "R11": row("R11", "4.7k")}
	got, changed := addRemoveRows([]byte(doc), []string{"refdes"}, before, after)
	if !changed {
		t.Fatal("no change reported")
	}
	want := "# BOM\n\n| Refdes | Value | Footprint | MPN | Rationale |\n| --- | --- | --- | --- | --- |\n" +
		"| R1 | 10k | R_0603 | UNVERIFIED | pull-up, kept by hand |\n" +
		"| R11 | 4.7k | R_0603 | UNVERIFIED | TODO: why this part |\n\nTrailing prose.\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Nothing added or removed: the doc is returned untouched.
	same, changed := addRemoveRows([]byte(doc), []string{"refdes"}, before, before)
	if changed || string(same) != doc {
		t.Error("an unchanged row set rewrote the doc")
	}
	// A table that ends the file without a newline still gets its row.
	end := strings.TrimSuffix(strings.Split(doc, "\n\nTrailing")[0], "\n")
	got, _ = addRemoveRows([]byte(end), []string{"refdes"}, before, after)
	if !strings.HasSuffix(string(got), "| R11 | 4.7k | R_0603 | UNVERIFIED | TODO: why this part |\n") {
		t.Errorf("end of file: %q", got)
	}
}

func TestUpdatePinNotes(t *testing.T) {
	rows := func(nets ...string) []PinoutRow {
		return []PinoutRow{
			{Refdes: "U1", Pin: "4", Name: "IO4", Net: nets[0]},
			{Refdes: "U1", Pin: "5", Name: "IO5", Net: nets[1]},
			{Refdes: "U2", Pin: "5", Name: "IO5", Net: nets[2]},
		}
	}
	doc := "- RTC pins:\n  On U1: pin 4 IO4 (KEY_DIT), pin 5 IO5 (KEY_DAH).\n  On U2: pin 5 IO5 (KEY_DAH).\n" +
		"Hand-written: pin 5 IO5 (KEY_DAH) stays.\n"
	cases := []struct {
		name          string
		before, after []PinoutRow
		want          string
		changed       bool
	}{
		{"rename on U1 only", rows("KEY_DIT", "KEY_DAH", "KEY_DAH"), rows("KEY_DIT", "KEY_DASH", "KEY_DAH"),
			"- RTC pins:\n  On U1: pin 4 IO4 (KEY_DIT), pin 5 IO5 (KEY_DASH).\n  On U2: pin 5 IO5 (KEY_DAH).\nHand-written: pin 5 IO5 (KEY_DAH) stays.\n", true},
		{"swap", rows("KEY_DIT", "KEY_DAH", "KEY_DAH"), rows("KEY_DAH", "KEY_DIT", "KEY_DAH"),
			"- RTC pins:\n  On U1: pin 4 IO4 (KEY_DAH), pin 5 IO5 (KEY_DIT).\n  On U2: pin 5 IO5 (KEY_DAH).\nHand-written: pin 5 IO5 (KEY_DAH) stays.\n", true},
		{"no change", rows("KEY_DIT", "KEY_DAH", "KEY_DAH"), rows("KEY_DIT", "KEY_DAH", "KEY_DAH"), doc, false},
		{"to NC", rows("KEY_DIT", "KEY_DAH", "KEY_DAH"), rows("KEY_DIT", "KEY_DAH", "NC"),
			"- RTC pins:\n  On U1: pin 4 IO4 (KEY_DIT), pin 5 IO5 (KEY_DAH).\n  On U2: pin 5 IO5 (NC).\nHand-written: pin 5 IO5 (KEY_DAH) stays.\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, changed := updatePinNotes([]byte(doc), c.before, c.after)
			if string(got) != c.want || changed != c.changed {
				t.Errorf("got %v\n%s\nwant %v\n%s", changed, got, c.changed, c.want)
			}
		})
	}
}
