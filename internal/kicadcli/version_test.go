package kicadcli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestFindRemembersVersion: `kicad-cli version` is asked once per binary
// while a cache folder exists; a replaced binary, or no cache folder, is
// asked again, and an unreadable answer is never remembered.
func TestFindRemembersVersion(t *testing.T) {
	count := func(t *testing.T, log string) int {
		t.Helper()
		data, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return 0
		} else if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(data), "asked\n")
	}
	find := func(t *testing.T, want string) {
		t.Helper()
		tool, err := Find(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if tool.Version() != want {
			t.Fatalf("Version() = %q, want %q", tool.Version(), want)
		}
	}

	t.Run("asked once per binary", func(t *testing.T) {
		t.Setenv("COPPERHEAD_CACHE_DIR", t.TempDir())
		log := t.TempDir() + "/log"
		path := fakeKicadCLI(t, "echo asked >> "+log+"; echo 9.0.8", "exit 9")
		find(t, "9.0.8")
		find(t, "9.0.8")
		if n := count(t, log); n != 1 {
			t.Fatalf("kicad-cli version ran %d times, want 1", n)
		}
		// An upgrade replaces the binary: its new answer is asked for.
		script := "#!/bin/sh\nif [ \"$1\" = version ]; then\necho asked >> " + log + "; echo 9.0.9\nexit 0\nfi\nexit 9\n"
		if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		find(t, "9.0.9")
		find(t, "9.0.9")
		if n := count(t, log); n != 2 {
			t.Fatalf("kicad-cli version ran %d times after the upgrade, want 2 in all", n)
		}
	})

	t.Run("no cache folder", func(t *testing.T) {
		t.Setenv("COPPERHEAD_CACHE_DIR", "")
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "")
		log := t.TempDir() + "/log"
		fakeKicadCLI(t, "echo asked >> "+log+"; echo 9.0.8", "exit 9")
		find(t, "9.0.8")
		find(t, "9.0.8")
		if n := count(t, log); n != 2 {
			t.Fatalf("kicad-cli version ran %d times without a cache folder, want 2", n)
		}
	})

	t.Run("unreadable answer not remembered", func(t *testing.T) {
		t.Setenv("COPPERHEAD_CACHE_DIR", t.TempDir())
		log := t.TempDir() + "/log"
		fakeKicadCLI(t, "echo asked >> "+log+"; echo hello", "exit 9")
		for range 2 {
			if _, err := Find(context.Background()); err == nil || !strings.Contains(err.Error(), `cannot read a version from "hello"`) {
				t.Fatalf("err = %v, want cannot read a version", err)
			}
		}
		if n := count(t, log); n != 2 {
			t.Fatalf("kicad-cli version ran %d times, want 2", n)
		}
	})
}
