package kicad

import (
	"reflect"
	"strings"
	"testing"
)

// netlistXMLSample is trimmed from kicad-cli 9.0.8's kicadxml export of the
// complex_hierarchy demo (one sheet file used twice), with an empty value and
// a user field added, and the exporter's order scrambled.
const netlistXMLSample = `<?xml version="1.0" encoding="UTF-8"?>
<export version="E">
  <design>
    <source>/tmp/complex_hierarchy/complex_hierarchy.kicad_sch</source>
    <tool>Eeschema 9.0.8+1</tool>
    <sheet number="1" name="/" tstamps="/"/>
  </design>
  <components>
    <comp ref="R310">
      <value>~</value>
      <footprint>Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal</footprint>
      <fields>
        <field name="Footprint">Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal</field>
        <field name="Datasheet"/>
        <field name="MPN">CFR-25JB-52-10K</field>
      </fields>
      <libsource lib="complex_hierarchy" part="R" description=""/>
      <property name="Sheetname" value="ampli_ht_horizontal"/>
      <property name="Sheetfile" value="ampli_ht.kicad_sch"/>
      <sheetpath names="/ampli_ht_horizontal/" tstamps="/00000000-0000-0000-0000-00004b3a13a4/"/>
      <tstamps>00000000-0000-0000-0000-00004b3a12f4</tstamps>
    </comp>
    <comp ref="R210">
      <value>10K</value>
      <footprint>Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal</footprint>
      <libsource lib="" part="R_legacy" description=""/>
      <sheetpath names="/ampli_ht_vertical/" tstamps="/00000000-0000-0000-0000-00004b3a1333/"/>
      <tstamps>00000000-0000-0000-0000-00004b3a12f4</tstamps>
    </comp>
    <comp ref="R29">
      <value>1K &amp; more</value>
      <libsource lib="complex_hierarchy" part="R" description=""/>
      <sheetpath names="/" tstamps="/"/>
    </comp>
  </components>
  <libparts>
    <libpart lib="complex_hierarchy" part="R"><pins><pin num="1" name="" type="passive"/></pins></libpart>
  </libparts>
  <nets>
    <net code="52" name="unconnected-(U102-OSC-Pad7)" class="Default">
      <node ref="U102" pin="7" pinfunction="OSC" pintype="input+no_connect"/>
    </net>
    <net code="1" name="+12V" class="Default">
      <node ref="U201" pin="8" pinfunction="V+" pintype="power_in"/>
      <node ref="C104" pin="1" pintype="passive"/>
      <node ref="U101" pin="10" pinfunction="VI" pintype="input"/>
      <node ref="U101" pin="3" pinfunction="VI" pintype="input"/>
    </net>
    <net code="12" name="GND" class="power">
      <node ref="C101" pin="2" pintype="passive"/>
    </net>
  </nets>
</export>
`

func TestParseNetlistXML(t *testing.T) {
	nl, err := ParseNetlistXML([]byte(netlistXMLSample))
	if err != nil {
		t.Fatal(err)
	}
	wantComps := []NetComponent{
		{Refdes: "R29", Value: "1K & more", LibID: "complex_hierarchy:R", SheetPath: "/"},
		{Refdes: "R210", Value: "10K", Footprint: "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
			LibID: "R_legacy", SheetPath: "/ampli_ht_vertical/"},
		{Refdes: "R310", Value: "", Footprint: "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
			LibID: "complex_hierarchy:R", SheetPath: "/ampli_ht_horizontal/",
			Fields: map[string]string{
				"Footprint": "Resistor_THT:R_Axial_DIN0207_L6.3mm_D2.5mm_P10.16mm_Horizontal",
				"Datasheet": "",
				"MPN":       "CFR-25JB-52-10K",
			},
			Properties: map[string]string{"Sheetname": "ampli_ht_horizontal", "Sheetfile": "ampli_ht.kicad_sch"}},
	}
	if !reflect.DeepEqual(nl.Components, wantComps) {
		t.Errorf("components:\n got %+v\nwant %+v", nl.Components, wantComps)
	}
	wantNets := []Net{
		{Code: "1", Name: "+12V", Nodes: []NetNode{
			{Refdes: "C104", Pin: "1", PinType: "passive"},
			{Refdes: "U101", Pin: "3", PinFunction: "VI", PinType: "input"},
			{Refdes: "U101", Pin: "10", PinFunction: "VI", PinType: "input"},
			{Refdes: "U201", Pin: "8", PinFunction: "V+", PinType: "power_in"},
		}},
		{Code: "12", Name: "GND", Nodes: []NetNode{{Refdes: "C101", Pin: "2", PinType: "passive"}}},
		{Code: "52", Name: "unconnected-(U102-OSC-Pad7)", Nodes: []NetNode{
			{Refdes: "U102", Pin: "7", PinFunction: "OSC", PinType: "input+no_connect"},
		}},
	}
	if !reflect.DeepEqual(nl.Nets, wantNets) {
		t.Errorf("nets:\n got %+v\nwant %+v", nl.Nets, wantNets)
	}
}

func TestParseNetlistXMLErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "parse kicadxml netlist: EOF"},
		{"truncated", `<export version="E"><components><comp ref="R1">`, "parse kicadxml netlist"},
		{"not a netlist", `<svg/>`, "expected element type <export> but have <svg>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNetlistXML([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestIsUnconnectedNet(t *testing.T) {
	for name, want := range map[string]bool{
		"unconnected-(U102-OSC-Pad7)": true,
		"Net-(C201-Pad2)":             false,
		"/unconnected":                false,
	} {
		if got := IsUnconnectedNet(name); got != want {
			t.Errorf("IsUnconnectedNet(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzParseNetlistXML(f *testing.F) {
	f.Add([]byte(netlistXMLSample))
	f.Add([]byte(`<export><nets><net code="1" name="x"><node ref="R1" pin="1"/></net></nets></export>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		nl, err := ParseNetlistXML(data)
		if err == nil && nl == nil {
			t.Fatal("nil netlist without an error")
		}
	})
}

// TestCheckNetlistCovers: a netlist with no component from a sheet our parse
// holds parts in (kicad-cli silently skips a sub-sheet it cannot load) is
// refused naming the file; a complete one passes.
func TestCheckNetlistCovers(t *testing.T) {
	s := &Schematic{
		Sheets: []SheetInstance{{Path: "/", File: "top.kicad_sch"}, {Path: "/power/", Name: "power", File: "power.kicad_sch"}, {Path: "/empty/", File: "empty.kicad_sch"}},
		Parts:  []Part{{Refdes: "U1", SheetPath: "/"}, {Refdes: "C1", SheetPath: "/power/"}, {Refdes: "C2", SheetPath: "/power/"}},
	}
	whole := &Netlist{Components: []NetComponent{{Refdes: "U1", SheetPath: "/"}, {Refdes: "C1", SheetPath: "/power/"}}}
	if err := CheckNetlistCovers(s, whole); err != nil {
		t.Errorf("whole netlist: %v", err)
	}
	partial := &Netlist{Components: []NetComponent{{Refdes: "U1", SheetPath: "/"}}}
	err := CheckNetlistCovers(s, partial)
	if want := "kicad-cli could not load power.kicad_sch (sheet /power/): its netlist leaves out the sheet's 2 parts"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("partial netlist: %v, want %q", err, want)
	}
}
