package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"copperhead/internal/datasheets"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// Read limits per call. They keep one read of a large board from filling the
// context window; the model pages with start_line.
const (
	maxReadLines    = 2000
	maxReadBytes    = 200_000
	maxLineBytes    = 4000 // one line longer than this is shown cut
	maxListEntries  = 500  // entries of one folder listing
	binarySniffSize = 8000 // bytes checked for NUL to call a file binary
)

type readFileArgs struct {
	Path      string `json:"path" desc:"file, or folder to list, relative to the repository root, e.g. docs/SPEC.md"`
	StartLine int    `json:"start_line,omitempty" desc:"first line to show, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" desc:"last line to show, inclusive (default: as many as fit, up to 2000 lines)"`
}

var readFileTool = newTool("read_file", readFile)

func readFile(ctx context.Context, s *tool.Session, a readFileArgs) (tool.Result, error) {
	p, err := s.ResolvePath(a.Path)
	if err != nil {
		return tool.Errorf("read_file: %v", err), nil
	}
	fi, err := os.Stat(p.Abs)
	if err != nil {
		return tool.Errorf("read_file: %s does not exist", p.Rel), nil
	}
	if fi.IsDir() {
		return listFolder(p)
	}
	data, err := os.ReadFile(p.Abs)
	if err != nil {
		return tool.Errorf("read_file: %s", s.Scrub(err.Error())), nil
	}
	if isBinary(data) {
		return tool.Errorf("read_file: %s is a binary file (%d bytes); read_file shows text only", p.Rel, len(data)), nil
	}
	text := numberedLines(p.Rel, data, a.StartLine, a.EndLine)
	if strings.HasPrefix(p.Rel, datasheets.DirName+"/") {
		// A cached datasheet is third-party text (design D10): fenced as
		// data, like every research result, whichever tool shows it.
		header, body, _ := strings.Cut(text, "\n")
		text = header + "\n" + untrusted("the datasheet cache ("+p.Rel+")", body)
	}
	return tool.Result{Text: text}, nil
}

// numberedLines renders lines [start, end] of data, capped at maxReadLines
// and maxReadBytes, with a header saying what was shown and how to go on.
func numberedLines(rel string, data []byte, start, end int) string {
	text := string(data)
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if total == 0 {
		return rel + ": empty file"
	}
	if start < 1 {
		start = 1
	}
	if start > total {
		return fmt.Sprintf("%s has %s; start_line %d is past the end", rel, textfmt.CountForms(total, "line", "lines"), start)
	}
	if end < start || end > total {
		end = total
	}
	end = min(end, start+maxReadLines-1)
	var body strings.Builder
	last := start - 1
	for i := start; i <= end; i++ {
		line := strings.TrimSuffix(lines[i-1], "\n")
		if len(line) > maxLineBytes {
			line = textfmt.ClipBytes(line, maxLineBytes) + fmt.Sprintf(" [line cut: %d bytes]", len(line))
		}
		entry := fmt.Sprintf("%d\t%s\n", i, line)
		if body.Len()+len(entry) > maxReadBytes && i > start {
			break
		}
		body.WriteString(entry)
		last = i
	}
	header := fmt.Sprintf("%s: lines %d-%d of %d", rel, start, last, total)
	if last < total {
		header += fmt.Sprintf(" (more: read_file with start_line=%d)", last+1)
	}
	return header + "\n" + body.String()
}

// listFolder lists a folder's entries, folders with a trailing slash; .git
// and refused entries are left out.
func listFolder(p tool.RepoPath) (tool.Result, error) {
	entries, err := os.ReadDir(p.Abs)
	if err != nil {
		return tool.Errorf("read_file: list %s: %v", p.Rel, err), nil
	}
	var b strings.Builder
	n := 0
	for _, e := range entries {
		rel := path.Join(p.Rel, e.Name())
		if tool.Refusal(rel) != "" {
			continue
		}
		if n++; n > maxListEntries {
			continue
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	header := fmt.Sprintf("%s/ (folder, %s)", strings.TrimSuffix(p.Rel, "/"), textfmt.CountForms(n, "entry", "entries"))
	if p.Rel == "." {
		header = fmt.Sprintf("repository root (folder, %s)", textfmt.CountForms(n, "entry", "entries"))
	}
	if n > maxListEntries {
		header += fmt.Sprintf("; first %d shown", maxListEntries)
	}
	return tool.Result{Text: header + "\n" + b.String()}, nil
}

// isBinary reports whether data looks like a binary file: a NUL byte near
// the start, the same test git and grep use.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniffSize)], 0) >= 0
}
