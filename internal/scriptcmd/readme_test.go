package scriptcmd

import (
	"fmt"
	"testing"
)

const sampleREADME = "# x\n\nprose `not an item`\n\n## Programs\n- `tool ARGS...`: the real main\n\n" +
	"## Commands\n- `copytree SRC DST`: copies\n- `fakemodel PROVIDER REPLY...`: serves\n  continued\n\n" +
	"## Conditions\n- `[kicad]`: kicad-cli is installed\n\n## Environment\n- `$FIXTURE`: the fixture\n- `$A`, `$B`: letters\n"

func TestReadScriptREADME(t *testing.T) {
	got := fmt.Sprint(ReadScriptREADME(sampleREADME))
	want := "map[Commands:[copytree fakemodel] Conditions:[kicad] Environment:[FIXTURE A B] Programs:[tool]]"
	if got != want {
		t.Errorf("ReadScriptREADME = %s, want %s", got, want)
	}
}

// TestDiffScriptREADME proves the README check fails on a registered name
// the README lacks, a listed name nobody registers, and an unknown section.
func TestDiffScriptREADME(t *testing.T) {
	listed := ReadScriptREADME(sampleREADME)
	tests := []struct {
		name       string
		registered map[string][]string
		extra      string
		want       string
	}{
		{name: "in step", registered: map[string][]string{"Programs": {"tool"}, "Commands": {"fakemodel", "copytree"}, "Conditions": {"kicad"}, "Environment": {"FIXTURE", "A", "B"}}, want: "[]"},
		{name: "a command missing from the README", registered: map[string][]string{"Programs": {"tool"}, "Commands": {"fakemodel", "copytree", "waitfile"}, "Conditions": {"kicad"}, "Environment": {"FIXTURE", "A", "B"}},
			want: "[Commands: waitfile is registered but missing from the README]"},
		{name: "a listed condition not registered", registered: map[string][]string{"Programs": {"tool"}, "Commands": {"fakemodel", "copytree"}, "Environment": {"FIXTURE", "A", "B"}},
			want: "[Conditions: the README lists kicad, which is not registered]"},
		{name: "an unknown section", registered: map[string][]string{"Programs": {"tool"}, "Commands": {"fakemodel", "copytree"}, "Conditions": {"kicad"}, "Environment": {"FIXTURE", "A", "B"}},
			extra: "\n## Helpers\n- `x`\n", want: `[the README's section "Helpers" is none of Programs, Commands, Conditions, Environment]`},
	}
	for _, tc := range tests {
		l := listed
		if tc.extra != "" {
			l = ReadScriptREADME(sampleREADME + tc.extra)
		}
		if got := fmt.Sprint(DiffScriptREADME(l, tc.registered)); got != tc.want {
			t.Errorf("%s: DiffScriptREADME = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestEnvNames(t *testing.T) {
	if got := fmt.Sprint(EnvNames([]string{"HOME=/h", "A=1=2", "HOME=/other"})); got != "[A HOME]" {
		t.Errorf("EnvNames = %s", got)
	}
}
