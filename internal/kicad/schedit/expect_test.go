package schedit

import (
	"strings"
	"testing"

	"copperhead/internal/kicad"
)

// nl builds a netlist from "NAME=R1.1,R2.2" net specs and "REF=VALUE" parts.
func nl(parts []string, nets ...string) *kicad.Netlist {
	out := &kicad.Netlist{}
	for _, p := range parts {
		ref, val, _ := strings.Cut(p, "=")
		out.Components = append(out.Components, kicad.NetComponent{Refdes: ref, Value: val})
	}
	for _, spec := range nets {
		name, nodes, _ := strings.Cut(spec, "=")
		n := kicad.Net{Name: name}
		for _, nd := range strings.Split(nodes, ",") {
			ref, pin, _ := strings.Cut(nd, ".")
			n.Nodes = append(n.Nodes, kicad.NetNode{Refdes: ref, Pin: pin})
		}
		out.Nets = append(out.Nets, n)
	}
	return out
}

func TestVerify(t *testing.T) {
	parts := []string{"R1=10k", "R2=1k", "U1=MCU"}
	before := nl(parts, "/A=R1.1,U1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3")
	tests := []struct {
		name   string
		expect Expect
		after  *kicad.Netlist
		want   string // "" = passes; else a substring of the error
	}{
		{"nothing changed, nothing expected", Expect{}, before, ""},
		{"rename as expected", Expect{Renames: []NetRename{{"/A", "/B"}}},
			nl(parts, "/B=R1.1,U1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"rename KiCad did not see", Expect{Renames: []NetRename{{"/A", "/B"}}}, before, "KiCad names the net /A, not /B"},
		{"silent merge", Expect{Renames: []NetRename{{"/A", "GND"}}},
			nl(parts, "GND=R1.1,U1.1,R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"merge not intended", Expect{Renames: []NetRename{{"/A", "/B"}}},
			nl(parts, "GND=R1.1,U1.1,R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), "joins what should be two nets"},
		{"auto-named net renamed by KiCad", Expect{Removed: []string{"R2"}},
			nl([]string{"R1=10k", "U1=MCU"}, "/A=R1.1,U1.1", "GND=R1.2", "unconnected-(U1-Pad2)=U1.2", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"remove took another part", Expect{Removed: []string{"R2"}},
			nl([]string{"U1=MCU"}, "/A=U1.1", "unconnected-(U1-Pad2)=U1.2", "unconnected-(U1-Pad3)=U1.3"), "lost part R1"},
		{"field set", Expect{Fields: []FieldValue{{"R1", "Value", "47k"}}},
			nl([]string{"R1=47k", "R2=1k", "U1=MCU"}, "/A=R1.1,U1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"field not seen by KiCad", Expect{Fields: []FieldValue{{"R1", "Value", "47k"}}}, before, `KiCad reads R1 Value as "10k", not "47k"`},
		{"field changed on the wrong part", Expect{Fields: []FieldValue{{"R1", "Value", "47k"}}},
			nl([]string{"R1=47k", "R2=47k", "U1=MCU"}, "/A=R1.1,U1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), "R2 Value"},
		{"swap", Expect{Pins: []PinNet{{Ref: "U1", Pin: "1", Like: "U1.2"}, {Ref: "U1", Pin: "2", Like: "U1.1"}}},
			nl(parts, "/A=R1.1,U1.2", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.1", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"connect", Expect{Pins: []PinNet{{Ref: "U1", Pin: "3", Net: "GND"}}},
			nl(parts, "/A=R1.1,U1.1", "GND=R1.2,R2.2,U1.3", "Net-(R2-Pad1)=R2.1,U1.2"), ""},
		{"disconnect", Expect{Pins: []PinNet{{Ref: "U1", Pin: "1"}}},
			nl(parts, "/A=R1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad1)=U1.1", "unconnected-(U1-Pad3)=U1.3"), ""},
		{"disconnect left the pin on", Expect{Pins: []PinNet{{Ref: "U1", Pin: "1"}}}, before, "joins what should be two nets"},
		{"added part with a hidden power pin", Expect{Added: []string{"U2"}},
			nl(append(parts, "U2=74HC00"), "/A=R1.1,U1.1", "GND=R1.2,R2.2,U2.7", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3", "unconnected-(U2-Pad1)=U2.1"), ""},
		{"part appeared unasked", Expect{},
			nl(append(parts, "U2=74HC00"), "/A=R1.1,U1.1", "GND=R1.2,R2.2", "Net-(R2-Pad1)=R2.1,U1.2", "unconnected-(U1-Pad3)=U1.3"), "gained a part U2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.expect, before, tc.after)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Verify passed, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("Verify: %v\nwant it to say %q", err, tc.want)
			}
		})
	}
}
