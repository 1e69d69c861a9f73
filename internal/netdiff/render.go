package netdiff

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"copperhead/internal/design"
	"copperhead/internal/kicad"
)

// Picture is an SVG written by `diff --svg`, for the markdown's links.
type Picture struct {
	Name string `json:"name"` // the sheet path ("/", "/power/") or "board"
	Path string `json:"path"` // as the markdown links it
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Summary is the diff in one line: "1 part added, 1 part changed, 1 net
// renamed, 1 pin moved", or "no changes".
func Summary(r *Result) string {
	var parts []string
	add := func(n int, one, many string) {
		if n > 0 {
			parts = append(parts, count(n, one, many))
		}
	}
	e, d := &r.Electrical, &r.Docs
	add(len(e.Added), "part added", "parts added")
	add(len(e.Removed), "part removed", "parts removed")
	add(len(e.Changed), "part changed", "parts changed")
	add(len(e.Renamed), "net renamed", "nets renamed")
	add(len(e.NetsAdded), "net added", "nets added")
	add(len(e.NetsRemoved), "net removed", "nets removed")
	add(len(e.PinMoves), "pin moved", "pins moved")
	l := &r.Layout
	if l.BoardAdded {
		parts = append(parts, "board added")
	}
	if l.BoardRemoved {
		parts = append(parts, "board removed")
	}
	add(len(l.Moved), "footprint moved", "footprints moved")
	add(len(l.Added), "footprint added on the board", "footprints added on the board")
	add(len(l.Removed), "footprint removed from the board", "footprints removed from the board")
	if n := l.Tracks.Added + l.Tracks.Removed + l.Tracks.Changed; n > 0 {
		parts = append(parts, count(n, "track changed", "tracks changed"))
	}
	if n := l.Vias.Added + l.Vias.Removed + l.Vias.Changed; n > 0 {
		parts = append(parts, count(n, "via changed", "vias changed"))
	}
	add(len(d.SpecBudgets)+len(d.ConfigBudgets), "budget changed", "budgets changed")
	add(len(d.Constraints), "constraint changed", "constraints changed")
	add(len(d.BOMAdded)+len(d.BOMRemoved)+len(d.BOMChanged), "BOM row changed", "BOM rows changed")
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// pinList shows a part's pins: "1 3V3, 2 KEY_DIT".
func pinList(pins map[string]string) string {
	keys := slices.Collect(maps.Keys(pins))
	slices.SortFunc(keys, kicad.CompareRefdes)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + " " + pins[k]
	}
	return strings.Join(out, ", ")
}

func changeList(ch []FieldChange) string {
	out := make([]string, len(ch))
	for i, c := range ch {
		out[i] = fmt.Sprintf("%s: %s -> %s", c.Field, quoteEmpty(c.Old), quoteEmpty(c.New))
	}
	return strings.Join(out, "; ")
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func bomRow(r design.BOMRow) string {
	cells := []string{r.Refdes, r.Value, r.Footprint}
	if r.MPN != "" {
		cells = append(cells, r.MPN)
	}
	return strings.Join(cells, " | ")
}

func valueChange(c ValueChange) string {
	return fmt.Sprintf("%s: %s -> %s", c.Key, formatValue(c.Old), formatValue(c.New))
}

func entryChange(c EntryChange) string {
	switch c.Change {
	case "added":
		return fmt.Sprintf("%s added: %s", c.Key, c.New)
	case "removed":
		return fmt.Sprintf("%s removed (was %s)", c.Key, c.Old)
	}
	return fmt.Sprintf("%s changed: %s", c.Key, changeList(c.Changes))
}

// WriteText writes the plain-text report: one line per change, grouped,
// ending with the summary line. base and head name the two sides.
func WriteText(w io.Writer, base, head string, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "diff %s -> %s\n", base, head)
	e, d := &r.Electrical, &r.Docs
	for _, c := range e.Added {
		fmt.Fprintf(&b, "part added    %s %s %s (sheet %s) pins %s\n", c.Refdes, quoteEmpty(c.Value), quoteEmpty(c.Footprint), c.Sheet, pinList(c.Pins))
	}
	for _, c := range e.Removed {
		fmt.Fprintf(&b, "part removed  %s %s %s (sheet %s)\n", c.Refdes, quoteEmpty(c.Value), quoteEmpty(c.Footprint), c.Sheet)
	}
	for _, c := range e.Changed {
		fmt.Fprintf(&b, "part changed  %s %s\n", c.Refdes, changeList(c.Changes))
	}
	for _, n := range e.Renamed {
		fmt.Fprintf(&b, "net renamed   %s -> %s (%s)\n", n.Old, n.New, renameNote(n))
	}
	for _, n := range e.NetsAdded {
		fmt.Fprintf(&b, "net added     %s %s\n", n.Name, strings.Join(n.Pins, " "))
	}
	for _, n := range e.NetsRemoved {
		fmt.Fprintf(&b, "net removed   %s %s\n", n.Name, strings.Join(n.Pins, " "))
	}
	for _, m := range e.PinMoves {
		fmt.Fprintf(&b, "pin moved     %s: %s -> %s\n", m.Pin, m.Old, m.New)
	}
	l := &r.Layout
	if l.BoardAdded {
		fmt.Fprintf(&b, "board added\n")
	}
	if l.BoardRemoved {
		fmt.Fprintf(&b, "board removed\n")
	}
	for _, m := range l.Moved {
		fmt.Fprintf(&b, "footprint moved   %s %s\n", m.Refdes, moveText(m))
	}
	for _, f := range l.Added {
		fmt.Fprintf(&b, "footprint added   %s %s on %s at (%.2f, %.2f) mm\n", quoteEmpty(f.Refdes), quoteEmpty(f.LibID), quoteEmpty(f.Layer), f.Pos.X, f.Pos.Y)
	}
	for _, f := range l.Removed {
		fmt.Fprintf(&b, "footprint removed %s %s on %s at (%.2f, %.2f) mm\n", quoteEmpty(f.Refdes), quoteEmpty(f.LibID), quoteEmpty(f.Layer), f.Pos.X, f.Pos.Y)
	}
	if !l.Tracks.empty() {
		fmt.Fprintf(&b, "tracks        %s\n", copperText(l.Tracks))
	}
	if !l.Vias.empty() {
		fmt.Fprintf(&b, "vias          %s\n", copperText(l.Vias))
	}
	for _, c := range d.SpecBudgets {
		fmt.Fprintf(&b, "SPEC budget   %s\n", valueChange(c))
	}
	for _, c := range d.ConfigBudgets {
		fmt.Fprintf(&b, "config budget %s\n", valueChange(c))
	}
	for _, c := range d.Constraints {
		fmt.Fprintf(&b, "constraint    %s\n", entryChange(c))
	}
	for _, row := range d.BOMAdded {
		fmt.Fprintf(&b, "BOM added     %s\n", bomRow(row))
	}
	for _, row := range d.BOMRemoved {
		fmt.Fprintf(&b, "BOM removed   %s\n", bomRow(row))
	}
	for _, row := range d.BOMChanged {
		fmt.Fprintf(&b, "BOM changed   %s %s\n", row.Refdes, changeList(row.Changes))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintln(&b, Summary(r))
	_, err := io.WriteString(w, b.String())
	return err
}

func renameNote(n Rename) string {
	if n.Exact {
		return count(n.Pins, "pin", "pins") + ", the same"
	}
	return count(n.Pins, "pin", "pins") + " shared"
}

// mdCell escapes text for a GFM table cell.
func mdCell(s string) string {
	if s == "" {
		return "—"
	}
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\n", " ")
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

// Markdown renders the diff as a pull-request comment: a summary line,
// a table per kind of change, and links to the pictures.
func Markdown(base, head string, r *Result, pics []Picture) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### copperhead diff: %s → %s\n\n**%s**\n", mdCell(base), mdCell(head), Summary(r))
	e, d := &r.Electrical, &r.Docs
	table := func(title string, header []string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n#### %s\n\n| %s |\n|%s\n", title, strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		}
	}
	var rows [][]string
	for _, c := range e.Added {
		rows = append(rows, []string{"added", mdCell(c.Refdes), mdCell(c.Value) + " " + mdCell(c.Footprint), mdCell(pinList(c.Pins))})
	}
	for _, c := range e.Removed {
		rows = append(rows, []string{"removed", mdCell(c.Refdes), mdCell(c.Value) + " " + mdCell(c.Footprint), ""})
	}
	for _, c := range e.Changed {
		for _, f := range c.Changes {
			rows = append(rows, []string{"changed", mdCell(c.Refdes), mdCell(f.Field), mdCell(f.Old) + " → " + mdCell(f.New)})
		}
	}
	table("Parts", []string{"Change", "Refdes", "What", "Detail"}, rows)

	rows = nil
	for _, n := range e.Renamed {
		rows = append(rows, []string{"renamed", mdCell(n.Old) + " → " + mdCell(n.New), renameNote(n)})
	}
	for _, n := range e.NetsAdded {
		rows = append(rows, []string{"added", mdCell(n.Name), mdCell(strings.Join(n.Pins, " "))})
	}
	for _, n := range e.NetsRemoved {
		rows = append(rows, []string{"removed", mdCell(n.Name), mdCell(strings.Join(n.Pins, " "))})
	}
	table("Nets", []string{"Change", "Net", "Pins"}, rows)

	rows = nil
	for _, m := range e.PinMoves {
		rows = append(rows, []string{mdCell(m.Pin), mdCell(m.Old), mdCell(m.New)})
	}
	table("Pins moved", []string{"Pin", "From", "To"}, rows)

	rows = nil
	l := &r.Layout
	if l.BoardAdded {
		rows = append(rows, []string{"board added", "—", "—"})
	}
	if l.BoardRemoved {
		rows = append(rows, []string{"board removed", "—", "—"})
	}
	for _, m := range l.Moved {
		rows = append(rows, []string{"moved", mdCell(m.Refdes), mdCell(moveText(m))})
	}
	for _, f := range l.Added {
		rows = append(rows, []string{"added", mdCell(f.Refdes), mdCell(fmt.Sprintf("%s on %s at (%.2f, %.2f) mm", f.LibID, f.Layer, f.Pos.X, f.Pos.Y))})
	}
	for _, f := range l.Removed {
		rows = append(rows, []string{"removed", mdCell(f.Refdes), mdCell(fmt.Sprintf("%s on %s at (%.2f, %.2f) mm", f.LibID, f.Layer, f.Pos.X, f.Pos.Y))})
	}
	if !l.Tracks.empty() {
		rows = append(rows, []string{"tracks", "—", copperText(l.Tracks)})
	}
	if !l.Vias.empty() {
		rows = append(rows, []string{"vias", "—", copperText(l.Vias)})
	}
	table("Board", []string{"Change", "Footprint", "Detail"}, rows)

	rows = nil
	for _, c := range d.SpecBudgets {
		rows = append(rows, []string{"SPEC.md", mdCell(c.Key), mdCell(formatValue(c.Old)) + " → " + mdCell(formatValue(c.New))})
	}
	for _, c := range d.ConfigBudgets {
		rows = append(rows, []string{"config.json", mdCell(c.Key), mdCell(formatValue(c.Old)) + " → " + mdCell(formatValue(c.New))})
	}
	for _, c := range d.Constraints {
		rows = append(rows, []string{"constraints.json", mdCell(c.Key), mdCell(entryChange(c))})
	}
	for _, row := range d.BOMAdded {
		rows = append(rows, []string{"BOM.md", mdCell(row.Refdes), "added: " + mdCell(bomRow(row))})
	}
	for _, row := range d.BOMRemoved {
		rows = append(rows, []string{"BOM.md", mdCell(row.Refdes), "removed: " + mdCell(bomRow(row))})
	}
	for _, row := range d.BOMChanged {
		rows = append(rows, []string{"BOM.md", mdCell(row.Refdes), mdCell(changeList(row.Changes))})
	}
	table("Docs and constraints", []string{"File", "Key", "Change"}, rows)

	if len(d.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range d.Notes {
			fmt.Fprintf(&b, "> note: %s\n", strings.ReplaceAll(n, "\n", " "))
		}
	}
	if len(pics) > 0 {
		b.WriteString("\n#### Pictures\n\nadded green, removed red, changed amber, over the head's render\n\n")
		for _, p := range pics {
			fmt.Fprintf(&b, "- [%s](%s)\n", strings.ReplaceAll(p.Name, "]", "\\]"), strings.ReplaceAll(p.Path, " ", "%20"))
		}
	}
	return b.String()
}
