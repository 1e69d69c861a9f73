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
