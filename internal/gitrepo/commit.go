package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"copperhead/internal/textfmt"
)

// ErrNothingToCommit means `git add -A` staged nothing: the run changed no
// file git would record.
var ErrNothingToCommit = errors.New("nothing to commit")

// Fallback identity for repositories and users with none configured, so a
// finished run is never lost to "Please tell me who you are". A configured
// identity (repository, global or GIT_AUTHOR_*/GIT_COMMITTER_* variables)
// always wins; git's guesses from the host name never do.
const (
	FallbackName  = "copperhead"
	FallbackEmail = "copperhead@localhost"
)

// subjectWidth bounds the commit subject line, git's conventional limit.
const subjectWidth = 72

// CommitAll stages every change in repo (`git add -A`, so deletions and new
// files too) and commits it with message, returning the new HEAD hash. Hooks
// run as usual (there is no --no-verify): the pre-commit hook `init` installs
// runs `copperhead check`, which a finished run passes. Any git failure,
// e.g. `git add -A` exiting 128 on an embedded repository with no commit
// checked out, comes back as an error quoting git (AC-8.6); if nothing was
// staged the error wraps ErrNothingToCommit. On failure the index may hold
// part of the run's staging; Snapshot.Rollback restores it.
func CommitAll(ctx context.Context, repo, message string) (hash string, err error) {
	if _, err := runGit(ctx, repo, nil, nil, "add", "-A"); err != nil {
		return "", fmt.Errorf("commit in %s: %w", repo, err)
	}
	if _, err := runGit(ctx, repo, nil, nil, "diff", "--cached", "--quiet"); err == nil {
		return "", fmt.Errorf("commit in %s: %w", repo, ErrNothingToCommit)
	} else if exitCode(err) != 1 {
		return "", fmt.Errorf("commit in %s: %w", repo, err)
	}
	// --cleanup=whitespace keeps lines starting with '#' (a request can say
	// "#define"); the message comes on stdin so no text is read as a flag.
	args := slices.Concat(identity(ctx, repo), []string{"commit", "--quiet", "--cleanup=whitespace", "--file=-"})
	if _, err := runGit(ctx, repo, nil, strings.NewReader(message), args...); err != nil {
		return "", fmt.Errorf("commit in %s: %w", repo, err)
	}
	return Run(ctx, repo, "rev-parse", "HEAD")
}

// identity returns the -c options that supply the fallback identity when git
// has no configured one for repo, else nil. user.useConfigOnly stops git from
// guessing "root@host" and reporting that as configured.
func identity(ctx context.Context, repo string) []string {
	for _, v := range []string{"GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"} {
		if _, err := Run(ctx, repo, "-c", "user.useConfigOnly=true", "var", v); err != nil {
			return []string{"-c", "user.name=" + FallbackName, "-c", "user.email=" + FallbackEmail}
		}
	}
	return nil
}

func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		var ec interface{ ExitCode() int }
		if errors.As(ge.err, &ec) {
			return ec.ExitCode()
		}
	}
	return -1
}

// Message formats the structured commit message of a run (spec §4.1 step 8):
//
//	copperhead: <request, one line, cut to fit 72 columns>
//
//	Request: <the full request, only when the subject had to cut it>
//
//	<summary>
//
//	Verification: <verification>
//
// Empty parts are left out.
func Message(request, summary, verification string) string {
	return MessageWithSubject("", request, summary, verification)
}

// MessageWithSubject is Message for a run whose request is not the person's
// words (sync's generated resolution prompt): subject replaces the
// "copperhead: <request>" line, and the request goes into the body whole.
// An empty subject is Message.
func MessageWithSubject(subject, request, summary, verification string) string {
	full := strings.TrimSpace(request)
	line := textfmt.OneLine(full)
	parts := []string{}
	if subject = strings.TrimSpace(subject); subject != "" {
		subject = truncate(textfmt.OneLine(subject), subjectWidth)
		if full != "" {
			parts = append(parts, "Request: "+full)
		}
	} else {
		subject = strings.TrimSpace("copperhead: " + line)
		if utf8.RuneCountInString(subject) > subjectWidth || line != full {
			subject = truncate(subject, subjectWidth)
			parts = append(parts, "Request: "+full)
		}
	}
	parts = slices.Insert(parts, 0, subject)
	if s := strings.TrimSpace(summary); s != "" {
		parts = append(parts, s)
	}
	if v := strings.TrimSpace(verification); v != "" {
		parts = append(parts, "Verification: "+v)
	}
	return strings.Join(parts, "\n\n") + "\n"
}

// truncate cuts s to at most width runes, at a word boundary when one is
// near, and marks the cut with "…".
func truncate(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	cut := string(r[:width-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "…"
}
