package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Line is one non-blank line of a record.
type Line struct {
	N          int    // 1-based line number, blank lines counted
	Text       []byte // without surrounding white space; the caller's to keep
	Terminated bool   // a newline ended it (false only for a last line)
}

// Reader reads a record line by line.
type Reader struct {
	path string
	f    *os.File
}

// Open opens the record at path for reading. Its error is the operating
// system's, unwrapped, for the caller to name.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Reader{path: path, f: f}, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Each calls fn for every non-blank line, in file order, and stops at fn's
// first error, which it returns as is. A line longer than maxLine bytes (0:
// no limit) fails with bufio.ErrTooLong; that and any error reading the file
// come back as "read <path>: ...".
func (r *Reader) Each(maxLine int, fn func(Line) error) error {
	br := bufio.NewReaderSize(r.f, bufferSize)
	for n := 1; ; n++ {
		text, err := readLine(br, maxLine)
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", r.path, err)
		}
		terminated := err == nil
		if trimmed := bytes.TrimSpace(text); len(trimmed) > 0 {
			if ferr := fn(Line{N: n, Text: trimmed, Terminated: terminated}); ferr != nil {
				return ferr
			}
		}
		if !terminated {
			return nil
		}
	}
}

// readLine returns the next line without its newline, in memory of its own;
// io.EOF means the file ended before a newline (the line, maybe empty, is
// the last).
func readLine(br *bufio.Reader, maxLine int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if maxLine > 0 && len(bytes.TrimSuffix(line, []byte("\n"))) > maxLine {
			return nil, bufio.ErrTooLong
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}
