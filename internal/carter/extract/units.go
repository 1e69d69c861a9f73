package extract

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind names the structure a quotable unit has in its document.
type Kind string

// Unit kinds. A unit is always one contiguous span of the text, so its
// quote is text[Start:End] whatever its kind.
const (
	KindParagraph  Kind = "paragraph"  // a block between blank lines, short enough to quote whole
	KindSentence   Kind = "sentence"   // one sentence of a paragraph too long to quote whole
	KindListItem   Kind = "list-item"  // "- item", "1. item" with its continuation lines
	KindOption     Kind = "option"     // a command-line option with its description ("-r, --reverse  reverse ...")
	KindDefinition Kind = "definition" // a term line with its indented description
	KindTableRow   Kind = "table-row"  // one row of a column-aligned or pipe table (with its header when close)
	KindHeading    Kind = "heading"    // a heading with the text under it
)

// Unit is one quotable passage.
type Unit struct {
	Start, End int
	Kind       Kind
	// Context is the span of the line the unit sits under when that line
	// is not part of it (a nested option's command, a far table header);
	// [0, 0) when none.
	CtxStart, CtxEnd int
}

// structured reports whether a unit's structure, not its punctuation, makes
// it a statement: option entries, table rows and definitions rarely end in
// a period.
func (u Unit) structured() bool { return u.Kind != KindParagraph && u.Kind != KindSentence }

type line struct {
	start, end int // without the newline
	indent     int // columns, tabs to 8
	blank      bool
}

func lines(text string) []line {
	var out []line
	for off := 0; off <= len(text); {
		nl := strings.IndexByte(text[off:], '\n')
		end := len(text)
		if nl >= 0 {
			end = off + nl
		}
		l := line{start: off, end: end}
		col := 0
		for i := off; i < end; i++ {
			switch text[i] {
			case ' ':
				col++
				continue
			case '\t':
				col = col/8*8 + 8
				continue
			}
			break
		}
		l.indent = col
		l.blank = strings.TrimSpace(text[off:end]) == ""
		out = append(out, l)
		if nl < 0 {
			break
		}
		off = end + 1
	}
	return out
}

// Units splits text into its quotable passages, in text order: list items,
// option entries, definitions, table rows, headings with the text under
// them, paragraphs short enough to quote whole, and the sentences of longer
// ones. Units may overlap (a heading unit contains the paragraph after it);
// each is trimmed and lies on UTF-8 boundaries.
func Units(text string) []Unit {
	ls := lines(text)
	var blocks [][]line
	var cur []line
	for _, l := range ls {
		if l.blank {
			if len(cur) > 0 {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, l)
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	var out []Unit
	subject := Subject(text)
	var ctx [2]int // the enclosing entry's term line while reading its description
	add := func(start, end int, k Kind) {
		s, e := trim(text, start, end)
		if e <= s {
			return
		}
		u := Unit{Start: s, End: e, Kind: k, CtxStart: ctx[0], CtxEnd: ctx[1]}
		if u.CtxEnd == 0 && (k == KindOption || k == KindDefinition) {
			u.CtxStart, u.CtxEnd = parentLine(text, ls, s)
		}
		if u.CtxEnd == 0 && k == KindOption && subject[1] > 0 && s > subject[1] && optionSection(text, ls, s) {
			// A top-level option of a manual page belongs to the page's
			// command ("sort - sort lines of text files" over "-r,
			// --reverse  reverse the result of comparisons").
			u.CtxStart, u.CtxEnd = subject[0], subject[1]
		}
		out = append(out, u)
	}
	// block emits one block's units; an entry too long to quote whole (a
	// man page's "set" builtin with its option list) is read again as a
	// block of its own description lines, down to nestDepth levels.
	var block func(b []line, depth int)
	block = func(b []line, depth int) {
		entry := func(ls []line, k Kind) {
			s, e := ls[0].start, ls[len(ls)-1].end
			if e-s > maxQuoteBytes && depth < nestDepth && len(ls) > 1 {
				// The term with the first sentence of its description is
				// the entry's quotable summary ("-e  Exit immediately if a
				// pipeline ... exits with a non-zero status.").
				if sents := Sentences(text[s:e]); len(sents) > 0 && sents[0][1] <= maxQuoteBytes && ls[0].end < s+sents[0][1] {
					add(s, s+sents[0][1], k)
				}
				saved := ctx
				// The term may be stacked or wrapped over several lines at
				// its indent ("read [-ers] ... [-t" then "timeout] [-u fd]
				// [name ...]", or set's two usage lines): all of them are
				// the context, and the description starts below them.
				nt := 1
				for nt < len(ls)-1 && ls[nt].indent <= ls[0].indent {
					nt++
				}
				cs, ce := trim(text, ls[0].start, ls[nt-1].end)
				if ce-cs > maxContextBytes {
					cs, ce = trim(text, ls[0].start, ls[0].end)
				}
				if ce-cs <= maxContextBytes {
					ctx = [2]int{cs, ce}
				}
				// The description's own blocks: split it at its blank-free
				// structure again (an option list inside a builtin's entry).
				block(ls[nt:], depth+1)
				ctx = saved
				return
			}
			add(s, e, k)
		}
		switch {
		case tableBlock(text, b):
			header := -1
			if len(b) >= 3 && isRule(text, b[1]) {
				header = 0
			}
			for i, l := range b {
				if i == header || isRule(text, l) {
					continue
				}
				if header >= 0 && l.end-b[header].start <= maxQuoteBytes {
					add(b[header].start, l.end, KindTableRow)
					continue
				}
				if header >= 0 {
					// A row far below its header: the header is its context.
					saved := ctx
					cs, ce := trim(text, b[header].start, b[header].end)
					ctx = [2]int{cs, ce}
					add(l.start, l.end, KindTableRow)
					ctx = saved
					continue
				}
				add(l.start, l.end, KindTableRow)
			}
		case listBlock(text, b):
			forEachEntry(b, func(l line) bool { return listMarker(text, l) }, func(ls []line) { entry(ls, KindListItem) })
		case termBlock(text, b):
			i0 := b[0].indent
			prevTerm := true
			forEachEntry(b, func(l line) bool {
				// A new entry starts at a term-indent line that follows a
				// description line (stacked aliases stay one entry).
				starts := l.indent <= i0 && !prevTerm
				prevTerm = l.indent <= i0
				return starts
			}, func(ls []line) {
				k := KindDefinition
				if strings.HasPrefix(strings.TrimSpace(text[ls[0].start:ls[0].end]), "-") {
					k = KindOption
				}
				entry(ls, k)
			})
		case inlineOptions(text, b):
			for _, l := range b {
				add(l.start, l.end, KindOption)
			}
		default:
			// Running text followed by an option list in one block (a
			// builtin's description, then its "-a  ..." entries): each part
			// on its own.
			for i := 1; i+1 < len(b); i++ {
				if strings.HasPrefix(strings.TrimSpace(text[b[i].start:b[i].end]), "-") && b[i+1].indent > b[i].indent {
					block(b[:i], depth)
					block(b[i:], depth)
					return
				}
			}
			// A paragraph short enough to quote is a unit, and so is each
			// of its sentences: the ranking prefers the sentence when the
			// rest of the paragraph adds nothing the question asks about.
			start, end := b[0].start, b[len(b)-1].end
			sentences := Sentences(text[start:end])
			if end-start <= maxQuoteBytes {
				add(start, end, KindParagraph)
				if len(sentences) < 2 {
					return
				}
			}
			for _, sp := range sentences {
				add(start+sp[0], start+sp[1], KindSentence)
			}
		}
	}
	for bi, b := range blocks {
		if bi+1 < len(blocks) && headingLike(text, b) {
			next := blocks[bi+1]
			if end := next[len(next)-1].end; end-b[0].start <= maxQuoteBytes && plainBlock(text, next) {
				add(b[0].start, end, KindHeading)
			}
		}
		block(b, 0)
	}
	return out
}

// parentLine returns the span of the line an indented entry starting at
// off sits under: the nearest earlier line indented less than the entry's
// own line (a man page's "set [-abefhkmn...]" over its "-e" entry), when it
// is indented itself (a flush-left line is a section title, not a parent)
// and short enough to be a title. [0, 0) when there is none.
func parentLine(text string, ls []line, off int) (int, int) {
	k := sort.Search(len(ls), func(i int) bool { return ls[i].end >= off })
	if k >= len(ls) || ls[k].indent == 0 {
		return 0, 0
	}
	for j := k - 1; j >= 0 && k-j < maxParentReach; j-- {
		if ls[j].blank || ls[j].indent >= ls[k].indent {
			continue
		}
		if ls[j].indent == 0 {
			return 0, 0
		}
		s, e := trim(text, ls[j].start, ls[j].end)
		if e-s > maxContextBytes {
			return 0, 0
		}
		// A term wrapped or stacked over lines at its indent (bash's
		// "read [-ers] ... [-t" over "timeout] [-u fd] [name ...]", set's
		// two usage lines) is the context whole, from its first line.
		for i := j - 1; i >= 0 && j-i < maxStackedLines && !ls[i].blank && ls[i].indent == ls[j].indent; i-- {
			s2, _ := trim(text, ls[i].start, ls[i].end)
			if e-s2 > maxContextBytes {
				break
			}
			s = s2
		}
		return s, e
	}
	return 0, 0
}

// maxStackedLines bounds how many lines one context term may span.
const maxStackedLines = 3

// maxParentReach bounds how many lines back a parent line is looked for.
const maxParentReach = 400

// maxContextBytes bounds a context line: a term line longer than this is
// not a title.
const maxContextBytes = 200

// nestDepth bounds how deep an entry's description is re-read as a block.
const nestDepth = 3

// forEachEntry splits a block into entries that each begin at a line for
// which starts reports true, and calls emit with each entry's lines.
func forEachEntry(b []line, starts func(line) bool, emit func([]line)) {
	s := 0
	for i := 1; i < len(b); i++ {
		if starts(b[i]) {
			emit(b[s:i])
			s = i
		}
	}
	if len(b) > 0 {
		emit(b[s:])
	}
}

// plainBlock: a block of running text (not a heading, list, table or
// term entry): what a heading unit may carry under its title.
func plainBlock(text string, b []line) bool {
	return !headingLike(text, b) && !tableBlock(text, b) && !listBlock(text, b) && !termBlock(text, b) && !inlineOptions(text, b)
}

// headingLike: a one-line block that reads as a title: a Markdown heading,
// or a short line with no sentence punctuation at its end.
func headingLike(text string, b []line) bool {
	if len(b) != 1 {
		return false
	}
	s := strings.TrimSpace(text[b[0].start:b[0].end])
	if strings.HasPrefix(s, "#") {
		return true
	}
	if len(s) == 0 || len(s) > 80 || len(strings.Fields(s)) > 10 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	first, _ := utf8.DecodeRuneInString(s)
	return !strings.ContainsRune(".,;:!?)]}>\"'`", last) && (unicode.IsUpper(first) || unicode.IsDigit(first))
}

var listMarkerPrefixes = []string{"- ", "* ", "• ", "· ", "+ "}

func listMarker(text string, l line) bool {
	s := strings.TrimLeft(text[l.start:l.end], " \t")
	for _, p := range listMarkerPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	i := 0
	for i < len(s) && i < 3 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' '
}

// listBlock: the block's first line is a list item.
func listBlock(text string, b []line) bool { return listMarker(text, b[0]) }

// termBlock: a term line followed by lines indented deeper (a man page's
// option or a definition list); a block may hold several such entries.
func termBlock(text string, b []line) bool {
	if len(b) < 2 {
		return false
	}
	// Option aliases may stack at the term's indent ("-f" over
	// "--follow-forks") before the deeper description starts.
	j := 1
	for j < len(b) && j < 4 && b[j].indent == b[0].indent && strings.HasPrefix(strings.TrimSpace(text[b[j].start:b[j].end]), "-") &&
		strings.HasPrefix(strings.TrimSpace(text[b[0].start:b[0].end]), "-") {
		j++
	}
	if j >= len(b) || b[j].indent <= b[0].indent {
		return false
	}
	term := strings.TrimSpace(text[b[0].start:b[0].end])
	if len(term) > 100 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(term)
	// A paragraph whose first line ends a sentence and whose second line is
	// merely indented (a hanging indent) is still a paragraph.
	return last != '.' || strings.HasPrefix(term, "-")
}

// inlineOptions: every line of the block is "-x, --long  description" (an
// option and its text on one line, separated by two or more spaces).
func inlineOptions(text string, b []line) bool {
	for _, l := range b {
		s := strings.TrimSpace(text[l.start:l.end])
		if !strings.HasPrefix(s, "-") || !strings.Contains(s, "  ") {
			return false
		}
	}
	return true
}

// tableBlock: at least two lines, each with two or more columns separated
// by runs of two or more spaces or by pipes, the first column starting at
// the same indent.
func tableBlock(text string, b []line) bool {
	if len(b) < 2 {
		return false
	}
	var shared map[int]bool
	pipes := 0
	for _, l := range b {
		s := text[l.start:l.end]
		if l.indent != b[0].indent {
			return false
		}
		if isRule(text, l) {
			continue
		}
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 3 {
			pipes++
			continue
		}
		if strings.HasPrefix(t, "-") {
			return false
		}
		starts := columnStarts(s)
		if shared == nil {
			shared = starts
			continue
		}
		for c := range shared {
			if !starts[c] {
				delete(shared, c)
			}
		}
	}
	if pipes > 0 {
		return pipes == len(b) || pipes+1 == len(b)
	}
	// Aligned columns: some column starts at the same place in every row
	// (justified prose has double spaces too, but never aligned ones).
	return len(shared) > 0
}

// columnStarts returns the byte columns where a cell starts after a gap of
// two or more spaces.
func columnStarts(s string) map[int]bool {
	out := map[int]bool{}
	gap := 0
	seen := false
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			gap++
			continue
		}
		if seen && gap >= 2 {
			out[i] = true
		}
		seen, gap = true, 0
	}
	return out
}

// isRule: a Markdown table's header rule ("|---|:---:|") or a line of
// dashes under a header.
func isRule(text string, l line) bool {
	s := strings.TrimSpace(text[l.start:l.end])
	return len(s) >= 3 && strings.Trim(s, "|-:+= ") == "" && strings.Contains(s, "-")
}

func trim(text string, s, e int) (int, int) {
	for s < e && isSpaceByte(text[s]) {
		s++
	}
	for e > s && isSpaceByte(text[e-1]) {
		e--
	}
	return s, e
}

// Subject returns the span of a manual page's NAME entry ("sort - sort
// lines of text files"): the line under a flush-left NAME heading that
// names the page's command and says what it is. [0, 0) when the text has
// none.
func Subject(text string) [2]int {
	head := text
	if len(head) > maxSubjectBytes {
		head = head[:maxSubjectBytes] // the NAME entry is at the top: never scan a whole large file
	}
	ls := lines(head)
	for i := 0; i+1 < len(ls) && i < maxSubjectLine; i++ {
		l := ls[i]
		if l.indent != 0 || strings.TrimSpace(text[l.start:l.end]) != "NAME" {
			continue
		}
		for _, n := range ls[i+1:] {
			if n.blank {
				continue
			}
			s, e := trim(text, n.start, n.end)
			if n.indent == 0 || e-s > maxContextBytes || !strings.Contains(text[s:e], " - ") {
				return [2]int{}
			}
			return [2]int{s, e}
		}
	}
	return [2]int{}
}

// maxSubjectLine is how far into a text its NAME heading is looked for
// (a man page's header line, a blank, then NAME).
const maxSubjectLine = 20

// maxSubjectBytes bounds the head of a text Subject reads.
const maxSubjectBytes = 4096

// SubjectName returns the command names of a subject line: the part
// before " - " ("git-merge", "gzip, gunzip, zcat").
func SubjectName(line string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(line), " - ")
	return name
}

// optionSection reports whether the text at off lies in a manual page's
// section that lists the command's own options (OPTIONS, DESCRIPTION,
// "GLOBAL OPTIONS", ...), not one that lists something else with dashes
// (bash's CONDITIONAL EXPRESSIONS, "-e file").
func optionSection(text string, ls []line, off int) bool {
	k := sort.Search(len(ls), func(i int) bool { return ls[i].end >= off })
	for j := min(k, len(ls)-1); j >= 0; j-- {
		if ls[j].blank || ls[j].indent != 0 {
			continue
		}
		title := strings.TrimSpace(text[ls[j].start:ls[j].end])
		return title == "DESCRIPTION" || strings.HasSuffix(title, "OPTIONS")
	}
	return false
}
