package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"copperhead/internal/atomicfile"
	"copperhead/internal/config"
	"copperhead/internal/datasheets"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// maxMatchLines caps the line numbers listed for an ambiguous anchor.
const maxMatchLines = 10

type editFileArgs struct {
	Path       string `json:"path" desc:"file to edit, relative to the repository root"`
	OldString  string `json:"old_string" desc:"exact text to replace, copied from the file; unique unless replace_all"`
	NewString  string `json:"new_string" desc:"text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" desc:"replace every occurrence instead of requiring exactly one"`
}

var editFileTool = newTool("edit_file", editFile, tool.Mutating)

func editFile(ctx context.Context, s *tool.Session, a editFileArgs) (tool.Result, error) {
	p, err := s.ResolvePath(a.Path)
	if err != nil {
		return tool.Errorf("edit_file: %v", err), nil
	}
	if why := writeRefusal(p.Rel); why != "" {
		return tool.Errorf("edit_file: %s", why), nil
	}
	if why := s.KiCadFileRefusal("edit_file", p.Rel); why != "" {
		return tool.Errorf("%s", why), nil
	}
	fi, err := os.Stat(p.Abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return tool.Errorf("edit_file: %s does not exist; create new files with write_file", p.Rel), nil
	case err != nil:
		return tool.Errorf("edit_file: %s", s.Scrub(err.Error())), nil
	case fi.IsDir():
		return tool.Errorf("edit_file: %s is a folder", p.Rel), nil
	}
	if a.OldString == "" {
		return tool.Errorf("edit_file: old_string is empty: give the exact text to replace, with enough surrounding lines to be unique"), nil
	}
	if a.OldString == a.NewString {
		return tool.Errorf("edit_file: old_string and new_string are identical: nothing would change"), nil
	}
	data, err := os.ReadFile(p.Abs)
	if err != nil {
		return tool.Errorf("edit_file: %s", s.Scrub(err.Error())), nil
	}
	old := string(data)
	n := strings.Count(old, a.OldString)
	switch {
	case n == 0:
		msg := fmt.Sprintf("edit_file: old_string not found in %s; nothing changed.", p.Rel)
		if line := fuzzyLine(old, a.OldString); line > 0 {
			msg += fmt.Sprintf(" It does match at line %d if whitespace is ignored: copy the text exactly as read_file shows it (KiCad files indent with tabs, not spaces).", line)
		} else {
			msg += " Read the file (or search for a distinctive part of it) and copy the text exactly."
		}
		return tool.Errorf("%s", msg), nil
	case n > 1 && !a.ReplaceAll:
		return tool.Errorf("edit_file: old_string matches %d times in %s (at lines %s); nothing changed. Include more surrounding context (neighbouring lines, the symbol's uuid or reference) to make it unique, or set replace_all to change all %d.",
			n, p.Rel, matchLines(old, a.OldString), n), nil
	}
	edited := strings.ReplaceAll(old, a.OldString, a.NewString)
	lines := matchLines(old, a.OldString)

	// The guard's "before" probe must see the file as it is on disk now.
	var before bool
	var beforeWhy string
	if tool.Guarded(p.Rel) {
		if before, beforeWhy, err = s.Loads(ctx, p.Rel, p.Abs, data); err != nil {
			return tool.Result{}, err
		}
	}
	if err := s.WriteFile(p.Abs, []byte(edited)); err != nil {
		return tool.Errorf("edit_file: %s", s.Scrub(err.Error())), nil
	}
	at := "at lines"
	if n == 1 {
		at = "at line"
	}
	msg := fmt.Sprintf("edited %s: replaced %s (%s %s).", p.Rel, textfmt.CountForms(n, "occurrence", "occurrences"), at, lines)
	if !tool.Guarded(p.Rel) {
		return tool.Result{Text: msg, Changed: []string{p.Rel}}, nil
	}

	after, afterWhy, err := s.Loads(ctx, p.Rel, p.Abs, []byte(edited))
	switch {
	case errors.Is(err, tool.ErrProbeUnfinished):
		return tool.Result{Text: msg + " (" + err.Error() + "; the edit is kept unverified)", Changed: []string{p.Rel}}, nil
	case err != nil:
		return tool.Result{Text: msg, Changed: []string{p.Rel}}, err
	case before && !after:
		if werr := atomicfile.Write(p.Abs, data, 0o644); werr != nil {
			return tool.Result{Changed: []string{p.Rel}}, fmt.Errorf("revert %s after a breaking edit: %w", p.Rel, werr)
		}
		return tool.Errorf("edit_file: edit REVERTED: it made %s unloadable, so the file is back to its exact previous bytes. The loader said: %s\nFix the edit (balanced parentheses, KiCad's own tokens, quoted strings) and try again.",
			p.Rel, afterWhy), nil
	case !before && !after:
		msg += " The file did not load before this edit and still does not (kept, so you can repair it): " + afterWhy
	case !before && after:
		msg += " The file did not load before this edit (" + beforeWhy + "); it loads now."
	}
	return tool.Result{Text: msg, Changed: []string{p.Rel}}, nil
}

// writeRefusal says why edit_file and write_file must not change rel even
// though it is inside the repository, or "". Each path has its own tool:
// the constraint registry is written with its doc in one record_constraint
// call (dual write, design D8), and the proposal is rewritten only through
// propose_change, which locks the edit tools until it validates again.
func writeRefusal(rel string) string {
	switch {
	case rel == config.ConstraintsPath:
		return rel + " is written only by record_constraint, which also updates the doc stating the constraint"
	case rel == changesDir || strings.HasPrefix(rel, changesDir+"/"):
		return "change proposals under " + changesDir + "/ are written only by propose_change (which re-validates them)"
	case rel == datasheets.DirName || strings.HasPrefix(rel, datasheets.DirName+"/"):
		// Cached datasheets are evidence that citations are checked
		// against: text the model wrote there would be a forged source.
		return "the datasheet cache " + datasheets.DirName + "/ is written only by fetch_datasheet: evidence comes from the document, never from an edit"
	case rel == ".":
		return "the repository root is a folder"
	}
	return ""
}

// matchLines lists the 1-based line numbers where needle starts in text,
// capped at maxMatchLines.
func matchLines(text, needle string) string {
	var out []string
	off := 0
	for len(out) < maxMatchLines {
		i := strings.Index(text[off:], needle)
		if i < 0 {
			break
		}
		out = append(out, fmt.Sprint(strings.Count(text[:off+i], "\n")+1))
		off += i + max(len(needle), 1)
	}
	if n := strings.Count(text, needle); n > len(out) {
		out = append(out, fmt.Sprintf("… %d more", n-len(out)))
	}
	return strings.Join(out, ", ")
}

// fuzzyLine finds needle in text with every run of whitespace treated as
// one space, and returns the line where it starts, or 0. It turns the most
// common anchor failure (spaces typed where the file has tabs) into a
// pointer instead of a guess.
func fuzzyLine(text, needle string) int {
	nn, _ := squeeze(needle)
	nn = strings.TrimSpace(nn)
	if nn == "" {
		return 0
	}
	nt, offs := squeeze(text)
	i := strings.Index(nt, nn)
	if i < 0 {
		return 0
	}
	return strings.Count(text[:offs[i]], "\n") + 1
}

// squeeze collapses whitespace runs to one space and maps each output byte
// to its offset in s.
func squeeze(s string) (string, []int) {
	var b strings.Builder
	offs := make([]int, 0, len(s))
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				offs = append(offs, i)
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
		for range len(string(r)) {
			offs = append(offs, i)
		}
	}
	return b.String(), offs
}
