package design

import (
	"fmt"
	"strings"
)

// BOM.md and PINOUT.md column headers, in generated order. Readers find
// columns by name (see columnAliases), never by position.
var (
	BOMColumns    = []string{"Refdes", "Value", "Footprint", "MPN", "Rationale"}
	PinoutColumns = []string{"Refdes", "Pin", "Name", "Net", "Type", "Notes"}
)

// MPNUnverified is the MPN cell of a part whose schematic carries no
// manufacturer part number: the agent never invents one (spec §7).
const MPNUnverified = "UNVERIFIED"

// BOMRow is one row of BOM.md: one real part reference, all units together.
type BOMRow struct {
	Refdes    string `json:"refdes"`
	Value     string `json:"value"`
	Footprint string `json:"footprint"`
	MPN       string `json:"mpn"`
	Rationale string `json:"rationale"`
}

// PinoutRow is one row of PINOUT.md: one pin of one IC and the net on it.
type PinoutRow struct {
	Refdes string `json:"refdes"`
	Pin    string `json:"pin"`  // pin number
	Name   string `json:"name"` // pin name (the netlist's pin_function)
	Net    string `json:"net"`  // net name, or NCMarker
	Type   string `json:"type"` // electrical type, e.g. bidirectional, power_in
	Notes  string `json:"notes"`
}

// columnAliases maps a normalised header (lower case, letters and digits
// only) to the column it names, so "Ref", "Reference" and "RefDes" all find
// the refdes column of a hand-made table.
var columnAliases = map[string]string{
	"refdes": "refdes", "ref": "refdes", "reference": "refdes", "designator": "refdes",
	"value": "value", "footprint": "footprint", "package": "footprint",
	"mpn": "mpn", "partnumber": "mpn", "manufacturerpartnumber": "mpn",
	"rationale": "rationale", "why": "rationale",
	"pin": "pin", "pinnumber": "pin", "number": "pin",
	"name": "name", "pinname": "name", "function": "name",
	"net": "net", "netname": "net",
	"type": "type", "electricaltype": "type",
	"notes": "notes", "note": "notes",
}

func columnKey(header string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(header) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return columnAliases[b.String()]
}

// columnIndex maps column keys to positions in t, the first header wins.
func columnIndex(t Table) map[string]int {
	idx := map[string]int{}
	for i, h := range t.Header {
		if k := columnKey(h); k != "" {
			if _, dup := idx[k]; !dup {
				idx[k] = i
			}
		}
	}
	return idx
}

// tablesWith returns the rows of every table in doc that has all required
// columns, each row as a column-key -> cell map. Several qualifying tables are
// read as one (a human may split PINOUT.md per IC).
func tablesWith(doc []byte, required ...string) (rows []map[string]string, found bool) {
	for _, t := range ParseTables(doc) {
		idx := columnIndex(t)
		ok := true
		for _, k := range required {
			if _, has := idx[k]; !has {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		found = true
		for _, cells := range t.Rows {
			row := map[string]string{}
			for k, i := range idx {
				row[k] = cells[i]
			}
			rows = append(rows, row)
		}
	}
	return rows, found
}

// NoTableError reports a doc without a table carrying the columns a reader needs.
type NoTableError struct {
	Columns []string
}

func (e *NoTableError) Error() string {
	return fmt.Sprintf("no table with columns %s", strings.Join(e.Columns, ", "))
}

// ParseBOM reads the BOM table(s) of a BOM.md. A table qualifies when it has
// Refdes, Value and Footprint columns; MPN and Rationale are optional. Rows
// with an empty Refdes cell are skipped. Duplicates are kept: the drift check
// reports them.
func ParseBOM(doc []byte) ([]BOMRow, error) {
	rows, found := tablesWith(doc, "refdes", "value", "footprint")
	if !found {
		return nil, &NoTableError{Columns: []string{"Refdes", "Value", "Footprint"}}
	}
	var out []BOMRow
	for _, r := range rows {
		if r["refdes"] == "" {
			continue
		}
		out = append(out, BOMRow{Refdes: r["refdes"], Value: r["value"], Footprint: r["footprint"], MPN: r["mpn"], Rationale: r["rationale"]})
	}
	return out, nil
}

// ParsePinout reads the pin table(s) of a PINOUT.md. A table qualifies when it
// has Refdes, Pin and Net columns; Name, Type and Notes are optional. Net
// cells meaning "not connected" (NC, N/C, -, —, empty) read as NCMarker.
func ParsePinout(doc []byte) ([]PinoutRow, error) {
	rows, found := tablesWith(doc, "refdes", "pin", "net")
	if !found {
		return nil, &NoTableError{Columns: []string{"Refdes", "Pin", "Net"}}
	}
	var out []PinoutRow
	for _, r := range rows {
		if r["refdes"] == "" && r["pin"] == "" {
			continue
		}
		out = append(out, PinoutRow{Refdes: r["refdes"], Pin: r["pin"], Name: r["name"], Net: canonicalNetCell(r["net"]), Type: r["type"], Notes: r["notes"]})
	}
	return out, nil
}

func canonicalNetCell(s string) string {
	switch strings.ToUpper(s) {
	case "", "NC", "N/C", "-", "—", "–":
		return NCMarker
	}
	return s
}

// markdownTable renders a GFM table, cells escaped by escapeCell. Columns are
// not padded: a changed cell changes one line of the diff, and an agent's
// anchored edit need not reproduce alignment spaces.
func markdownTable(header []string, rows [][]string) string {
	var b strings.Builder
	writeRow := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + escapeCell(c) + " |")
		}
		b.WriteString("\n")
	}
	writeRow(header)
	b.WriteString("|")
	for range header {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range rows {
		writeRow(r)
	}
	return b.String()
}
