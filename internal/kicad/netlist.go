package kicad

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
)

// ParseNetlistXML reads the netlist kicad-cli writes with
// `sch export netlist --format kicadxml`. That export is our authority for
// connectivity: KiCad has already resolved the hierarchy (a sheet used twice
// yields two sets of references), aggregated multi-unit symbols into one
// component, dropped power symbols, and named every unconnected pin's net
// "unconnected-(...)".
//
// Components are sorted by Refdes (natural order, then SheetPath), nets by
// Name, and the nodes of a net by Refdes then pin number, so the result does
// not depend on the exporter's ordering.
func ParseNetlistXML(data []byte) (*Netlist, error) {
	var doc xmlNetlist
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse kicadxml netlist: %w", err)
	}
	nl := &Netlist{
		Components: make([]NetComponent, 0, len(doc.Components)),
		Nets:       make([]Net, 0, len(doc.Nets)),
	}
	for _, c := range doc.Components {
		comp := NetComponent{
			Refdes:    c.Ref,
			Value:     netlistValue(c.Value),
			Footprint: strings.TrimSpace(c.Footprint),
			LibID:     netlistLibID(c.LibSource.Lib, c.LibSource.Part),
			SheetPath: c.SheetPath.Names,
		}
		if len(c.Fields) > 0 {
			comp.Fields = make(map[string]string, len(c.Fields))
			for _, f := range c.Fields {
				comp.Fields[f.Name] = f.Value
			}
		}
		for _, pr := range c.Properties {
			if comp.Properties == nil {
				comp.Properties = map[string]string{}
			}
			comp.Properties[pr.Name] = pr.Value
		}
		nl.Components = append(nl.Components, comp)
	}
	for _, n := range doc.Nets {
		net := Net{Code: n.Code, Name: n.Name, Nodes: make([]NetNode, 0, len(n.Nodes))}
		for _, nd := range n.Nodes {
			net.Nodes = append(net.Nodes, NetNode{
				Refdes:      nd.Ref,
				Pin:         nd.Pin,
				PinFunction: nd.PinFunction,
				PinType:     nd.PinType,
			})
		}
		slices.SortFunc(net.Nodes, func(a, b NetNode) int {
			if c := CompareRefdes(a.Refdes, b.Refdes); c != 0 {
				return c
			}
			return CompareRefdes(a.Pin, b.Pin)
		})
		nl.Nets = append(nl.Nets, net)
	}
	slices.SortFunc(nl.Components, func(a, b NetComponent) int {
		if c := CompareRefdes(a.Refdes, b.Refdes); c != 0 {
			return c
		}
		return strings.Compare(a.SheetPath, b.SheetPath)
	})
	slices.SortFunc(nl.Nets, func(a, b Net) int {
		if c := CompareRefdes(a.Name, b.Name); c != 0 {
			return c
		}
		return CompareRefdes(a.Code, b.Code)
	})
	return nl, nil
}

// netlistValue undoes the exporter's placeholder: KiCad always writes a
// <value> element and spells an empty value "~".
func netlistValue(v string) string {
	if v == "~" {
		return ""
	}
	return v
}

// netlistLibID joins a libsource back into the "lib:part" form a .kicad_sch
// uses. Symbols not looked up through a library table have no nickname.
func netlistLibID(lib, part string) string {
	if lib == "" {
		return part
	}
	return lib + ":" + part
}

// xmlNetlist mirrors the parts of KiCad's version "E" XML netlist we read;
// encoding/xml ignores the rest (design header, libparts, libraries).
type xmlNetlist struct {
	XMLName    xml.Name  `xml:"export"`
	Components []xmlComp `xml:"components>comp"`
	Nets       []xmlNet  `xml:"nets>net"`
}

type xmlComp struct {
	Ref        string        `xml:"ref,attr"`
	Value      string        `xml:"value"`
	Footprint  string        `xml:"footprint"`
	Fields     []xmlField    `xml:"fields>field"`
	Properties []xmlProperty `xml:"property"`
	LibSource  xmlLibSource  `xml:"libsource"`
	SheetPath  xmlSheetPath  `xml:"sheetpath"`
}

type xmlField struct {
	Name  string `xml:"name,attr"`
	Value string `xml:",chardata"`
}

// xmlProperty is a <property name=".." value=".."/>: KiCad writes the
// symbol's flags there (dnp, exclude_from_bom, exclude_from_board) and its
// sheet's name and file.
type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlLibSource struct {
	Lib  string `xml:"lib,attr"`
	Part string `xml:"part,attr"`
}

type xmlSheetPath struct {
	Names string `xml:"names,attr"`
}

type xmlNet struct {
	Code  string       `xml:"code,attr"`
	Name  string       `xml:"name,attr"`
	Nodes []xmlNetNode `xml:"node"`
}

type xmlNetNode struct {
	Ref         string `xml:"ref,attr"`
	Pin         string `xml:"pin,attr"`
	PinFunction string `xml:"pinfunction,attr"`
	PinType     string `xml:"pintype,attr"`
}

// IsUnconnectedNet reports whether name is a net KiCad made up for a single
// pin that connects to nothing, "unconnected-(U1-NC-Pad4)".
func IsUnconnectedNet(name string) bool {
	return strings.HasPrefix(name, "unconnected-(")
}
