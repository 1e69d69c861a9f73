package menu

import (
	"fmt"
	"testing"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "https://www.TI.com/lit/ds/symlink/tps62130.pdf", want: "https://www.ti.com/lit/ds/symlink/tps62130.pdf"},
		{in: "HTTPS://Example.COM", want: "https://example.com/"},
		{in: "https://example.com:443/a", want: "https://example.com/a"},
		{in: "http://example.com:80/a", want: "http://example.com/a"},
		{in: "https://example.com:8443/a", want: "https://example.com:8443/a"},
		{in: "http://example.com:443/a", want: "http://example.com:443/a"},
		{in: "https://example.com/a#page=14", want: "https://example.com/a"},
		{in: "https://example.com/a/./b/../c", want: "https://example.com/a/c"},
		{in: "https://example.com/a/b/..", want: "https://example.com/a/"},
		{in: "https://example.com/../../etc", want: "https://example.com/etc"},
		{in: "https://example.com./x", want: "https://example.com/x"},
		{in: "https://example.com/x?b=2&a=1", want: "https://example.com/x?b=2&a=1"},
		{in: "https://example.com/x%20y?q=a%2Fb", want: "https://example.com/x%20y?q=a%2Fb"},
		{in: "https://[::1]:443/x", want: "https://[::1]/x"},
		{in: "  https://example.com/x  ", want: "https://example.com/x"},
		{in: "https://user:pw@example.com/", wantErr: true},
		{in: "https://evil.com@example.com/", wantErr: true},
		{in: "ftp://example.com/x", wantErr: true},
		{in: "javascript:alert(1)", wantErr: true},
		{in: "mailto:a@example.com", wantErr: true},
		{in: "/relative/path", wantErr: true},
		{in: "example.com/x", wantErr: true},
		{in: "https:example.com", wantErr: true},
		{in: "https:///x", wantErr: true},
		{in: "https://example.com:99999/", wantErr: true},
		{in: `https://example.com\@evil.com/`, wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := Canonicalize(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("Canonicalize(%q) = %q, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Canonicalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		// Canonical form is a fixed point.
		if again, err := Canonicalize(got); err != nil || again != got {
			t.Errorf("Canonicalize(%q) = %q, %v; not idempotent", got, again, err)
		}
	}
}

func TestMenuAddLookup(t *testing.T) {
	m := New(0)
	c, ok := m.Add("HTTPS://www.ST.com/resource/en/datasheet/stm32g0.pdf#p3", "web_search:brave")
	if !ok || c != "https://www.st.com/resource/en/datasheet/stm32g0.pdf" {
		t.Fatalf("Add = %q, %v", c, ok)
	}
	if _, ok := m.Add("https://www.st.com/resource/en/datasheet/stm32g0.pdf", "later"); !ok {
		t.Fatal("re-adding a present URL should succeed")
	}
	e, ok := m.Lookup("https://www.st.com:443/resource/en/./datasheet/stm32g0.pdf")
	if !ok || e.Source != "web_search:brave" {
		t.Fatalf("Lookup of an equivalent URL = %+v, %v", e, ok)
	}
	// A URL the model composed (say, to carry data to an attacker) is not on the menu.
	for _, raw := range []string{
		"https://attacker.example/collect?d=secret",
		"https://www.st.com/resource/en/datasheet/stm32g0.pdf?x=1",
		"not a url",
	} {
		if _, ok := m.Lookup(raw); ok {
			t.Errorf("Lookup(%q) succeeded; want refused", raw)
		}
	}
	if _, ok := m.Add("mailto:x@example.com", "link"); ok {
		t.Error("Add of mailto: should report false")
	}
	if got := len(m.Entries()); got != 1 {
		t.Errorf("Entries() has %d, want 1", got)
	}
}

func TestMenuCap(t *testing.T) {
	m := New(3)
	for i := range 5 {
		_, ok := m.Add(fmt.Sprintf("https://example.com/%d", i), "test")
		if want := i < 3; ok != want {
			t.Errorf("Add #%d ok = %v, want %v", i, ok, want)
		}
	}
	if m.Len() != 3 {
		t.Errorf("Len = %d, want 3", m.Len())
	}
	if _, ok := m.Lookup("https://example.com/4"); ok {
		t.Error("URL dropped by the cap must not be fetchable")
	}
	if New(0).max != DefaultMaxEntries {
		t.Error("New(0) should use DefaultMaxEntries")
	}
}

func FuzzCanonicalize(f *testing.F) {
	f.Add("https://Example.com:443/a/../b?q=1#f")
	f.Add("http://[::1]:80/./x")
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := Canonicalize(raw)
		if err != nil {
			return
		}
		again, err := Canonicalize(c)
		if err != nil || again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", raw, c, again, err)
		}
	})
}
