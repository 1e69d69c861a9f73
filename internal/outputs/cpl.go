package outputs

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// CPLColumns are a fab's pick-and-place (CPL, centroid) file header.
type CPLColumns struct {
	Header []string
	// Source says where the column names come from; "ASSUMED: ..." when the
	// fab documents none we could cite.
	Source string
}

// cplColumns per fab profile. JLCPCB's assembly guide names the CPL columns
// Designator, Mid X, Mid Y, Layer, Rotation (Layer Top/Bottom). PCBWay's
// assembly guide asks for a centroid file with designator, X/Y, side and
// rotation and shows Altium's pick-and-place columns.
var cplColumns = map[string]CPLColumns{
	"jlcpcb": {Header: []string{"Designator", "Mid X", "Mid Y", "Layer", "Rotation"}, Source: "JLCPCB's CPL file guide"},
	"pcbway": {Header: []string{"Designator", "Footprint", "Mid X", "Mid Y", "Layer", "Rotation", "Comment"}, Source: "PCBWay's centroid file guide (Altium pick-and-place columns)"},
}

// RotationRule adds Offset degrees to KiCad's rotation for footprints whose
// name matches Package.
type RotationRule struct {
	Package *regexp.Regexp
	Offset  float64
	// Source names where the offset comes from; "ASSUMED: ..." when the fab
	// itself does not document it.
	Source string
}

// rotationRules per fab. Neither house publishes a per-package offset table:
// JLCPCB corrects orientation in its own DFM review, PCBWay asks for the
// rotation in the centroid file as designed. The JLCPCB rules are the
// widely used community table (kicad-jlcpcb-tools) for packages whose pin 1
// sits where KiCad's and JLCPCB's libraries disagree; they are ASSUMED and
// the manifest lists every part they changed, so the fab's placement
// preview is the check.
var rotationRules = map[string][]RotationRule{
	"jlcpcb": {
		{Package: regexp.MustCompile(`^SOT-223`), Offset: 180, Source: assumedRotation},
		{Package: regexp.MustCompile(`^SOT-23`), Offset: 180, Source: assumedRotation},
		{Package: regexp.MustCompile(`^(SOIC|SOP|TSSOP|MSOP|SSOP)-`), Offset: 270, Source: assumedRotation},
		{Package: regexp.MustCompile(`^(QFN|LQFP|TQFP|DFN)-`), Offset: 270, Source: assumedRotation},
	},
}

const assumedRotation = "ASSUMED: community kicad-jlcpcb-tools table, not a JLCPCB document"

// placement is one row of kicad-cli's position CSV.
type placement struct {
	Ref, Val, Package string
	X, Y, Rot         float64
	Side              string // top or bottom
}

// parsePos reads kicad-cli's CSV position file (Ref,Val,Package,PosX,PosY,Rot,Side).
func parsePos(data []byte) ([]placement, error) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read kicad-cli's position file: %w", err)
	}
	want := []string{"Ref", "Val", "Package", "PosX", "PosY", "Rot", "Side"}
	if len(rows) == 0 || strings.Join(rows[0], ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("kicad-cli's position file has an unexpected header (want %s)", strings.Join(want, ","))
	}
	var out []placement
	for i, r := range rows[1:] {
		var p placement
		p.Ref, p.Val, p.Package, p.Side = r[0], r[1], r[2], r[6]
		for j, f := range []*float64{&p.X, &p.Y, &p.Rot} {
			v, err := strconv.ParseFloat(r[3+j], 64)
			if err != nil {
				return nil, fmt.Errorf("position file row %d: %s %q: %w", i+2, want[3+j], r[3+j], err)
			}
			*f = v
		}
		out = append(out, p)
	}
	return out, nil
}

// CPLCSV renders kicad-cli's position file in the fab's columns, applying the
// fab's rotation rules. It returns the CSV and one note per part whose
// rotation a rule changed.
func CPLCSV(fab string, pos []byte) ([]byte, []string, error) {
	cols, ok := cplColumns[fab]
	if !ok {
		return nil, nil, fmt.Errorf("no pick-and-place columns for fab %q", fab)
	}
	parts, err := parsePos(pos)
	if err != nil {
		return nil, nil, err
	}
	if len(parts) == 0 {
		return nil, nil, fmt.Errorf("the board has no placed parts")
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(cols.Header)
	var notes []string
	for _, p := range parts {
		rot := p.Rot
		for _, r := range rotationRules[fab] {
			if r.Package.MatchString(p.Package) {
				rot = normDeg(rot + r.Offset)
				notes = append(notes, fmt.Sprintf("%s (%s) %+g°", p.Ref, p.Package, r.Offset))
				break
			}
		}
		layer := "Top"
		if p.Side == "bottom" {
			layer = "Bottom"
		}
		row := map[string]string{
			"Designator": p.Ref, "Footprint": p.Package, "Comment": p.Val,
			"Mid X": mm(p.X), "Mid Y": mm(p.Y), "Layer": layer, "Rotation": strconv.FormatFloat(rot, 'f', -1, 64),
		}
		rec := make([]string, len(cols.Header))
		for i, h := range cols.Header {
			rec[i] = row[h]
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes(), notes, w.Error()
}

// mm formats a coordinate in millimetres with the unit, as both houses' samples do.
func mm(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) + "mm" }

// normDeg folds an angle into [0, 360).
func normDeg(d float64) float64 {
	d = math.Mod(d, 360)
	if d < 0 {
		d += 360
	}
	return d
}
