package design

import (
	"slices"
	"strings"

	"copperhead/internal/kicad"
)

// rowSet is every row a table should hold, key -> column key -> cell text.
type rowSet map[string]map[string]string

func bomRowSet(sch *kicad.Schematic) rowSet {
	out := rowSet{}
	for _, r := range BOMRows(sch) {
		out[r.Refdes] = map[string]string{"refdes": r.Refdes, "value": r.Value, "footprint": r.Footprint, "mpn": r.MPN, "rationale": r.Rationale}
	}
	return out
}

func pinoutRowSet(nl *kicad.Netlist) rowSet {
	out := rowSet{}
	for _, r := range PinoutRows(nl) {
		out[r.Refdes+"\x00"+r.Pin] = map[string]string{"refdes": r.Refdes, "pin": r.Pin, "name": r.Name, "net": r.Net, "type": r.Type, "notes": r.Notes}
	}
	return out
}

// addRemoveRows keeps a table's set of rows equal to the design's after an
// edit that added or removed parts: the rows of keys the design lost are
// deleted, and a row for each key it gained is appended at the end of the
// table, with its cells in the table's own column order. Rows of keys present
// before and after are left alone (updateTable owns their cells), and so is
// every other line of the doc.
func addRemoveRows(doc []byte, keys []string, before, after rowSet) ([]byte, bool) {
	var added, removed []string
	for k := range after {
		if before[k] == nil {
			added = append(added, k)
		}
	}
	for k := range before {
		if after[k] == nil {
			removed = append(removed, k)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return doc, false
	}
	slices.SortFunc(added, func(a, b string) int { return kicad.CompareRefdes(a, b) })

	lines := strings.SplitAfter(string(doc), "\n")
	var out []string
	changed := false
	var header []string // column keys of the current table, nil outside one
	flush := func() {
		if header == nil {
			return
		}
		for _, k := range added {
			cells := make([]string, len(header))
			for j, col := range header {
				cells[j] = after[k][col]
			}
			row := markdownTable(cells, nil) // one row, rendered as generated docs render it
			out = append(out, row[:strings.IndexByte(row, '\n')+1])
			changed = true
		}
		added, header = nil, nil
	}
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "|") {
			flush()
			out = append(out, line)
			continue
		}
		if header == nil {
			if i+1 < len(lines) && isDelimiterRow(lines[i+1]) {
				cols := splitRow(trimmed)
				keyed := make([]string, len(cols))
				for j, c := range cols {
					keyed[j] = columnKey(c)
				}
				if hasAll(keyed, keys) {
					header = keyed
				}
			}
			out = append(out, line)
			continue
		}
		if isDelimiterRow(line) {
			out = append(out, line)
			continue
		}
		cells := splitRow(trimmed)
		var key []string
		for _, k := range keys {
			if j := slices.Index(header, k); j >= 0 && j < len(cells) {
				key = append(key, plainCell(cells[j]))
			}
		}
		if slices.Contains(removed, strings.Join(key, "\x00")) {
			changed = true
			continue
		}
		out = append(out, line)
	}
	if header != nil && len(out) > 0 && !strings.HasSuffix(out[len(out)-1], "\n") {
		out[len(out)-1] += "\n"
	}
	flush()
	return []byte(strings.Join(out, "")), changed
}

func hasAll(cols, keys []string) bool {
	for _, k := range keys {
		if !slices.Contains(cols, k) {
			return false
		}
	}
	return true
}
