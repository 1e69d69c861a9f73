package doctext

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrBinary is wrapped when a file named as text holds binary data (an ELF
// renamed .txt): quoting it would put noise in a brief.
var ErrBinary = errors.New("binary content")

// binarySample is how much of a file the binary check reads: enough to see
// an executable's header tables, cheap on a large file.
const binarySample = 64 << 10

// Binary returns why data is not text, or "": NUL bytes (more than a stray
// one or two: text never has them, executables and images are full of
// them), or a high share of bytes that are not valid UTF-8 (Latin-1 text
// has a few, compressed or encrypted data mostly).
func Binary(data []byte) string {
	s := data
	if len(s) > binarySample {
		// The sample ends before the file does: stop short of a character
		// the cut may have split.
		s = s[:binarySample-utf8.UTFMax]
	}
	if len(s) == 0 {
		return ""
	}
	nul, invalid := 0, 0
	for i := 0; i < len(s); {
		if s[i] == 0 {
			nul++
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			invalid++
		}
		i += n
	}
	if nul >= 3 && nul*1000 >= len(s) {
		return fmt.Sprintf("%d NUL bytes in the first %d bytes", nul, len(s))
	}
	if invalid >= 8 && invalid*10 >= len(s) {
		return fmt.Sprintf("%d%% of the first %d bytes are not UTF-8", invalid*100/len(s), len(s))
	}
	return ""
}
