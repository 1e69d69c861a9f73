package jsonl

import (
	"bytes"
	"os"
)

// Reopen appends to an existing record. A last line cut short by a killed
// writer (no newline) is cut off first, so the file stays one JSON value per
// line.
func Reopen(path string, o Options) (*Appender, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	if keep := bytes.LastIndexByte(data, '\n') + 1; keep < len(data) {
		if err := f.Truncate(int64(keep)); err != nil {
			f.Close()
			return nil, err
		}
	}
	return newAppender(path, f, o), nil
}
