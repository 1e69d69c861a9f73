package outputs

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/design"
	"copperhead/internal/kicad"
	"copperhead/internal/repofs"
)

// Supplier is a distributor the ordering BOM links to.
type Supplier struct {
	Name  string // "jlcpcb", the --supplier value
	Label string // "JLCPCB/LCSC", the CSV's Supplier cell
	// fieldKeys are normalised schematic field names (lower case, letters and
	// digits only) that hold this supplier's own part number.
	fieldKeys []string
	// search is the supplier's public search page for a query.
	search string
}

// Suppliers are the distributors `export bom --supplier` knows. Links are
// search pages, not product pages: a search for a part number lands on the
// part when the supplier has it, and on an honest "no results" when it does
// not, where a guessed product URL would be a dead link.
var Suppliers = map[string]Supplier{
	"jlcpcb": {Name: "jlcpcb", Label: "JLCPCB/LCSC",
		fieldKeys: []string{"lcsc", "lcscpart", "lcscpartnumber", "lcscpn", "jlcpcb", "jlcpcbpart", "jlcpcbpartnumber", "jlc", "jlcpart"},
		search:    "https://jlcpcb.com/parts/componentSearch?searchTxt="},
	"digikey": {Name: "digikey", Label: "DigiKey",
		fieldKeys: []string{"digikey", "digikeypn", "digikeypart", "digikeypartnumber", "dk", "dkpn"},
		search:    "https://www.digikey.com/en/products/result?keywords="},
	"mouser": {Name: "mouser", Label: "Mouser",
		fieldKeys: []string{"mouser", "mouserpn", "mouserpart", "mouserpartnumber", "mouserno"},
		search:    "https://www.mouser.com/c/?q="},
}

// SupplierNames lists the suppliers, sorted: what --supplier accepts.
func SupplierNames() []string { return slices.Sorted(maps.Keys(Suppliers)) }

// LookupSupplier returns the named supplier.
func LookupSupplier(name string) (Supplier, error) {
	s, ok := Suppliers[strings.ToLower(name)]
	if !ok {
		return Supplier{}, fmt.Errorf("unknown supplier %q: want one of %s", name, strings.Join(SupplierNames(), ", "))
	}
	return s, nil
}

// SearchLink is the supplier's search page for query.
func (s Supplier) SearchLink(query string) string {
	return s.search + url.QueryEscape(query)
}

// partNumber is this supplier's own part number among a part's fields.
func (s Supplier) partNumber(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys) // two matching fields: the choice must not depend on map order
	for _, k := range keys {
		if v := strings.TrimSpace(fields[k]); v != "" && slices.Contains(s.fieldKeys, normalizeKey(k)) {
			return v
		}
	}
	return ""
}

func normalizeKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// OrderLine is one line of the ordering BOM: parts that are bought as the
// same item (same value, footprint, manufacturer, MPN and supplier part
// number), with their references.
type OrderLine struct {
	Refdes       []string `json:"refdes"` // natural order
	Qty          int      `json:"qty"`
	Value        string   `json:"value"`
	Footprint    string   `json:"footprint"`
	Manufacturer string   `json:"manufacturer"`
	MPN          string   `json:"mpn"` // "" while unverified: never invented
	SupplierPN   string   `json:"supplier_pn"`
	Link         string   `json:"link"`
	Notes        string   `json:"notes"`
}

// BOMColumns is the ordering CSV's header.
var BOMColumns = []string{"Designator", "Qty", "Value", "Footprint", "Manufacturer", "MPN", "Supplier", "Supplier Part Number", "Link", "Notes"}

// OrderLines groups the schematic's parts into ordering lines for supplier.
// Parts marked DNP or excluded from the BOM are not bought and are left out.
// The MPN is the schematic's own field, else the BOM.md row's when it is not
// UNVERIFIED (bomDoc may be nil: no BOM.md); a part with neither has an empty
// MPN and a note, and its link searches for value and package instead.
func OrderLines(sch *kicad.Schematic, bomDoc []byte, s Supplier) ([]OrderLine, error) {
	docMPN := map[string]string{}
	if bomDoc != nil {
		rows, err := design.ParseBOM(bomDoc)
		if err != nil {
			return nil, fmt.Errorf("read BOM.md: %w", err)
		}
		for _, r := range rows {
			if verifiedMPN(r.MPN) {
				docMPN[r.Refdes] = r.MPN
			}
		}
	}
	type key struct{ value, footprint, manufacturer, mpn, spn string }
	index := map[key]int{}
	var lines []OrderLine
	for _, p := range design.Parts(sch) {
		if p.DNP || !p.InBOM {
			continue
		}
		mpn := strings.TrimSpace(p.MPN)
		if !verifiedMPN(mpn) {
			mpn = docMPN[p.Refdes]
		}
		k := key{p.Value, p.Footprint, strings.TrimSpace(p.Manufacturer), mpn, s.partNumber(p.Fields)}
		i, ok := index[k]
		if !ok {
			i = len(lines)
			index[k] = i
			lines = append(lines, OrderLine{Value: k.value, Footprint: k.footprint, Manufacturer: k.manufacturer, MPN: k.mpn, SupplierPN: k.spn})
		}
		lines[i].Refdes = append(lines[i].Refdes, p.Refdes)
		lines[i].Qty++
	}
	for i := range lines {
		l := &lines[i]
		switch {
		case l.SupplierPN != "":
			l.Link = s.SearchLink(l.SupplierPN)
		case l.MPN != "":
			l.Link = s.SearchLink(l.MPN)
		default:
			l.Link = s.SearchLink(strings.TrimSpace(l.Value + " " + packageHint(l.Footprint)))
			l.Notes = "MPN unverified: choose and verify a part before ordering"
		}
	}
	return lines, nil
}

// verifiedMPN reports whether an MPN cell names a real part number rather
// than a placeholder.
func verifiedMPN(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" || s == "—" {
		return false
	}
	u := strings.ToUpper(s)
	return !strings.Contains(u, design.MPNUnverified) && !strings.HasPrefix(u, "TODO") && !strings.Contains(u, "ASSUMED")
}

// imperialSize finds the imperial size code in a KiCad chip footprint name:
// R_0603_1608Metric -> 0603.
var imperialSize = regexp.MustCompile(`_(\d{4})_\d{4}Metric`)

// packageHint is the part of a footprint a distributor's search understands:
// the imperial size of a chip part (0603), the package name of a
// Package_* footprint (SOT-23-5), else nothing (a connector's footprint name
// is no search term).
func packageHint(footprint string) string {
	lib, name, ok := strings.Cut(footprint, ":")
	if !ok {
		name, lib = footprint, ""
	}
	if m := imperialSize.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	if strings.HasPrefix(lib, "Package_") {
		return name
	}
	return ""
}

// BOMCSV renders ordering lines as CSV with BOMColumns: references joined
// with commas in one quoted cell, as JLCPCB's and most distributors' BOM
// importers expect.
func BOMCSV(lines []OrderLine, s Supplier) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(BOMColumns) // a bytes.Buffer does not fail
	for _, l := range lines {
		_ = w.Write([]string{strings.Join(l.Refdes, ","), strconv.Itoa(l.Qty), l.Value, l.Footprint, l.Manufacturer, l.MPN, s.Label, l.SupplierPN, l.Link, l.Notes})
	}
	w.Flush()
	return b.Bytes()
}

// ExportBOM writes the ordering BOM of the schematic at schematicPath for
// supplier to out, atomically, and returns its lines. bomDocPath is the
// project's BOM.md; when it does not exist only schematic fields are used.
// Both must lie inside repo unless repo is "".
func ExportBOM(repo, schematicPath, bomDocPath string, s Supplier, out string) ([]OrderLine, error) {
	sch, err := loadSchematic(repo, schematicPath)
	if err != nil {
		return nil, err
	}
	doc, err := readDesignFile(repo, bomDocPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", bomDocPath, err)
	}
	lines, err := OrderLines(sch, doc, s)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(out, BOMCSV(lines, s), 0o644); err != nil {
		return nil, err
	}
	return lines, nil
}

// loadSchematic loads the design, confined to repo when it is not "".
func loadSchematic(repo, path string) (*kicad.Schematic, error) {
	if repo == "" {
		return kicad.LoadSchematic(path)
	}
	return kicad.LoadSchematicWithin(path, repo)
}

// readDesignFile reads a design doc, confined to repo when it is not "",
// and never blocking on a named pipe.
func readDesignFile(repo, path string) ([]byte, error) {
	if repo == "" {
		return repofs.ReadRegular(path)
	}
	return repofs.ReadFile(repo, path)
}
