package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCommitAll(t *testing.T) {
	ctx := context.Background()
	msg := Message("rename net KEY_DAH to KEY_DASH", "Renamed the net on 2 sheets.\n#define-style line kept", "ERC ✓ DRC ✓ drift ✓")
	tests := []struct {
		name       string
		identity   bool
		wantAuthor string
	}{
		{"configured identity", true, "Ada Designer <ada@example.com>"},
		{"no identity falls back", false, FallbackName + " <" + FallbackEmail + ">"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t, tc.identity)
			writeFile(t, dir, "docs/BOM.md", "edited\n", 0o644)
			writeFile(t, dir, "docs/NEW.md", "new\n", 0o644)
			os.Remove(filepath.Join(dir, "docs/PINOUT.md"))
			writeFile(t, dir, ".copperhead/runs/01/transcript.jsonl", "{}\n", 0o644)
			hash, err := CommitAll(ctx, dir, msg)
			if err != nil {
				t.Fatal(err)
			}
			if head := strings.TrimSpace(git(t, dir, "rev-parse", "HEAD")); hash != head {
				t.Errorf("hash %s, HEAD %s", hash, head)
			}
			if got := git(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>"); got != tc.wantAuthor+"|"+tc.wantAuthor+"\n" {
				t.Errorf("identity = %q", got)
			}
			if got := git(t, dir, "log", "-1", "--format=%B"); got != msg+"\n" {
				t.Errorf("message = %q, want %q", got, msg)
			}
			if st := git(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("not everything committed:\n%s", st)
			}
			if files := git(t, dir, "show", "--name-status", "--format=", "HEAD"); files != "M\tdocs/BOM.md\nA\tdocs/NEW.md\nD\tdocs/PINOUT.md\n" {
				t.Errorf("committed:\n%s", files)
			}
		})
	}
}

func TestCommitAllFailures(t *testing.T) {
	ctx := context.Background()
	t.Run("nothing to commit", func(t *testing.T) {
		dir := newRepo(t, true)
		if _, err := CommitAll(ctx, dir, "x"); !errors.Is(err, ErrNothingToCommit) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("embedded repository", func(t *testing.T) {
		dir := newRepo(t, true)
		git(t, dir, "init", "-q", "lib")
		writeFile(t, dir, "lib/x", "x\n", 0o644)
		_, err := CommitAll(ctx, dir, "x")
		if err == nil || !strings.Contains(err.Error(), "git add -A: error: 'lib/' does not have a commit checked out; fatal: adding files failed") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("pre-commit hook refuses", func(t *testing.T) {
		dir := newRepo(t, true)
		writeFile(t, dir, ".git/hooks/pre-commit", "#!/bin/sh\necho 'drift: BOM.md R1 10k vs 4k7' >&2\nexit 1\n", 0o755)
		writeFile(t, dir, "docs/BOM.md", "edited\n", 0o644)
		_, err := CommitAll(ctx, dir, "x")
		if err == nil || !strings.Contains(err.Error(), "drift: BOM.md R1 10k vs 4k7") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestMessage(t *testing.T) {
	long := "move the key input to a different RTC-capable pin that is not a strapping pin and update the docs"
	tests := []struct {
		name, subject, request, summary, verification, want string
	}{
		{"short", "", "add a second RGB LED", "Added D3 on GPIO4.", "ERC ✓ DRC ✓ drift ✓",
			"copperhead: add a second RGB LED\n\nAdded D3 on GPIO4.\n\nVerification: ERC ✓ DRC ✓ drift ✓\n"},
		{"long request is cut at a word, full text in the body", "", long, "", "ERC ✓",
			"copperhead: move the key input to a different RTC-capable pin that is…\n\nRequest: " + long + "\n\nVerification: ERC ✓\n"},
		{"multi-line request", "", "  add R9\n## not a heading  ", "", "",
			"copperhead: add R9 ## not a heading\n\nRequest: add R9\n## not a heading\n"},
		{"a subject of its own: the generated request goes to the body", "copperhead sync: resolve 2 inconsistencies", "Resolve these:\n1. R6 value", "Fixed BOM.", "drift ✓",
			"copperhead sync: resolve 2 inconsistencies\n\nRequest: Resolve these:\n1. R6 value\n\nFixed BOM.\n\nVerification: drift ✓\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MessageWithSubject(tc.subject, tc.request, tc.summary, tc.verification)
			if tc.subject == "" && got != Message(tc.request, tc.summary, tc.verification) {
				t.Errorf("an empty subject is not Message")
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			if subject, _, _ := strings.Cut(got, "\n"); len([]rune(subject)) > subjectWidth {
				t.Errorf("subject is %d runes", len([]rune(subject)))
			}
		})
	}
}
