package schedit

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestSwapPinsLabels(t *testing.T) {
	root := fixtureRoot(t)
	before := netlist(t, root)
	orig, _ := os.ReadFile(root)
	d := loadVerified(t, root)
	p, err := SwapPins(d, "U1", "IO5", "6", "")
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	if n := diffStat(t, orig, root); n > 8 {
		t.Errorf("diff touches %d lines, want at most 8 (two names, two shapes)", n)
	}
	after := netlist(t, root)
	want := []string{"U1.5: KEY_DAH -> LED_R", "U1.6: LED_R -> KEY_DAH"}
	var got []string
	for _, s := range netDiff(before, after) {
		if s[:3] == "U1." {
			got = append(got, s)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("U1 pin changes = %v, want %v (all: %v)", got, want, netDiff(before, after))
	}
	// Other parts keep their nets (names follow the labels).
	for _, s := range netDiff(before, after) {
		if s[:3] != "U1." {
			t.Errorf("unexpected change %s", s)
		}
	}
}

func TestSwapPinsOntoNoConnect(t *testing.T) {
	root := fixtureRoot(t)
	before := netlist(t, root)
	d := loadVerified(t, root)
	p, err := SwapPins(d, "U1", "5", "10", "") // KEY_DAH onto IO17, which carries a no-connect flag
	if err != nil {
		t.Fatal(err)
	}
	applyVerified(t, d, p)
	after := netOf(netlist(t, root))
	if after["U1.10"] != "KEY_DAH" {
		t.Errorf("U1.10 = %q, want KEY_DAH", after["U1.10"])
	}
	if b := netOf(before); after["U1.5"] == b["U1.5"] || after["U1.5"] == "KEY_DAH" {
		t.Errorf("U1.5 = %q, want unconnected", after["U1.5"])
	}
	d = loadVerified(t, root)
	if _, err := SwapPins(d, "U1", "5", "10", ""); err != nil {
		t.Errorf("swapping back: %v", err)
	}
}

func TestSwapPinsRefusals(t *testing.T) {
	d := mustLoad(t, fixtureRoot(t))
	for _, c := range [][3]string{{"U9", "1", "2"}, {"U1", "5", "999"}, {"U1", "5", "5"}} {
		if _, err := SwapPins(d, c[0], c[1], c[2], ""); !errors.Is(err, ErrRefused) {
			t.Errorf("SwapPins(%v) = %v, want refusal", c, err)
		}
	}
	// U1 pin 1 (GND) is wired to a power symbol, not a label.
	if _, err := SwapPins(d, "U1", "1", "5", ""); !errors.Is(err, ErrRefused) {
		t.Errorf("SwapPins(U1.1) = %v, want refusal for direct wiring", err)
	}
}

// With the intended net named, a swap is idempotent: the second run finds
// the net already on the target pin and plans nothing.
func TestSwapPinsWithNetIsIdempotent(t *testing.T) {
	root := fixtureRoot(t)
	d := loadVerified(t, root)
	p, err := SwapPins(d, "U1", "IO5", "6", "KEY_DAH")
	if err != nil {
		t.Fatal(err)
	}
	if p.NoOp() {
		t.Fatal("first swap planned nothing")
	}
	applyVerified(t, d, p)
	once, _ := os.ReadFile(root)
	if got := netOf(netlist(t, root))["U1.6"]; got != "KEY_DAH" {
		t.Fatalf("U1.6 = %q after the swap, want KEY_DAH", got)
	}
	d = loadVerified(t, root)
	p, err = SwapPins(d, "U1", "IO5", "6", "KEY_DAH")
	if err != nil {
		t.Fatal(err)
	}
	if !p.NoOp() {
		t.Errorf("second swap with --net KEY_DAH planned %v, want a no-op", p.Edits)
	}
	applyVerified(t, d, p)
	if again, _ := os.ReadFile(root); string(again) != string(once) {
		t.Error("re-applying the swap changed the file")
	}
	// A net neither pin carries is refused, not guessed at.
	if _, err := SwapPins(d, "U1", "5", "6", "LED_G"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "LED_G") {
		t.Errorf("SwapPins(net LED_G) = %v, want a refusal naming LED_G", err)
	}
}
