package layout

import (
	"bytes"
	"strings"
	"testing"

	"copperhead/internal/config"
	"copperhead/internal/design"
)

// TestHeadingMatchesDesign holds this package's heading and placeholder to
// the ones init scaffolds.
func TestHeadingMatchesDesign(t *testing.T) {
	if DraftQualityHeading != design.DraftQualityHeading {
		t.Errorf("DraftQualityHeading = %q, design says %q", DraftQualityHeading, design.DraftQualityHeading)
	}
	if draftQualityPlaceholder != design.DraftQualityPlaceholder {
		t.Errorf("placeholder = %q, design says %q", draftQualityPlaceholder, design.DraftQualityPlaceholder)
	}
	md := design.GenerateLayout("x", config.DefaultConfig())
	if HasDraftQuality(md) {
		t.Error("init's LAYOUT.md counts as assessed")
	}
	if got := ParseIntent(md); got.Width != 0 {
		t.Errorf("init's LAYOUT.md states a size: %+v", got)
	}
}

func TestParseIntent(t *testing.T) {
	tests := []struct {
		name string
		md   string
		w, h float64
	}{
		{"board line", "## Board outline\n\n- Board: 40 x 25 mm, 2 layers\n", 40, 25},
		{"no spaces", "Board 40x25mm\n", 40, 25},
		{"mm twice", "- PCB size: 50.5 mm x 30 mm\n", 50.5, 30},
		{"times sign", "## Board outline\n- 100 × 80 mm\n", 100, 80},
		{"outline section without board word", "## Board outline\n\n- 60 x 40 mm, 1.6 mm FR-4\n", 60, 40},
		{"part size elsewhere is not the board", "## Placement\n- U1 is 18 x 25.5 mm\n", 0, 0},
		{"TODO lines are not intent", "## Board outline\n- TODO(human): board 40 x 25 mm?\n", 0, 0},
		{"draft quality is ignored", "## Draft quality\n- Outline: 82 x 61 mm rectangle\n", 0, 0},
		{"after draft quality", "## Draft quality\nOutline 82 x 61 mm\n## Board outline\nBoard: 30 x 20 mm\n", 30, 20},
		{"too small", "Board: 2 x 2 mm\n", 0, 0},
		{"too large", "Board: 2000 x 20 mm\n", 0, 0},
		{"empty", "", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseIntent([]byte(tc.md))
			if got.Width != tc.w || got.Height != tc.h {
				t.Errorf("ParseIntent = %+v, want %v x %v", got, tc.w, tc.h)
			}
		})
	}
}

func TestReplaceSection(t *testing.T) {
	tests := []struct {
		name, md, want string
	}{
		{"replace middle", "# T\n\n## A\n\nold\n\n## Draft quality\n\nold body\n\n## Z\n\nz\n",
			"# T\n\n## A\n\nold\n\n## Draft quality\n\nnew\n\n## Z\n\nz\n"},
		{"replace last", "# T\n\n## Draft quality\n\nold\n", "# T\n\n## Draft quality\n\nnew\n"},
		{"keeps subsections", "## Draft quality\nold\n### detail\nx\n## Next\n", "## Draft quality\n\nnew\n\n## Next\n"},
		{"append", "# T\n\nintro\n", "# T\n\nintro\n\n## Draft quality\n\nnew\n"},
		{"append no newline", "# T", "# T\n\n## Draft quality\n\nnew\n"},
		{"empty", "", "## Draft quality\n\nnew\n"},
		{"heading text must match exactly", "## Draft quality notes\nx\n", "## Draft quality notes\nx\n\n## Draft quality\n\nnew\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ReplaceSection([]byte(tc.md), DraftQualityHeading, "new")
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			if again := ReplaceSection(got, DraftQualityHeading, "new"); !bytes.Equal(again, got) {
				t.Errorf("not idempotent:\n%q\n%q", got, again)
			}
		})
	}
}

func TestHasDraftQuality(t *testing.T) {
	tests := []struct {
		md   string
		want bool
	}{
		{"## Draft quality\n\nWhat is fine:\n- DRC clean\n", true},
		{"## Draft quality\n\n" + draftQualityPlaceholder + " more words\n", false},
		{"## Draft quality\n\n## Next\nbody\n", false},
		{"## Other\nbody\n", false},
		{"", false},
		{"   ## Draft quality\n\nWhat is fine:\n- DRC clean\n", true}, // up to 3 spaces: still a heading
		{"    ## Draft quality\n\nWhat is fine:\n", false},            // 4: a code block
	}
	for _, tc := range tests {
		if got := HasDraftQuality([]byte(tc.md)); got != tc.want {
			t.Errorf("HasDraftQuality(%q) = %v, want %v", tc.md, got, tc.want)
		}
	}
}

// TestReplaceSectionIndentedHeading: a heading indented by up to three
// spaces is the section (replaced in place, not appended again), as every
// Markdown reader takes it (a fuzz finding: " ## Draft quality").
func TestReplaceSectionIndentedHeading(t *testing.T) {
	md := []byte("# T\n\n  ## Draft quality\n\nold\n\n## Next\nbody\n")
	got := string(ReplaceSection(md, DraftQualityHeading, "new"))
	if want := "# T\n\n## Draft quality\n\nnew\n\n## Next\nbody\n"; got != want {
		t.Errorf("ReplaceSection =\n%q\nwant\n%q", got, want)
	}
}

func FuzzLayoutDoc(f *testing.F) {
	f.Add([]byte("# T\n\n## Board outline\n- Board: 40 x 25 mm\n\n## Draft quality\n\nold\n"))
	f.Add([]byte("## Draft quality\r\n\r\nx\r\n## Next\r\n"))
	f.Add([]byte("Board 1e3 x 2 mm ## Draft quality"))
	f.Fuzz(func(t *testing.T, md []byte) {
		in := ParseIntent(md)
		if in.Width != 0 && (in.Width < minBoardMM || in.Height > maxBoardMM) {
			t.Fatalf("size out of range: %+v", in)
		}
		out := ReplaceSection(md, DraftQualityHeading, "What is fine:\n- x")
		if !HasDraftQuality(out) {
			t.Fatalf("no Draft quality after ReplaceSection:\n%q", out)
		}
		if again := ReplaceSection(out, DraftQualityHeading, "What is fine:\n- x"); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
		if !strings.Contains(string(out), "## "+DraftQualityHeading) {
			t.Fatal("heading missing")
		}
	})
}
