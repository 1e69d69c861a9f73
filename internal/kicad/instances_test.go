package kicad

import (
	"slices"
	"testing"
)

func TestPickInstance(t *testing.T) {
	type entry struct{ project, path, ref string }
	key := func(e *entry) (string, string) { return e.project, e.path }
	const root = "r00t"
	for _, c := range []struct {
		name    string
		entries []entry
		sheet   string
		want    string // the picked entry's ref, "" for none
	}{
		{"own root entry", []entry{{"proj", "/r00t", "R1"}}, "/", "R1"},
		{"own sub-sheet entry", []entry{{"proj", "/r00t", "R1"}, {"proj", "/r00t/s1", "R101"}}, "/s1/", "R101"},
		{"foreign project only", []entry{{"other", "/0ther", "Q1"}}, "/", ""},
		{"foreign entries beside own", []entry{{"other", "/0ther/a", "R5"}, {"other", "/0ther/b", "R105"}, {"proj", "/r00t", "R18"}}, "/", "R18"},
		{"renamed project on own path: own name wins", []entry{{"old", "/r00t", "R33"}, {"proj", "/r00t", "R3"}}, "/", "R3"},
		{"renamed project alone on own path counts", []entry{{"old", "/r00t", "R33"}}, "/", "R33"},
		{"path prefix is not a match", []entry{{"proj", "/r00t/s1/s2", "R7"}}, "/s1/", ""},
		{"no entries", nil, "/", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PickInstance(c.entries, key, "proj", root, c.sheet)
			switch {
			case got == nil && c.want != "":
				t.Errorf("picked none, want %s", c.want)
			case got != nil && got.ref != c.want:
				t.Errorf("picked %s, want %q", got.ref, c.want)
			}
		})
	}
}

func TestInstancePaths(t *testing.T) {
	if got := InstancePath("r", "/"); got != "/r" {
		t.Errorf("root instance path %q", got)
	}
	if got := InstancePath("r", "/a/b/"); got != "/r/a/b" {
		t.Errorf("sub-sheet instance path %q", got)
	}
	if got := LegacyInstancePath("/", "u"); got != "/u" {
		t.Errorf("legacy root path %q", got)
	}
	if got := LegacyInstancePath("/a/", "u"); got != "/a/u" {
		t.Errorf("legacy sub-sheet path %q", got)
	}
	if got := ProjectName("/x/my board.kicad_sch"); got != "my board" {
		t.Errorf("project name %q", got)
	}
}

// The read model ignores other projects' leftover entries (testdata/foreign).
func TestLoadSchematicForeignInstances(t *testing.T) {
	s, err := LoadSchematic("testdata/foreign/foreign.kicad_sch")
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for _, p := range s.Parts {
		refs = append(refs, p.Refdes)
	}
	if want := []string{"C1", "Q1", "R2", "R3", "R18"}; !slices.Equal(refs, want) {
		t.Errorf("parts %v, want %v", refs, want)
	}
}
