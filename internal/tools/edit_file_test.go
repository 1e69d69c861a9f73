package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"copperhead/internal/tool"
)

const schRel = "hardware/open-telegraph.kicad_sch"

func TestEditFileAnchors(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	orig := readRepo(t, s, schRel)

	// Not unique: says how many and where, changes nothing.
	res := call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": `(global_label "KEY_DAH"`, "new_string": `(global_label "KEY_DASH"`})
	mustFail(t, res, "matches 4 times", "3071, 3915, 4118, 4257", "more surrounding context", "replace_all")
	if readRepo(t, s, schRel) != orig || len(s.Touched) != 0 || s.KiCadEditSeq != 0 {
		t.Fatal("an ambiguous edit changed something")
	}

	// Not found, but present with other whitespace: points at the line.
	res = call(t, s, "edit_file", map[string]any{"path": schRel,
		"old_string": "(property \"Reference\" \"R7\"\n    (at 65.532 88.9 90)", "new_string": "x"})
	mustFail(t, res, "not found", "line 2511", "tabs")
	res = call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": "nowhere to be found", "new_string": "x"})
	mustFail(t, res, "not found", "copy the text exactly")

	// replace_all renames every occurrence; the hooks open ERC and drift.
	res = mustOK(t, call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": `(global_label "KEY_DAH"`, "new_string": `(global_label "KEY_DASH"`, "replace_all": true}))
	if !strings.Contains(res.Text, "replaced 4 occurrences") || !strings.Contains(res.Text, "Ledger: opened erc for "+schRel) {
		t.Errorf("replace_all result: %s", res.Text)
	}
	got := readRepo(t, s, schRel)
	if strings.Count(got, `"KEY_DASH"`) != 4 || strings.Contains(got, `(global_label "KEY_DAH"`) {
		t.Error("replace_all did not rename every label")
	}
	if len(got) != len(orig)+4 {
		t.Errorf("edit was not surgical: %d -> %d bytes", len(orig), len(got))
	}
	if s.KiCadEditSeq != 1 || s.SchematicEditSeq != 1 || len(s.Touched) != 1 || s.Touched[0] != schRel {
		t.Errorf("seq %d/%d touched %v", s.KiCadEditSeq, s.SchematicEditSeq, s.Touched)
	}
	if len(s.Ledger.Pending()) != 2 {
		t.Errorf("pending = %v", s.Ledger.Pending())
	}

	// Unique anchor.
	mustOK(t, call(t, s, "edit_file", map[string]any{"path": "docs/SPEC.md", "old_string": "- sleep_current_uA: 25", "new_string": "- sleep_current_uA: 24"}))
	if !strings.Contains(readRepo(t, s, "docs/SPEC.md"), "- sleep_current_uA: 24") {
		t.Error("doc edit not written")
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": schRel, "old_string": "", "new_string": "x"}, "old_string is empty"},
		{map[string]any{"path": schRel, "old_string": "a", "new_string": "a"}, "identical"},
		{map[string]any{"path": "docs/NOPE.md", "old_string": "a", "new_string": "b"}, "with write_file"},
		{map[string]any{"path": "docs", "old_string": "a", "new_string": "b"}, "is a folder"},
		{map[string]any{"path": ".copperhead/constraints.json", "old_string": "25", "new_string": "30"}, "record_constraint"},
		{map[string]any{"path": "openspec/changes/x/proposal.md", "old_string": "a", "new_string": "b"}, "propose_change"},
	} {
		mustFail(t, call(t, s, "edit_file", tc.args), tc.want)
	}
}

func TestWriteFile(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	res := mustOK(t, call(t, s, "write_file", map[string]any{"path": "docs/POWER.md", "content": "# Power\n\nbudget\n"}))
	if !strings.Contains(res.Text, "created docs/POWER.md (3 lines") || !strings.Contains(res.Text, "drift for docs/POWER.md") {
		t.Errorf("result: %s", res.Text)
	}
	mustOK(t, call(t, s, "write_file", map[string]any{"path": "firmware/src/pins.h", "content": "#pragma once\n"}))
	if readRepo(t, s, "firmware/src/pins.h") != "#pragma once\n" {
		t.Error("nested file not written")
	}
	mustFail(t, call(t, s, "write_file", map[string]any{"path": "docs/SPEC.md", "content": "x"}), "already exists", "edit_file")
	mustFail(t, call(t, s, "write_file", map[string]any{"path": "hardware/new.kicad_sch", "content": "(kicad_sch)"}), "refuses KiCad files")
	mustFail(t, call(t, s, "write_file", map[string]any{"path": "hardware/new.kicad_sym", "content": "x"}), "refuses KiCad files")
	mustFail(t, call(t, s, "write_file", map[string]any{"path": ".copperhead/constraints.json", "content": "{}"}), "record_constraint")
}

// TestEditGuard is AC-15.20 - AC-15.22 with the real kicad-cli.
func TestEditGuard(t *testing.T) {
	s := toolSession(t, true)
	s.Validated = true
	pcbRel := "hardware/open-telegraph.kicad_pcb"
	proRel := "hardware/open-telegraph.kicad_pro"
	tests := []struct {
		name, path, old, new string
		reverted             bool
		want                 []string
	}{
		{"syntax break in a schematic", schRel, `(property "Reference" "R7"`, `(property "Reference" "R7" ((`, true,
			[]string{"REVERTED", "Failed to load schematic", "our parser: " + schRel + ":", "not closed"}},
		{"unknown token in a schematic", schRel, "(uuid \"c04c3aa5-2ad8-49e2-a362-552898743bd4\")", "(uuid \"c04c3aa5-2ad8-49e2-a362-552898743bd4\")\n\t\t(no_such_token 1)", true,
			[]string{"REVERTED", "Failed to load schematic"}},
		{"unknown token in a board", pcbRel, "(kicad_pcb", "(kicad_pcb (no_such_token 1)", true,
			[]string{"REVERTED", "Failed to load board"}},
		{"valid schematic edit", schRel, `(property "Value" "10k"
			(at 63.5 88.9 90)`, `(property "Value" "1M"
			(at 63.5 88.9 90)`, false, []string{"edited " + schRel}},
		{"project file is never probed", proRel, `"board": {`, `"board": {{{`, false, []string{"edited " + proRel}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := readRepo(t, s, tc.path)
			touched := len(s.Touched)
			res := call(t, s, "edit_file", map[string]any{"path": tc.path, "old_string": tc.old, "new_string": tc.new})
			if res.IsError != tc.reverted {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result does not mention %q:\n%s", w, res.Text)
				}
			}
			after := readRepo(t, s, tc.path)
			if tc.reverted {
				if after != before {
					t.Fatal("file not restored byte for byte")
				}
				if len(s.Touched) != touched {
					t.Errorf("a reverted edit was recorded as touched: %v", s.Touched)
				}
				if strings.Contains(res.Text, s.Repo) {
					t.Errorf("result leaks the absolute repo path: %s", res.Text)
				}
			} else if after == before {
				t.Fatal("edit not written")
			}
		})
	}
	if _, open := s.Ledger.Find(tool.OblERC, proRel); open {
		t.Error("a .kicad_pro edit opened an ERC obligation")
	}
}

// TestEditGuardRepair: a file that does not load keeps every edit, so the
// model can repair it (AC-15.22).
func TestEditGuardRepair(t *testing.T) {
	s := toolSession(t, true)
	s.Validated = true
	p := filepath.Join(s.Repo, schRel)
	orig := readRepo(t, s, schRel)
	broken := strings.Replace(orig, `(property "Reference" "R7"`, `(property "Reference" "R7" ((`, 1)
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustOK(t, call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": "\"Value\" \"10k\"\n\t\t\t(at 63.5 88.9 90)", "new_string": "\"Value\" \"12k\"\n\t\t\t(at 63.5 88.9 90)"}))
	if !strings.Contains(res.Text, "did not load before this edit and still does not") {
		t.Errorf("result: %s", res.Text)
	}
	res = mustOK(t, call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": `"R7" ((`, "new_string": `"R7"`}))
	if !strings.Contains(res.Text, "it loads now") {
		t.Errorf("repair result: %s", res.Text)
	}
	// The repaired file is loadable again, so a new break is reverted.
	mustFail(t, call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": `(property "Reference" "R7"`, "new_string": `(property "Reference" "R7" ((`}), "REVERTED")
}

// TestEditGuardParserOnly: without kicad-cli our parser still guards.
func TestEditGuardParserOnly(t *testing.T) {
	s := toolSession(t, false)
	s.Validated = true
	orig := readRepo(t, s, schRel)
	res := call(t, s, "edit_file", map[string]any{"path": schRel, "old_string": `(property "Reference" "R7"`, "new_string": `(property "Reference" "R7" ((`})
	mustFail(t, res, "REVERTED", "our parser")
	if readRepo(t, s, schRel) != orig {
		t.Fatal("not reverted")
	}
}
