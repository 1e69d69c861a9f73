package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptExitStatus: SIGINT or SIGTERM during a kicad-cli run ends
// copperhead with exit status 130 and one line on stderr (testscript sees
// only "failed", so the status is checked here). kicad-cli is a fake that
// marks that it started and hangs.
func TestInterruptExitStatus(t *testing.T) {
	bin, err := exec.LookPath("copperhead") // testscript.Main puts it on PATH
	if err != nil {
		t.Skip("copperhead command not on PATH")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.CopyFS(repo, os.DirFS("../../examples/open-telegraph")); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(dir, "started")
	fake := filepath.Join(dir, "kicad-cli")
	script := "#!/bin/sh\nif [ \"$1\" = version ]; then echo 9.0.8; exit 0; fi\n: > \"$STARTED\"\nexec sleep 1000\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			os.Remove(started)
			cmd := exec.Command(bin, "--repo", repo, "nets")
			cmd.Env = append(os.Environ(), "COPPERHEAD_KICAD_CLI="+fake, "STARTED="+started,
				"COPPERHEAD_CACHE_DIR="+filepath.Join(dir, "cache"), "HOME="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(started); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("kicad-cli never started")
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(20 * time.Second): // a hang detector only
				t.Fatal("copperhead did not stop after the signal")
			}
			var exitErr *exec.ExitError
			if !errors.As(werr, &exitErr) || exitErr.ExitCode() != exitInterrupted {
				t.Errorf("exit: %v, want status %d", werr, exitInterrupted)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "stopped (") || !strings.Contains(msg, "signal received)") {
				t.Errorf("stderr %q, want one line saying the signal stopped kicad-cli", msg)
			}
		})
	}
}
