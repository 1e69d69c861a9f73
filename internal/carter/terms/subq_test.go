package terms

import (
	"strings"
	"testing"
)

func TestSubQuestions(t *testing.T) {
	tests := []struct{ q, want string }{
		{"What does the Go memory model guarantee for programs with data races, and how can GODEBUG settings change runtime behaviour?",
			"What does the Go memory model guarantee for programs with data races|how can GODEBUG settings change runtime behaviour"},
		{"How do I sort lines numerically in reverse order?", "How do I sort lines numerically in reverse order"},
		{"What is the difference between git merge and git rebase?", "What is git merge|What is git rebase"},
		{"What do the -n, -r and -u options of sort do?", "What do the -n options of sort do|What do the -r options of sort do|What do the -u options of sort do"},
		{"What is a net class? How is it assigned?", "What is a net class|How is it assigned"},
		{"How are net classes used to set track width and clearance?", "How are net classes used to set track width and clearance"},
		{"What does strace -f do and what does -o write?", "What does strace -f do|what does -o write"},
		{"How does git cherry-pick differ from git rebase?", "What is git cherry-pick|What is git rebase"},
		{"How is a local label different from a global label?", "What is a local label|What is a global label"},
		{"Compare git log with git bisect", "What is git log|What is git bisect"},
		{"git stash vs git commit: which one keeps untracked files?", "What is git stash|What is git commit"},
		{"What is pdftotext versus pdfinfo?", "What is pdftotext|What is pdfinfo"},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range SubQuestions(tt.q) {
			got = append(got, s.Text)
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("SubQuestions(%q)\n got %s\nwant %s", tt.q, g, tt.want)
		}
	}
}

func TestAddresses(t *testing.T) {
	sub := SubQuestions("What does bash set -e do?")[0]
	if Addresses(sub, Stems("bash -c string: commands are read from string")) {
		t.Error("a sentence about bash -c addresses set -e")
	}
	if !Addresses(sub, Stems("set -e: exit immediately if a pipeline returns a non-zero status")) {
		t.Error("the set -e entry does not address set -e")
	}
}
