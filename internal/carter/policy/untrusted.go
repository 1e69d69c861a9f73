package policy

import (
	"regexp"
	"sort"
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
	regexp.MustCompile(`(?i)\b(reveal|print|output|repeat|send)\b[^.\n]{0,30}\b(system prompt|your instructions|api keys?|secrets?|credentials?|environment variables?)\b`),
	regexp.MustCompile(`(?i)\bdo not (cite|mention|tell|reveal)\b[^.\n]{0,40}\b(user|source|this (page|text|document))\b`),
}

// ScanInjection returns the spans of text that address an AI agent, each
// widened to its whole line (or sentence, if the line is long) so the
// extractor can skip every snippet that overlaps one. Spans are sorted and
// merged.
func ScanInjection(text string) []Span {
	var spans []Span
	for _, re := range injectionPatterns {
		for _, m := range re.FindAllStringIndex(text, -1) {
			spans = append(spans, widen(text, m[0], m[1]))
		}
	}
	if len(spans) == 0 {
		return nil
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
	return out
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
