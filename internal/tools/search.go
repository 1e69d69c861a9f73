package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"copperhead/internal/datasheets"
	"copperhead/internal/textfmt"
	"copperhead/internal/tool"
)

// Search limits. A net name in a board file can match thousands of lines;
// the caps keep one call's answer readable, and the answer says how many
// more there were so the model narrows instead of guessing.
const (
	maxSearchMatches = 200
	maxFileMatches   = 50
	maxSearchLine    = 300      // bytes of one matching line shown
	maxSearchFile    = 64 << 20 // larger files are skipped (and said to be)
)

// skipSearchDirs are folders that hold no design source and may be huge.
var skipSearchDirs = map[string]bool{".git": true, "node_modules": true}

type searchArgs struct {
	Pattern string `json:"pattern" desc:"RE2 regular expression matched against each line, e.g. KEY_DAH or \\(property \"Reference\" \"R7\"\\)"`
	Glob    string `json:"glob,omitempty" desc:"only search files matching this glob, e.g. *.kicad_sch, docs/*.md, hardware/**"`
}

var searchTool = newTool("search", search)

func search(ctx context.Context, s *tool.Session, a searchArgs) (tool.Result, error) {
	if a.Pattern == "" {
		return tool.Errorf("search needs a non-empty pattern (an empty one matches every line of every file): give the text you are looking for as an RE2 regex, e.g. KEY_DAH, R7, or \\(lib_id \"Device:R\"\\); to see a file, use read_file"), nil
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return tool.Errorf("search: pattern %q is not a valid RE2 regular expression: %v; escape metacharacters such as ( ) [ ] . * + ? with a backslash to match them literally", a.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: ")), nil
	}
	// Any line match is also a match of the whole file in multi-line mode,
	// so files without one are skipped before splitting them into lines.
	whole := regexp.MustCompile("(?m)" + a.Pattern)
	var glob *regexp.Regexp
	if a.Glob != "" {
		if glob, err = globRegexp(a.Glob); err != nil {
			return tool.Errorf("search: glob %q: %v", a.Glob, err), nil
		}
	}

	var out strings.Builder
	// cached collects the matches inside the datasheet cache: third-party
	// text (design D10), shown fenced as data after the repository's own.
	var cached strings.Builder
	var matches, files, skippedLarge int
	more := 0
	root := filepath.Clean(s.Repo)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder holds nothing we can show
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, _ := tool.Inside(root, p)
		if d.IsDir() {
			if p != root && (skipSearchDirs[d.Name()] || tool.Refusal(rel) != "") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || tool.Refusal(rel) != "" {
			return nil
		}
		if glob != nil && !globMatch(glob, a.Glob, rel) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.Size() > maxSearchFile {
			skippedLarge++
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || isBinary(data) || !whole.Match(data) {
			return nil
		}
		inFile := 0
		line := 0
		for rest := data; len(rest) > 0; {
			line++
			text := rest
			if i := bytes.IndexByte(rest, '\n'); i >= 0 {
				text, rest = rest[:i], rest[i+1:]
			} else {
				rest = nil
			}
			text = bytes.TrimSuffix(text, []byte("\r"))
			if !re.Match(text) {
				continue
			}
			if inFile == 0 {
				files++
			}
			inFile++
			if inFile > maxFileMatches || matches >= maxSearchMatches {
				more++
				continue
			}
			matches++
			dst := &out
			if strings.HasPrefix(rel, datasheets.DirName+"/") {
				dst = &cached
			}
			fmt.Fprintf(dst, "%s:%d: %s\n", rel, line, textfmt.ClipBytes(strings.TrimSpace(string(text)), maxSearchLine))
		}
		return nil
	})
	if err != nil {
		return tool.Result{}, err
	}
	var head string
	switch {
	case matches == 0:
		head = fmt.Sprintf("no matches for %q", a.Pattern)
		if a.Glob != "" {
			head += fmt.Sprintf(" in files matching %q", a.Glob)
		}
	default:
		head = fmt.Sprintf("%s in %s", textfmt.CountForms(matches+more, "match", "matches"), textfmt.CountForms(files, "file", "files"))
		if more > 0 {
			head += fmt.Sprintf(" (%d shown, at most %d per file; narrow the pattern or add a glob to see the rest)", matches, maxFileMatches)
		}
	}
	if skippedLarge > 0 {
		head += fmt.Sprintf("; %s over %d MB not searched", textfmt.CountForms(skippedLarge, "file", "files"), maxSearchFile>>20)
	}
	if cached.Len() > 0 {
		out.WriteString(untrusted("the datasheet cache", cached.String()) + "\n")
	}
	return tool.Result{Text: head + "\n" + out.String()}, nil
}

// globMatch matches a file against the glob: a glob without a slash matches
// the file name in any folder, one with a slash the whole repo-relative path.
func globMatch(re *regexp.Regexp, glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		return re.MatchString(path.Base(rel))
	}
	return re.MatchString(rel)
}

// globRegexp translates a glob to an anchored regexp: * and ? stay within a
// folder, ** crosses folders ("**/" also matches no folder at all), and
// {a,b} is either alternative.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case c == '*' && strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced { }")
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
