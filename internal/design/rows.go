package design

import (
	"fmt"
	"strings"

	"copperhead/internal/config"
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
func UpdateRows(files Files, cfg config.Config, schBefore, schAfter *kicad.Schematic, nlBefore, nlAfter *kicad.Netlist) Files {
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
			next, noted := updatePinNotes(next, PinoutRows(nlBefore), PinoutRows(nlAfter))
			if changed || grew || noted {
				out[path] = next
			}
		}
	}
	return out
}

// updatePinNotes follows a pin's net change into the "  On U1: pin 5 IO5
// (KEY_DAH), ..." lines under PINOUT.md's strapping and RTC bullets: each
// "pin P NAME (OLD)" item of the part's lines becomes "(NEW)". Only those
// items change, so hand-written words on the line are kept.
func updatePinNotes(doc []byte, before, after []PinoutRow) ([]byte, bool) {
	type key struct{ ref, pin string }
	old := map[key]PinoutRow{}
	for _, r := range before {
		old[key{r.Refdes, r.Pin}] = r
	}
	lines := strings.SplitAfter(string(doc), "\n")
	changed := false
	for _, r := range after {
		b, ok := old[key{r.Refdes, r.Pin}]
		if !ok || b.Net == r.Net {
			continue
		}
		prefix := "On " + escapeCell(r.Refdes) + ": "
		from := fmt.Sprintf("pin %s %s (%s)", r.Pin, r.Name, b.Net)
		to := fmt.Sprintf("pin %s %s (%s)", r.Pin, r.Name, r.Net)
		for i, line := range lines {
			body, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), prefix)
			if !ok {
				continue
			}
			items := strings.Split(strings.TrimRight(body, ".\r\n"), ", ")
			hit := false
			for j, it := range items {
				if escapeCell(from) == it {
					items[j], hit = escapeCell(to), true
				}
			}
			if hit {
				lead := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
				tail := body[len(strings.TrimRight(body, ".\r\n")):]
				lines[i] = lead + prefix + strings.Join(items, ", ") + tail
				changed = true
			}
		}
	}
	if !changed {
		return doc, false
	}
	return []byte(strings.Join(lines, "")), true
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
