package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mask(line []byte) ([]byte, error) {
	return bytes.ReplaceAll(line, []byte("secret"), []byte("XXXXXX")), nil
}

func TestAppendBufferedOrSynced(t *testing.T) {
	for _, syncEach := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		a, err := Create(path, Options{Perm: 0o600, Redact: mask, SyncEach: syncEach})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Append([]byte(`{"a":"a secret"}`)); err != nil {
			t.Fatal(err)
		}
		onDisk, _ := os.ReadFile(path)
		if want := map[bool]string{false: "", true: "{\"a\":\"a XXXXXX\"}\n"}[syncEach]; string(onDisk) != want {
			t.Errorf("SyncEach=%v: before Flush the file holds %q, want %q", syncEach, onDisk, want)
		}
		if err := a.Flush(); err != nil {
			t.Fatal(err)
		}
		if onDisk, _ = os.ReadFile(path); string(onDisk) != "{\"a\":\"a XXXXXX\"}\n" {
			t.Errorf("SyncEach=%v: after Flush the file holds %q", syncEach, onDisk)
		}
		if err := a.Append([]byte(`{"a":`)); !errors.Is(err, ErrNotJSON) {
			t.Errorf("a torn value: err = %v, want ErrNotJSON", err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := a.Append([]byte(`{}`)); !errors.Is(err, ErrClosed) {
			t.Errorf("append after Close: err = %v, want ErrClosed", err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v (%v), want 0600", fi.Mode().Perm(), err)
		}
		if _, err := Create(path, Options{}); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create over an existing record: err = %v, want ErrExist", err)
		}
	}
}

func TestRedactErrorWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	boom := errors.New("boom")
	a, err := Create(path, Options{Perm: 0o600, Redact: func([]byte) ([]byte, error) { return nil, boom }, SyncEach: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Append([]byte(`{}`)); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the redactor's", err)
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Errorf("file holds %q", data)
	}
}

// TestIOErrorSticks: after a failed write every later call returns the same
// error; nothing is appended after a hole.
func TestIOErrorSticks(t *testing.T) {
	a, err := Create(filepath.Join(t.TempDir(), "r.jsonl"), Options{Perm: 0o600, SyncEach: true})
	if err != nil {
		t.Fatal(err)
	}
	a.f.Close() // the disk goes away under the writer
	first := a.Append([]byte(`{}`))
	var ioErr *IOError
	if !errors.As(first, &ioErr) || ioErr.Op != "write" || !strings.HasPrefix(first.Error(), "write "+a.Path()+": ") {
		t.Fatalf("err = %v, want a write IOError", first)
	}
	if err := a.Append([]byte(`{}`)); err != first {
		t.Errorf("second append: %v, want the first error", err)
	}
	if err := a.Flush(); err != first {
		t.Errorf("flush: %v, want the first error", err)
	}
}

func TestReopenCutsTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte("{\"n\":1}\n{\"n\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := Reopen(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append([]byte(`{"n":2}`)); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{\"n\":1}\n{\"n\":2}\n" {
		t.Errorf("file = %q", data)
	}
	if _, err := Reopen(filepath.Join(t.TempDir(), "none"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reopen a missing record: %v", err)
	}
}

func TestEach(t *testing.T) {
	type seen struct {
		n    int
		text string
		term bool
	}
	tests := []struct {
		name    string
		body    string
		maxLine int
		want    []seen
		wantErr error
	}{
		{"lines and blanks", "{\"a\":1}\n\n  \n {\"b\":2} \r\n", 0, []seen{{1, `{"a":1}`, true}, {4, `{"b":2}`, true}}, nil},
		{"unterminated last line", "{\"a\":1}\n{\"b\"", 0, []seen{{1, `{"a":1}`, true}, {2, `{"b"`, false}}, nil},
		{"empty", "", 0, nil, nil},
		{"line within the limit", "12345\n", 5, []seen{{1, "12345", true}}, nil},
		{"line over the limit", "123456\n", 5, nil, bufio.ErrTooLong},
		{"long line, no limit", strings.Repeat("x", 3*bufferSize) + "\n", 0, []seen{{1, strings.Repeat("x", 3*bufferSize), true}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(path, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got []seen
			err = r.Each(tt.maxLine, func(l Line) error {
				got = append(got, seen{l.N, string(l.Text), l.Terminated})
				return nil
			})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "read "+path+": ") {
				t.Errorf("err = %q, want it to name the file", err)
			}
			if tt.wantErr == nil && !slices.Equal(got, tt.want) {
				t.Errorf("lines = %+v, want %+v", got, tt.want)
			}
		})
	}
	stop := errors.New("stop")
	path := filepath.Join(t.TempDir(), "r.jsonl")
	_ = os.WriteFile(path, []byte("{}\n{}\n"), 0o600)
	r, _ := Open(path)
	defer r.Close()
	calls := 0
	if err := r.Each(0, func(Line) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("Each did not stop at the callback's error: %v after %d calls", err, calls)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open a missing record: %v", err)
	}
}
