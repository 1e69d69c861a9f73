package poppler

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ctx := context.Background()
	cases := []struct {
		name, script string
		maxOut       int
		timeout      time.Duration
		wantOut      string
		wantErr      string
	}{
		{"ok", "printf hello", 100, time.Minute, "hello", ""},
		{"capped", "printf 0123456789", 4, time.Minute, "0123", "output exceeds 4 bytes"},
		{"fails", "echo 'bad \x1b[31m pdf' >&2; exit 3", 100, time.Minute, "", `exit status 3: "bad \x1b[31m pdf"`},
		{"timeout", "sleep 5", 100, 100 * time.Millisecond, "", "timed out after 100ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := Run(ctx, c.timeout, c.maxOut, sh, "-c", c.script)
			if string(out) != c.wantOut {
				t.Errorf("stdout %q, want %q", out, c.wantOut)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("err %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Errorf("err %v, want %q", err, c.wantErr)
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	if v, ok := ParseVersion("pdftotext version 22.12.0\nCopyright..."); !ok || v != "22.12.0" {
		t.Errorf("ParseVersion = %q %v", v, ok)
	}
	if _, ok := ParseVersion("nothing"); ok {
		t.Error("no version accepted")
	}
}
