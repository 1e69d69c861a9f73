package gitrepo

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepoAndHooks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if IsRepo(ctx, dir) {
		t.Fatal("a fresh temp folder is not a repository")
	}
	if _, err := Run(ctx, dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if !IsRepo(ctx, dir) {
		t.Fatal("after git init the folder is a repository")
	}
	hooks, err := HooksDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".git", "hooks"); hooks != want {
		t.Errorf("hooks = %s, want %s", hooks, want)
	}
	if _, err := Run(ctx, dir, "config", "core.hooksPath", "githooks"); err != nil {
		t.Fatal(err)
	}
	if hooks, _ := HooksDir(ctx, dir); hooks != filepath.Join(dir, "githooks") {
		t.Errorf("core.hooksPath ignored: %s", hooks)
	}
}

func TestErrorQuotesGit(t *testing.T) {
	_, err := Run(context.Background(), t.TempDir(), "rev-parse", "HEAD")
	if err == nil || !strings.Contains(err.Error(), "git rev-parse HEAD: fatal:") {
		t.Fatalf("err = %v", err)
	}
}
