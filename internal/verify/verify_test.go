package verify

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCheckLoadsNoModelCode proves that check's engine, and every package it
// calls, cannot reach LLM, research or networking code: nothing under it
// imports them. (cli/check.go only renders verify's result.)
func TestCheckLoadsNoModelCode(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "copperhead/internal/verify").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list returned too little to judge: %v", deps)
	}
	for _, d := range deps {
		for _, banned := range []string{"copperhead/internal/llm", "copperhead/internal/research", "copperhead/internal/agent", "net/http"} {
			if d == banned || strings.HasPrefix(d, banned+"/") {
				t.Errorf("check's package graph includes %s", d)
			}
		}
	}
}
