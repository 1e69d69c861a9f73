// Package gitrepo is the one place copperhead runs git: a timeout, captured
// stderr, and errors that quote git's own words. It imports only the
// standard library.
package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeout bounds one git command; local plumbing answers in milliseconds.
const Timeout = time.Minute

// Run runs git with args in dir and returns its trimmed stdout.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// IsRepo reports whether dir is inside a git work tree.
func IsRepo(ctx context.Context, dir string) bool {
	out, err := Run(ctx, dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && out == "true"
}

// HooksDir returns the absolute folder git runs hooks from for the repository
// at dir (it honours core.hooksPath and linked worktrees).
func HooksDir(ctx context.Context, dir string) (string, error) {
	p, err := Run(ctx, dir, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// Version returns git's version, e.g. "2.39.5".
func Version(ctx context.Context) (string, error) {
	out, err := Run(ctx, "", "--version")
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(out, "git version "), nil
}
