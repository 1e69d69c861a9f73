package policy

import (
	"regexp"
	"sort"
	"strings"
)

// Span is a half-open byte range of a text.
type Span struct{ Start, End int }

// injectionPatterns match text addressed to an AI agent rather than to a
// human reader: override attempts, role reassignment, chat-template tokens,
// and requests to reveal or hide things. Fetched text is data; a sentence
// like this is evidence of an attack on the reader, not of any fact, so it
// is never quoted as evidence and the source is flagged in the brief. The
// patterns are deliberately specific: a false positive only removes one
// sentence from the evidence pool, but a broad one ("api key") would gut
// legitimate technical pages.
var injectionPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(ignore|disregard|forget)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|any|your|system)\b[^.\n]{0,20}\b(instructions?|prompts?|directions|guidelines)\b`),
	regexp.MustCompile(`(?i)\byou are (now )?(an? |the )?(ai|assistant|language model|chatbot|llm|research agent)\b`),
	regexp.MustCompile(`(?i)\b(attention|note to|message (for|to)|instructions? (for|to))\b[^.\n]{0,20}\b(ai|llms?|language models?|assistants?|agents?|chatbots?)\b`),
	regexp.MustCompile(`(?i)\bsystem prompt\b`),
	regexp.MustCompile(`(?i)<\|?(im_start|im_end|system|endoftext)\|?>|\[/?INST\]`),
	// Asking for the reader's instructions is addressed to an AI by
	// definition; asking for credentials is only when the text names an AI
	// reader: release notes say "send-email learned to use a credential
	// helper", and that is documentation.
	regexp.MustCompile(`(?i)\b(reveal|print|output|repeat|send|leak)\b[^.\n]{0,30}\b(system prompt|your (instructions|prompt))\b`),
	regexp.MustCompile(`(?i)(?:^|[^\w-])(ai|ai agents?|assistants?|llms?|language models?|chatbots?|research agents?)(?:$|[^\w-])[^.\n]{0,80}\b(reveal|print|output|repeat|send|leak|upload|post|exfiltrate)\b[^.\n]{0,40}\b(api keys?|secrets?|credentials?|tokens?|passwords?|environment variables?)\b`),
	regexp.MustCompile(`(?i)\bdo not (cite|mention|tell|reveal)\b[^.\n]{0,40}\b(user|source|this (page|text|document))\b`),
}

// ScanInjection returns the spans of text that address an AI agent, each
// widened to its whole line (or sentence, if the line is long) so the
// extractor can skip every snippet that overlaps one. Spans are sorted and
// merged.
func ScanInjection(text string) []Span {
	spans, _ := ScanInjectionUntil(text, nil)
	return spans
}

// scanChunk is how much text ScanInjectionUntil matches between stop
// checks (cut at a line end: no pattern crosses a line).
const scanChunk = 64 << 10

// ScanInjectionUntil is ScanInjection that asks stop (when non-nil) between
// chunks of the text and, once it reports true, returns the spans found so
// far and false: scanning a 30 MB file takes seconds, and the run's budget
// and Ctrl-C must not wait for it.
func ScanInjectionUntil(text string, stop func() bool) ([]Span, bool) {
	var spans []Span
	complete := true
	for off := 0; off < len(text); {
		if stop != nil && stop() {
			complete = false
			break
		}
		end := min(len(text), off+scanChunk)
		if end < len(text) {
			if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = len(text)
			}
		}
		chunk := text[off:end]
		for _, re := range injectionPatterns {
			for _, m := range re.FindAllStringIndex(chunk, -1) {
				spans = append(spans, widen(text, off+m[0], off+m[1]))
			}
		}
		off = end
	}
	if len(spans) == 0 {
		return nil, complete
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	out := []Span{spans[0]}
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.Start <= last.End {
			last.End = max(last.End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out, complete
}

// widen grows [lo, hi) to the enclosing line, bounded to 600 bytes each way
// so one huge unbroken line does not swallow a whole page.
func widen(text string, lo, hi int) Span {
	const reach = 600
	start := lo
	for start > 0 && lo-start < reach && text[start-1] != '\n' {
		start--
	}
	end := hi
	for end < len(text) && end-hi < reach && text[end] != '\n' {
		end++
	}
	// Keep the span on UTF-8 boundaries.
	for start > 0 && start < len(text) && text[start]&0xC0 == 0x80 {
		start--
	}
	for end < len(text) && text[end]&0xC0 == 0x80 {
		end++
	}
	return Span{start, end}
}

// Overlaps reports whether [start, end) overlaps any of the sorted spans.
func Overlaps(spans []Span, start, end int) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i].End > start })
	return i < len(spans) && spans[i].Start < end
}
