package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"copperhead/internal/redact"
)

// scriptedLines is a LineReader that answers with scripted lines, then EOF.
type scriptedLines struct {
	lines []string
	errs  []error // the error returned with lines[i]; nil entries for none
	n     int
}

func (s *scriptedLines) ReadLine(ctx context.Context, prompt string) (string, error) {
	if s.n >= len(s.lines) {
		return "", io.EOF
	}
	i := s.n
	s.n++
	var err error
	if i < len(s.errs) {
		err = s.errs[i]
	}
	return s.lines[i], err
}

// testShell is a Shell over scripted lines whose commands and requests are
// recorded.
func testShell(lines ...string) (*Shell, *bytes.Buffer, *[]string) {
	var out bytes.Buffer
	var ran []string
	cmd := func(name string) Command {
		return Command{Name: name, Help: "the " + name + " command", Run: func(_ context.Context, args []string) error {
			ran = append(ran, strings.TrimSpace("/"+name+" "+strings.Join(args, " ")))
			return nil
		}}
	}
	s := &Shell{
		Lines: &scriptedLines{lines: lines},
		Out:   &out,
		Commands: []Command{
			{Name: "help", Help: "list these commands"},
			cmd("check"), cmd("parts"), cmd("model"),
			{Name: "fail", Help: "always fails", Run: func(context.Context, []string) error { return errors.New("no schematic here") }},
			{Name: "quit", Help: "leave", Run: func(context.Context, []string) error { return ErrQuit }},
		},
		Request: func(_ context.Context, req string) { ran = append(ran, "request: "+req) },
	}
	return s, &out, &ran
}

func TestShellDispatch(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		ran   []string
		out   []string // substrings of the output
	}{
		{"a request", []string{"rename net KEY_DAH to KEY_DASH"}, []string{"request: rename net KEY_DAH to KEY_DASH"}, nil},
		{"a slash command with arguments", []string{"/model compat:x", "/CHECK"}, []string{"/model compat:x", "/check"}, nil},
		{"blank lines are skipped", []string{"", "   ", "/parts"}, []string{"/parts"}, nil},
		{"unknown, a near miss", []string{"/chek"}, nil, []string{"unknown command /chek (did you mean /check?): /help lists the commands\n"}},
		{"unknown, far from any", []string{"/frobnicate"}, nil, []string{"unknown command /frobnicate: /help lists the commands\n"}},
		{"a bare slash", []string{"/"}, nil, []string{"a slash command needs a name: /help lists them"}},
		{"a failing command keeps the shell", []string{"/fail", "/parts"}, []string{"/parts"}, []string{"copperhead: /fail: no schematic here\n"}},
		{"/quit leaves", []string{"/quit", "/parts"}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, out, ran := testShell(tc.lines...)
			if err := s.Run(context.Background()); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if fmt.Sprint(*ran) != fmt.Sprint(tc.ran) {
				t.Errorf("ran %q, want %q", *ran, tc.ran)
			}
			for _, w := range tc.out {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output %q lacks %q", out.String(), w)
				}
			}
		})
	}
}

// TestShellHelpListsEveryCommand: /help shows every row of the table, with
// its arguments and help, in the table's order.
func TestShellHelpListsEveryCommand(t *testing.T) {
	s, out, _ := testShell("/help")
	s.Commands = append(s.Commands, Command{Name: "model2", Args: "[<model>]", Help: "pick a model", Run: func(context.Context, []string) error { return nil }})
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, c := range s.Commands {
		line := "/" + c.Name
		if c.Args != "" {
			line += " " + c.Args
		}
		i := strings.Index(out.String(), "  "+line+" ")
		if i < 0 || !strings.Contains(out.String()[i:], c.Help) {
			t.Errorf("/help lacks %q with %q:\n%s", line, c.Help, out)
			continue
		}
		if i < last {
			t.Errorf("/help lists %s out of the table's order", line)
		}
		last = i
	}
}

// TestShellLeaving: Ctrl-C or Ctrl-D at an empty prompt leaves; Ctrl-C on a
// typed line discards it; a context ended from outside is Run's error.
func TestShellLeaving(t *testing.T) {
	s, _, ran := testShell("half a requ", "/parts", "", "/check")
	s.Lines = &scriptedLines{lines: []string{"half a requ", "/parts", "", "/check"}, errs: []error{ErrInterrupt, nil, ErrInterrupt}}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*ran) != "[/parts]" {
		t.Errorf("ran %q: want the interrupted line dropped, /parts run, and Ctrl-C at the empty prompt leaving before /check", *ran)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, _, _ = testShell()
	s.Lines = &scriptedLines{lines: []string{""}, errs: []error{context.Canceled}}
	if err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run after the context ended: %v, want context.Canceled", err)
	}
}

// TestShellAttend: every step runs under the context Attend gives, and is
// released after.
func TestShellAttend(t *testing.T) {
	s, _, _ := testShell("/parts", "a request")
	var claimed, released int
	s.Attend = func(ctx context.Context) (context.Context, func()) {
		claimed++
		return ctx, func() { released++ }
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if claimed != 2 || released != 2 {
		t.Errorf("claimed %d, released %d; want 2 and 2", claimed, released)
	}
}

var secret = "sk-" + "live-THISISASECRETVALUE1234567890"

func testRedactor() *redact.Redactor { return redact.New([]string{"OPENAI_API_KEY=" + secret}) }

// TestHistoryRedacted: a secret typed at the prompt is in neither the file
// nor the lines the up arrow walks; a reopened history has the lines.
func TestHistoryRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repl_history")
	h, err := OpenHistory(path, testRedactor())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"/parts", "use key " + secret + " for the probe", "rename net\nKEY_DAH   to KEY_DASH"} {
		if _, err := h.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) || strings.Contains(strings.Join(h.Lines(), "\n"), secret) {
		t.Fatalf("the history holds the secret:\n%s", data)
	}
	want := "/parts\nuse key " + redact.Marker + " for the probe\nrename net KEY_DAH to KEY_DASH\n"
	if string(data) != want {
		t.Errorf("history file %q, want %q", data, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	again, err := OpenHistory(path, testRedactor())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(again.Lines(), "\n") + "\n"; got != want {
		t.Errorf("reopened history %q, want %q", got, want)
	}
}

// TestHistoryLimit: the file is cut back to the limit once it holds twice
// as many lines, keeping the newest.
func TestHistoryLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repl_history")
	h, err := OpenHistory(path, testRedactor())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2*HistoryLimit + 1 {
		if _, err := h.Add(fmt.Sprintf("/line %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != HistoryLimit || lines[len(lines)-1] != fmt.Sprintf("/line %d", 2*HistoryLimit) {
		t.Errorf("file holds %d lines ending %q, want %d ending with the newest", len(lines), lines[len(lines)-1], HistoryLimit)
	}
	if n := len(h.Lines()); n != HistoryLimit {
		t.Errorf("%d lines in memory, want %d", n, HistoryLimit)
	}
}

// TestLogMirror: the log is the screen as plain redacted lines: colour and
// cursor sequences dropped, a status line redrawn in place gone once the
// next line replaces it, a secret replaced, multi-byte runes split across
// writes kept whole; the terminal gets every byte unchanged.
func TestLogMirror(t *testing.T) {
	path := filepath.Join(t.TempDir(), LogName(fixedTime))
	lg, err := CreateLog(path, testRedactor())
	if err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	out, errw := lg.Mirror(&screen), lg.Mirror(&screen)
	writes := []string{
		"\x1b[38;5;173mcopperhead devel · do\x1b[0m\n",
		"\x1b[?25l\r\x1b[2K\x1b[2m⠋ turn 1/40 · 0s\x1b[0m",
		"\r\x1b[2K\x1b[2m⠙ turn 1/40 · 1s\x1b[0m",
		"\r\x1b[2K  edit_file: replaced 4 occurrences\n",
		"the key is " + secret + "\n",
		"ERC \xe2\x9c", // "✓" split across two writes
		"\x93\n",
		"\x1b]0;title\x07done · commit abc\r\x1b[2K\x1b[?25h",
		"done · verification passed\n",
		"More turns? [10, 0 to stop] ",
	}
	for _, w := range writes {
		if _, err := out.Write([]byte(w)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := errw.Write([]byte("copperhead: interrupted\n")); err != nil {
		t.Fatal(err)
	}
	lg.Line("> rename net KEY_DAH to KEY_DASH with " + secret)
	out.Close()
	errw.Close()
	if err := lg.Close(); err != nil {
		t.Fatal(err)
	}
	if screen.String() != strings.Join(writes, "")+"copperhead: interrupted\n" {
		t.Errorf("the terminal did not get the bytes unchanged")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"copperhead devel · do",
		"  edit_file: replaced 4 occurrences",
		"the key is " + redact.Marker,
		"ERC ✓",
		"done · verification passed",
		"copperhead: interrupted",
		"> rename net KEY_DAH to KEY_DASH with " + redact.Marker,
		"More turns? [10, 0 to stop]",
	}, "\n") + "\n"
	if string(data) != want {
		t.Errorf("log:\n%s\nwant:\n%s", data, want)
	}
	if _, err := CreateLog(path, testRedactor()); err == nil {
		t.Error("CreateLog over an existing log succeeded, want a refusal")
	}
}

var fixedTime = time.Date(2026, 12, 2, 6, 32, 48, 0, time.FixedZone("CET", 3600))

func TestLogName(t *testing.T) {
	if got := LogName(fixedTime); got != "repl-20261202T053248Z.log" {
		t.Errorf("LogName = %q, want the UTC time", got)
	}
}

// FuzzMirror: whatever a stream writes, split however, the terminal gets it
// unchanged and the log gets plain redacted lines: no escape, no carriage
// return, no secret on a line of its own.
func FuzzMirror(f *testing.F) {
	f.Add([]byte("\x1b[2m⠋ turn 1/40\x1b[0m\r\x1b[2Kdone\n"), 3)
	f.Add([]byte("key "+secret+"\n\x1b]0;t\x07x\x1b"), 1)
	f.Add([]byte("\xe2\x9c\x93 \x1b[?25h\b\tok\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		path := filepath.Join(t.TempDir(), "log")
		lg, err := CreateLog(path, testRedactor())
		if err != nil {
			t.Fatal(err)
		}
		var screen bytes.Buffer
		m := lg.Mirror(&screen)
		if split <= 0 {
			split = 1
		}
		for i := 0; i < len(data); i += split {
			if _, err := m.Write(data[i:min(len(data), i+split)]); err != nil {
				t.Fatal(err)
			}
		}
		m.Close()
		if err := lg.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(screen.Bytes(), data) {
			t.Fatal("the terminal did not get the bytes unchanged")
		}
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(out, "\x1b\r") {
			t.Fatalf("the log holds a control character: %q", out)
		}
		if bytes.Count(out, []byte("\n")) > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("the log has more lines than the stream: %q from %q", out, data)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, secret) {
				t.Fatalf("the log holds the secret: %q", line)
			}
		}
	})
}
