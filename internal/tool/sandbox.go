package tool

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"copperhead/internal/config"
)

// RepoPath is a model-given path resolved inside the repository.
type RepoPath struct {
	Abs string // absolute, every existing symlink resolved
	Rel string // slash-separated, relative to the repository root ("." for the root)
}

// ResolvePath is the one gate between a path the model names and the file
// system: every file tool resolves through it, so no tool can reach outside
// the repository (AC-4.2) or into what it must not see. It refuses
//
//   - paths outside the repository, lexically ("../../etc/hosts", "/etc/hosts")
//     or through a symlink: the longest existing prefix of the path is
//     resolved with EvalSymlinks and must still be inside, so a link that
//     points out is caught before anything is read or written through it;
//   - anything inside a .git folder: git internals are the lifecycle's, and a
//     write there could rewrite history or hooks;
//   - the run records under .copperhead/runs/ (transcripts of this and
//     earlier runs; reading them back would feed the model its own output);
//   - files that conventionally hold secrets (isSecret): .env files, keys and
//     certificates. Every tool refuses them, not only read_file: edit_file's
//     "not found" answer would otherwise be an oracle for their contents.
//
// The checks apply to both the path as named and the path it resolves to,
// so a symlink named README.md that points at .env is refused, and so is a
// link named .env. The returned Abs is the resolved path: a write through an
// in-repo symlink updates its target instead of replacing the link.
func (s *Session) ResolvePath(p string) (RepoPath, error) {
	if strings.TrimSpace(p) == "" {
		return RepoPath{}, errors.New("path is empty: give a path relative to the repository root, e.g. docs/SPEC.md")
	}
	if strings.ContainsRune(p, 0) {
		return RepoPath{}, fmt.Errorf("path %q contains a NUL byte", p)
	}
	repo := filepath.Clean(s.Repo)
	lexical := filepath.Clean(p)
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(repo, lexical)
	}
	rel, ok := Inside(repo, lexical)
	if !ok {
		return RepoPath{}, fmt.Errorf("path %s is outside the repository: only files under the repository root can be used; give a path relative to it, e.g. docs/SPEC.md", p)
	}
	if why := Refusal(rel); why != "" {
		return RepoPath{}, fmt.Errorf("path %s is refused: %s", p, why)
	}
	real, err := resolveExisting(lexical)
	if err != nil {
		return RepoPath{}, fmt.Errorf("path %s cannot be resolved: %v", p, err)
	}
	realRel, ok := Inside(repo, real)
	if !ok {
		return RepoPath{}, fmt.Errorf("path %s is a symlink (or lies under one) that points outside the repository; it is refused", p)
	}
	if why := Refusal(realRel); why != "" {
		return RepoPath{}, fmt.Errorf("path %s resolves to %s, which is refused: %s", p, realRel, why)
	}
	return RepoPath{Abs: real, Rel: realRel}, nil
}

// Inside reports whether p (absolute, clean) lies in repo, and its
// slash-separated path relative to it.
func Inside(repo, p string) (string, bool) {
	rel, err := filepath.Rel(repo, p)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// resolveExisting resolves the symlinks of the longest prefix of p that
// exists and appends the rest, which does not exist yet and so cannot be a
// link. A dangling link is an error: writing through it would create its
// target, wherever that is.
func resolveExisting(p string) (string, error) {
	cur := p
	var rest []string
	for {
		if _, err := os.Lstat(cur); err == nil {
			real, err := filepath.EvalSymlinks(cur)
			if err != nil {
				return "", err
			}
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// Refusal says why a repo-relative path is off limits to every tool, or "".
func Refusal(rel string) string {
	if rel == "." {
		return ""
	}
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" {
			return "git internals (.git/) are off limits"
		}
	}
	runs := strings.TrimSuffix(config.RunsDir, "/")
	if rel == runs || strings.HasPrefix(rel, runs+"/") {
		return "run records under " + config.RunsDir + " are off limits"
	}
	if isSecret(path.Base(rel)) {
		return "it may hold secrets (keys, tokens, certificates), which copperhead never reads or writes"
	}
	return ""
}

// secretPrefixes and secretExts name files that conventionally hold
// credentials. The list is deliberately short and certain: refusing a
// design file by accident would stall a run, so only names whose purpose is
// a secret are here.
var (
	secretPrefixes = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}
	secretExts     = []string{".pem", ".key", ".p12", ".pfx"}
	secretNames    = []string{".env", ".netrc", ".npmrc", ".pypirc"}
)

// isSecret reports whether a file name is one copperhead never touches: .env
// and .env.* (.env.local, .env.production), private keys and certificates.
func isSecret(base string) bool {
	b := strings.ToLower(base)
	for _, n := range secretNames {
		if b == n {
			return true
		}
	}
	if strings.HasPrefix(b, ".env.") {
		return true
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(b, p) {
			return true
		}
	}
	for _, e := range secretExts {
		if strings.HasSuffix(b, e) {
			return true
		}
	}
	return false
}

// Scrub makes a message about repository files read the way the model names
// them: the repository's absolute prefix is removed, so kicad-cli's and the
// loaders' errors say "hardware/x.kicad_sch", not a temporary path.
func (s *Session) Scrub(msg string) string {
	repo := filepath.Clean(s.Repo)
	if repo == "." || repo == string(filepath.Separator) {
		return msg
	}
	return strings.ReplaceAll(msg, repo+string(filepath.Separator), "")
}
