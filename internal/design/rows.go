package design

import (
	"strings"

	"copperhead/internal/kicad"
)

// UpdateRows keeps BOM.md and PINOUT.md in step with a schematic edit: it
// compares the as-built rows before and after (BOMRows of the schematics,
// PinoutRows of the netlists) and rewrites, line by line, only the cells the
// edit changed: Value, Footprint and MPN of BOM rows (plus the assembly
// flags leading the Rationale), Net of PINOUT rows. A cell is rewritten only
// when it still reads as the before value, so a hand-written cell that
// already disagreed, every Rationale sentence, and every other line of the
// doc are kept byte for byte. A nil schematic or netlist pair skips that doc.
//
// It returns the docs that changed (repo-relative path -> new bytes).
func UpdateRows(files Files, cfg Config, schBefore, schAfter *kicad.Schematic, nlBefore, nlAfter *kicad.Netlist) Files {
	out := Files{}
	if schBefore != nil && schAfter != nil {
		path := cfg.DocPath(BOMDoc)
		before, after := bomCells(schBefore), bomCells(schAfter)
		if doc, ok := files[path]; ok {
			next, changed := updateTable(doc, []string{"refdes"}, before, after)
			next, grew := addRemoveRows(next, []string{"refdes"}, bomRowSet(schBefore), bomRowSet(schAfter))
			if changed || grew {
				out[path] = next
			}
		}
	}
	if nlBefore != nil && nlAfter != nil {
		path := cfg.DocPath(PinoutDoc)
		if doc, ok := files[path]; ok {
			next, changed := updateTable(doc, []string{"refdes", "pin"}, pinoutCells(nlBefore), pinoutCells(nlAfter))
			next, grew := addRemoveRows(next, []string{"refdes", "pin"}, pinoutRowSet(nlBefore), pinoutRowSet(nlAfter))
			if changed || grew {
				out[path] = next
			}
		}
	}
	return out
}

// rowCells maps a row key (its key cells joined by NUL) to column key -> cell text.
type rowCells map[string]map[string]string

func bomCells(sch *kicad.Schematic) rowCells {
	out := rowCells{}
	parts := Parts(sch)
	for i, r := range BOMRows(sch) {
		out[r.Refdes] = map[string]string{
			"value": r.Value, "footprint": r.Footprint, "mpn": r.MPN,
			"rationale": strings.Join(partFlags(parts[i]), " "), // the flag prefix only
		}
	}
	return out
}

func pinoutCells(nl *kicad.Netlist) rowCells {
	out := rowCells{}
	for _, r := range PinoutRows(nl) {
		out[r.Refdes+"\x00"+r.Pin] = map[string]string{"net": r.Net}
	}
	return out
}

// updateTable rewrites the changed cells of every table row of doc whose
// key cells name a row present in both before and after.
func updateTable(doc []byte, keys []string, before, after rowCells) ([]byte, bool) {
	lines := strings.SplitAfter(string(doc), "\n")
	changed := false
	var idx map[string]int // column key -> cell index of the current table
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if !strings.HasPrefix(trimmed, "|") {
			idx = nil
			continue
		}
		cells := splitRow(trimmed)
		if idx == nil {
			if i+1 < len(lines) && isDelimiterRow(lines[i+1]) {
				idx = map[string]int{}
				for j, c := range cells {
					if k := columnKey(c); k != "" {
						if _, dup := idx[k]; !dup {
							idx[k] = j
						}
					}
				}
			}
			continue
		}
		if isDelimiterRow(line) {
			continue
		}
		var key []string
		ok := true
		for _, k := range keys {
			j, has := idx[k]
			if !has || j >= len(cells) {
				ok = false
				break
			}
			key = append(key, plainCell(cells[j]))
		}
		if !ok {
			continue
		}
		b, a := before[strings.Join(key, "\x00")], after[strings.Join(key, "\x00")]
		if b == nil || a == nil {
			continue
		}
		rowChanged := false
		for col, was := range b {
			now := a[col]
			j, has := idx[col]
			if now == was || !has || j >= len(cells) {
				continue
			}
			cur := plainCell(cells[j])
			if col == "rationale" {
				// Only the generated flag prefix is ours; the reason is the human's.
				rest, found := strings.CutPrefix(cur, was)
				if !found {
					continue
				}
				cells[j] = " " + escapeCell(strings.TrimSpace(now+" "+strings.TrimSpace(rest))) + " "
				rowChanged = true
				continue
			}
			if col == "net" {
				cur = canonicalNetCell(cur)
			}
			if cur != normalizeSpace(was) {
				continue
			}
			cells[j] = " " + escapeCell(now) + " "
			rowChanged = true
		}
		if rowChanged {
			lead := line[:strings.Index(line, "|")]
			nl := line[len(strings.TrimRight(line, "\r\n")):]
			lines[i] = lead + "|" + strings.Join(cells, "|") + "|" + nl
			changed = true
		}
	}
	return []byte(strings.Join(lines, "")), changed
}

// splitRow splits a trimmed table row into its raw cells (without the outer
// pipes), honouring escaped pipes.
func splitRow(row string) []string {
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	start := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, row[start:i])
			start = i + 1
		}
	}
	return append(cells, row[start:])
}

// plainCell is the text a raw cell reads as (see cellText).
func plainCell(raw string) string {
	tables := ParseTables([]byte("| x |\n| --- |\n|" + raw + "|\n"))
	if len(tables) == 1 && len(tables[0].Rows) == 1 {
		return tables[0].Rows[0][0]
	}
	return strings.TrimSpace(raw)
}

func isDelimiterRow(line string) bool {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "|") || !strings.Contains(t, "-") {
		return false
	}
	return strings.Trim(t, "|-: \t") == ""
}
