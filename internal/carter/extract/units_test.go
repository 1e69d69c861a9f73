package extract

import (
	"math"
	"strings"
	"testing"

	"copperhead/internal/carter/terms"
)

const manPage = `SORT(1)                          User Commands                         SORT(1)

NAME
       sort - sort lines of text files

DESCRIPTION
       Write sorted concatenation of all FILE(s) to standard output.

       -n, --numeric-sort
              compare according to string numerical value

       -r, --reverse
              reverse the result of comparisons

       -u, --unique
              with -c, check for strict ordering; without -c, output only
              the first of an equal run
`

const specText = `The predeclared architecture-independent numeric types are:

uint8       the set of all unsigned  8-bit integers (0 to 255)
int8        the set of all signed  8-bit integers (-128 to 127)
float64     the set of all IEEE 754 64-bit floating-point numbers

| Setting | Default | Meaning |
|---|---|---|
| http2client | 1 | use HTTP/2 for clients |
| panicnil | 0 | panic(nil) becomes a runtime error |

Options of the tool:

-v, --verbose   print every file name as it is processed
-q, --quiet     print nothing but errors

Garbage collection

The collector runs concurrently with the program and needs no pauses longer than a millisecond.

- First item of a list that says something.
- Second item that wraps
  onto a continuation line.
`

func unitTexts(text string, kind Kind) []string {
	var out []string
	for _, u := range Units(text) {
		if u.Kind == kind {
			out = append(out, strings.Join(strings.Fields(text[u.Start:u.End]), " "))
		}
	}
	return out
}

func TestUnits(t *testing.T) {
	tests := []struct {
		text string
		kind Kind
		want string
	}{
		{manPage, KindOption, "-n, --numeric-sort compare according to string numerical value|-r, --reverse reverse the result of comparisons|-u, --unique with -c, check for strict ordering; without -c, output only the first of an equal run"},
		// A man page section heading with its indented body.
		{manPage, KindDefinition, "NAME sort - sort lines of text files|DESCRIPTION Write sorted concatenation of all FILE(s) to standard output."},
		{specText, KindTableRow, "uint8 the set of all unsigned 8-bit integers (0 to 255)|int8 the set of all signed 8-bit integers (-128 to 127)|float64 the set of all IEEE 754 64-bit floating-point numbers|" +
			"| Setting | Default | Meaning | |---|---|---| | http2client | 1 | use HTTP/2 for clients |" + "|" +
			"| Setting | Default | Meaning | |---|---|---| | http2client | 1 | use HTTP/2 for clients | | panicnil | 0 | panic(nil) becomes a runtime error |"},
		{specText, KindOption, "-v, --verbose print every file name as it is processed|-q, --quiet print nothing but errors"},
		{specText, KindHeading, "Garbage collection The collector runs concurrently with the program and needs no pauses longer than a millisecond."},
		// strace stacks an option's aliases at one indent over its text.
		{"       -f\n       --follow-forks\n                   Trace child processes as they are created.\n       -ff\n                   Write each process trace to its own file.\n", KindOption,
			"-f --follow-forks Trace child processes as they are created.|-ff Write each process trace to its own file."},
		{specText, KindListItem, "- First item of a list that says something.|- Second item that wraps onto a continuation line."},
	}
	for _, tt := range tests {
		if got := strings.Join(unitTexts(tt.text, tt.kind), "|"); got != tt.want {
			t.Errorf("%s units:\n got %s\nwant %s", tt.kind, got, tt.want)
		}
	}
	for _, text := range []string{manPage, specText, "", "\n\n", "x"} {
		for _, u := range Units(text) {
			if u.Start < 0 || u.End > len(text) || u.Start >= u.End || strings.TrimSpace(text[u.Start:u.End]) != text[u.Start:u.End] {
				t.Errorf("bad unit %+v in %q", u, text)
			}
		}
	}
}

// TestSnippetsQuoteStructure: option entries and table rows are evidence
// though they end in no period (the old sentence filter dropped them all).
func TestSnippetsQuoteStructure(t *testing.T) {
	q := "How do I sort lines numerically in reverse order?"
	got := Snippets(manPage, Options{Subs: stemsOf(q)})
	var quotes []string
	for _, s := range got {
		quotes = append(quotes, strings.Join(strings.Fields(manPage[s.Start:s.End]), " "))
	}
	joined := strings.Join(quotes, "|")
	if !strings.Contains(joined, "-n, --numeric-sort compare according to string numerical value") {
		t.Errorf("no -n entry in %q", joined)
	}
	got = Snippets(specText, Options{Subs: stemsOf("What is the range of int8 integers?")})
	if len(got) == 0 || !strings.Contains(specText[got[0].Start:got[0].End], "(-128 to 127)") || got[0].Kind != KindTableRow {
		t.Errorf("int8 row not quoted: %+v", got)
	}
}

func stemsOf(q string) [][]string {
	var out [][]string
	for _, s := range terms.SubQuestions(q) {
		out = append(out, s.Stems)
	}
	return out
}

// TestSnippetsPerSubQuestion: each half of a compound question gets its own
// evidence; with one relevance bar over the whole question neither half's
// passages qualified.
func TestSnippetsPerSubQuestion(t *testing.T) {
	text := "A data race is a write to a memory location concurrent with another access to it.\n\n" +
		"The memory model guarantees that programs without data races behave as if sequentially consistent.\n\n" +
		"Each GODEBUG setting changes one runtime behavior, such as panicnil=1 restoring the old panic behavior.\n\n" +
		"Unrelated paragraph about the compiler's inlining budget and nothing else of note here."
	q := "What does the Go memory model guarantee for programs with data races, and how can GODEBUG settings change runtime behaviour?"
	got := Snippets(text, Options{Subs: stemsOf(q)})
	subs := map[int]bool{}
	for _, s := range got {
		for _, k := range s.Subs {
			subs[k] = true
		}
	}
	if !subs[0] || !subs[1] {
		t.Fatalf("sub-questions with evidence: %v (%+v)", subs, got)
	}
	if old := Snippets(text, Options{Aspects: terms.Content(q)}); len(old) != 0 {
		t.Logf("whole-question bar still finds %d", len(old))
	}
}

// TestAbsentWordsDoNotCount: a question word the collection never uses
// weighs nothing, so a passage with every other word is fully relevant.
func TestAbsentWordsDoNotCount(t *testing.T) {
	text := "The colour of a selected footprint is set in the layer manager panel.\n"
	weight := func(s string) float64 {
		if s == "hue" {
			return 0
		}
		return 1
	}
	got := Snippets(text, Options{Subs: stemsOf("Which hue or colour does a selected footprint have?"), Weight: weight})
	if len(got) != 1 || got[0].Relevance != full {
		t.Errorf("got %+v", got)
	}
	// But one shared word does not answer a question the corpus lacks.
	if got := Snippets(text, Options{Subs: stemsOf("What is the boiling point of liquid footprint?"), Weight: func(s string) float64 {
		if s == "footprint" {
			return 1
		}
		return 0
	}}); len(got) != 0 {
		t.Errorf("one shared word made evidence: %+v", got)
	}
}

// A builtin's option list inside its description: each option is an entry
// of its own, its context the builtin's synopsis line, and an entry too
// long to quote is summarized by its term and first sentence.
const builtin = `       set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]
              Without options, display the name and value of each shell variable in a
              format that can be reused as input.  Options, if specified, have the following meanings:
              -a      Each variable or function that is created or modified is given the export
                      attribute and marked for export to the environment of subsequent commands.
              -e      Exit immediately if a pipeline (which may consist of a single simple
                      command), a list, or a compound command, exits with a non-zero status.
                      The shell does not exit if the command that fails is part of the command
                      list immediately following a while or until keyword, part of the test
                      following the if or elif reserved words, part of any command executed in a
                      && or || list except the command following the final && or ||, any command
                      in a pipeline but the last, or if the command's return value is being
                      inverted with !.  A trap on ERR, if set, is executed before the shell exits.
`

func TestUnitsNestedOptions(t *testing.T) {
	var got []string
	for _, u := range Units(builtin) {
		if u.Kind != KindOption {
			continue
		}
		ctx := ""
		if u.CtxEnd > u.CtxStart {
			ctx = builtin[u.CtxStart:u.CtxEnd] + " => "
		}
		got = append(got, ctx+strings.Join(strings.Fields(builtin[u.Start:u.End]), " "))
	}
	want := []string{
		"set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...] => -a Each variable or function that is created or modified is given the export attribute and marked for export to the environment of subsequent commands.",
		"set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...] => -e Exit immediately if a pipeline (which may consist of a single simple command), a list, or a compound command, exits with a non-zero status.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("options:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	snips := Snippets(builtin, Options{Subs: stemsOf("What does bash set -e do?")})
	if len(snips) == 0 || !strings.HasPrefix(builtin[snips[0].Start:snips[0].End], "-e      Exit immediately") || snips[0].CtxEnd == 0 {
		t.Errorf("set -e not the best snippet: %+v", snips)
	}
}

// full is the relevance of a passage naming all of a sub-question's words
// with no term or subject bonus.
var full = math.Round(1/maxKey*1000) / 1000

// TestManPageSubject: a man page's options carry the page's NAME entry as
// their context when they sit in its OPTIONS or DESCRIPTION section (not
// in a section listing something else with dashes), and a builtin's
// nested option carries the whole wrapped usage line it sits under.
func TestManPageSubject(t *testing.T) {
	page := "LS(1)          User Commands          LS(1)\n\nNAME\n       ls - list directory contents\n\n" +
		"DESCRIPTION\n       List information about the FILEs.\n\n       -r, --reverse\n              reverse order while sorting\n\n" +
		"       -S     sort by file size, largest first\n\n" +
		"CONDITIONAL EXPRESSIONS\n       Conditional expressions test files.\n\n       -e file\n              True if file exists and is readable by anyone.\n\n" +
		"SHELL BUILTIN COMMANDS\n       Builtins are described below.\n\n       read [-ers] [-a aname] [-d delim] [-t\n       timeout] [-u fd] [name ...]\n" +
		"              One line is read from the standard input.  Options, if supplied, have the following\n              meanings:\n" +
		"              -n nchars\n                     read returns after reading nchars characters rather than waiting.\n"
	ctxOf := func(prefix string) string {
		for _, u := range Units(page) {
			if strings.HasPrefix(page[u.Start:u.End], prefix) {
				return page[u.CtxStart:u.CtxEnd]
			}
		}
		t.Fatalf("no unit starts with %q", prefix)
		return ""
	}
	for _, tt := range []struct{ unit, ctx string }{
		{"-r, --reverse", "ls - list directory contents"},
		{"-S     sort", "ls - list directory contents"},
		{"-e file", ""},
		{"-n nchars", "read [-ers] [-a aname] [-d delim] [-t\n       timeout] [-u fd] [name ...]"},
	} {
		if got := ctxOf(tt.unit); got != tt.ctx {
			t.Errorf("context of %q = %q, want %q", tt.unit, got, tt.ctx)
		}
	}
	if got := Subject(page); page[got[0]:got[1]] != "ls - list directory contents" {
		t.Errorf("Subject = %q", page[got[0]:got[1]])
	}
	// The page's NAME entry answers "what is ls" before a passage that
	// merely names it.
	subs := stemsOf("What is ls?")
	got := Snippets(page, Options{Subs: subs})
	if len(got) == 0 || !strings.HasPrefix(page[got[0].Start:got[0].End], "NAME") {
		t.Errorf("first snippet for 'what is ls' = %+v", got)
	}
}

// TestSubjectNamesHyphenated: "cherry-pick" in a question meets the page
// named "git-cherry-pick": its NAME entry leads, ahead of examples that
// repeat the command.
func TestSubjectNamesHyphenated(t *testing.T) {
	page := "GIT-CHERRY-PICK(1)     Git Manual     GIT-CHERRY-PICK(1)\n\nNAME\n       git-cherry-pick - Apply the changes introduced by some existing commits\n\n" +
		"EXAMPLES\n       git cherry-pick master\n           Apply the change introduced by the commit at the tip of the master branch and create a new commit with this change.\n\n" +
		"       git cherry-pick ..master, git cherry-pick ^HEAD master\n           Apply the changes introduced by all commits that are ancestors of master but not of HEAD to produce new commits.\n"
	got := Snippets(page, Options{Subs: stemsOf("What is git cherry-pick?")})
	if len(got) == 0 || !strings.HasPrefix(page[got[0].Start:got[0].End], "NAME") {
		for _, s := range got {
			t.Logf("%.3f %q", s.Relevance, page[s.Start:s.End])
		}
		t.Errorf("the NAME entry does not lead")
	}
}
