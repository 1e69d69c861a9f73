package design

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"copperhead/internal/config"
	"copperhead/internal/sourcing"
)

var (
	retrievedAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tpsSnapshot = sourcing.Snapshot{MPN: "TPS63020DSJR", Provider: "nexar", Retrieved: retrievedAt, Lifecycle: "Active",
		Stock: 15465, Distributors: 2, Price1k: 1.2, Currency: "USD"}
)

const bomDoc = `# demo — Bill of materials

| Refdes | Value | Footprint | MPN | Rationale |
| --- | --- | --- | --- | --- |
| C1 | 10u | C_0603 | UNVERIFIED | TODO: why this part |
| U1 | TPS63020 | VSON-14 | TPS63020DSJR | buck-boost for the Li-ion cell |
| U2 | ESP32-S3 | Module | ESP32-S3-WROOM-1 | MCU |
`

// writeRepo makes a repo folder holding files (repo-relative path -> content).
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readRepoFile(t *testing.T, root, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRecordSourcingDualWrite(t *testing.T) {
	root := writeRepo(t, map[string]string{"docs/BOM.md": bomDoc})
	cfg := config.DefaultConfig()
	changed, err := RecordSourcing(root, cfg, "U1", tpsSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{config.ConstraintsPath, "docs/BOM.md"}; !slices.Equal(changed, want) {
		t.Errorf("changed = %q, want %q", changed, want)
	}
	wantJSON := `{
  "sourcing.U1": {
    "affects": [
      "U1"
    ],
    "currency": "USD",
    "distributors": 2,
    "lifecycle": "Active",
    "mpn": "TPS63020DSJR",
    "price1k": 1.2,
    "retrieved": "2026-03-01T12:00:00Z",
    "source": "nexar",
    "stockTotal": 15465
  }
}
`
	if got := readRepoFile(t, root, config.ConstraintsPath); got != wantJSON {
		t.Errorf("constraints.json:\n%s\nwant:\n%s", got, wantJSON)
	}
	wantBOM := bomDoc + "\n## Sourcing\n\n" + sourcingIntro + "\n" +
		"- `sourcing.U1`: TPS63020DSJR: Active, 15465 in stock at 2 distributors, 1.20 USD at 1k (nexar, retrieved 2026-03-01)\n"
	gotBOM := readRepoFile(t, root, "docs/BOM.md")
	if gotBOM != wantBOM {
		t.Errorf("BOM.md:\n%s\nwant:\n%s", gotBOM, wantBOM)
	}
	before, _ := ParseBOM([]byte(bomDoc))
	if after, err := ParseBOM([]byte(gotBOM)); err != nil || !slices.Equal(after, before) {
		t.Errorf("the BOM table changed: %+v (%v)", after, err)
	}

	// The entry reads back as the snapshot it was made from.
	reg, err := LoadConstraints(root)
	if err != nil {
		t.Fatal(err)
	}
	if snap, err := SnapshotOf(reg["sourcing.U1"]); err != nil || snap != tpsSnapshot {
		t.Errorf("SnapshotOf = %+v, %v; want %+v", snap, err, tpsSnapshot)
	}

	// Idempotent: the same snapshot (in another time zone, with nanoseconds) changes nothing.
	again := tpsSnapshot
	again.Retrieved = retrievedAt.In(time.FixedZone("CET", 3600)).Add(500 * time.Millisecond)
	changed, err = RecordSourcing(root, cfg, "U1", again)
	if err != nil || len(changed) != 0 {
		t.Errorf("second record: changed %q, err %v", changed, err)
	}
	if readRepoFile(t, root, "docs/BOM.md") != wantBOM || readRepoFile(t, root, config.ConstraintsPath) != wantJSON {
		t.Error("second record rewrote a file")
	}
}

func TestRecordSourcingOrderAndUpdate(t *testing.T) {
	root := writeRepo(t, map[string]string{"docs/BOM.md": bomDoc + "\n## Sourcing\n\nnotes\n\n## History\n\nkept\n"})
	cfg := config.DefaultConfig()
	snap := func(mpn string, stock int) sourcing.Snapshot {
		return sourcing.Snapshot{MPN: mpn, Provider: "nexar", Retrieved: retrievedAt, Stock: stock, Distributors: 1}
	}
	for _, r := range []struct {
		refdes string
		snap   sourcing.Snapshot
	}{{"U2", snap("ESP32-S3-WROOM-1", 300)}, {"C1", snap("GRM188R61A106KE69D", 90000)}, {"U10", snap("X", 1)}, {"U2", snap("ESP32-S3-WROOM-1", 200)}} {
		if _, err := RecordSourcing(root, cfg, r.refdes, r.snap); err != nil {
			t.Fatal(err)
		}
	}
	got := readRepoFile(t, root, "docs/BOM.md")
	want := bomDoc + "\n## Sourcing\n\nnotes\n\n" +
		"- `sourcing.C1`: GRM188R61A106KE69D: 90000 in stock at 1 distributor (nexar, retrieved 2026-03-01)\n" +
		"- `sourcing.U2`: ESP32-S3-WROOM-1: 200 in stock at 1 distributor (nexar, retrieved 2026-03-01)\n" +
		"- `sourcing.U10`: X: 1 in stock at 1 distributor (nexar, retrieved 2026-03-01)\n" +
		"\n## History\n\nkept\n"
	if got != want {
		t.Errorf("BOM.md:\n%s\nwant:\n%s", got, want)
	}
	reg, err := LoadConstraints(root)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := SnapshotOf(reg["sourcing.U2"]); s.Stock != 200 || len(reg) != 3 {
		t.Errorf("registry = %v", reg)
	}
}

func TestSetSourcingLine(t *testing.T) {
	const line = "- `sourcing.U1`: new"
	tests := []struct {
		name, doc, want string
	}{
		{"empty doc", "", "## Sourcing\n\n" + sourcingIntro + "\n" + line + "\n"},
		{"no final newline", "text", "text\n\n## Sourcing\n\n" + sourcingIntro + "\n" + line + "\n"},
		{"blank line already", "text\n\n", "text\n\n## Sourcing\n\n" + sourcingIntro + "\n" + line + "\n"},
		{"empty section at the end", "## Sourcing\n", "## Sourcing\n\n" + line + "\n"},
		{"empty section before a heading", "## Sourcing\n## Next\n", "## Sourcing\n\n" + line + "\n\n## Next\n"},
		{"replace, other bullets kept", "## Sourcing\n* `sourcing.U1`: old\n- other\n", "## Sourcing\n" + line + "\n- other\n"},
		{"last item without newline", "## Sourcing\n\n- `sourcing.C1`: c", "## Sourcing\n\n- `sourcing.C1`: c\n" + line + "\n"},
		{"heading inside a level-3 subsection is still the section", "## Sourcing\n### old\n- `sourcing.R1`: r\n", "## Sourcing\n### old\n- `sourcing.R1`: r\n" + line + "\n"},
		{"CRLF kept", "a\r\n\r\n## Sourcing\r\n\r\n- `sourcing.U2`: x\r\n", "a\r\n\r\n## Sourcing\r\n\r\n" + line + "\r\n- `sourcing.U2`: x\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := setSourcingLine([]byte(tt.doc), "U1", line)
			if string(got) != tt.want || !changed {
				t.Errorf("got (changed %v):\n%q\nwant:\n%q", changed, got, tt.want)
			}
			if again, changed := setSourcingLine(got, "U1", line); changed || string(again) != string(got) {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestRecordSourcingKeepsHandFormattedRegistry(t *testing.T) {
	tests := []struct {
		name, before, want string
	}{
		{"append after the last entry",
			"{\n\"pins.strapping\": { \"forbidden\": [\"GPIO0\"], \"source\": \"esp32-s3 datasheet §2.4\" }\n}\n",
			"{\n\"pins.strapping\": { \"forbidden\": [\"GPIO0\"], \"source\": \"esp32-s3 datasheet §2.4\" },\n  \"sourcing.U1\": {\n    \"affects\": [\n      \"U1\"\n    ],\n    \"mpn\": \"X1\",\n    \"retrieved\": \"2026-03-01T12:00:00Z\",\n    \"source\": \"nexar\",\n    \"stockTotal\": 5,\n    \"distributors\": 1\n  }\n}\n"},
		{"replace in place",
			"{ \"a.b\": {\"source\": \"s\"},\n  \"sourcing.U1\" :   {\"mpn\": \"OLD\"}, \"z\": {\"source\": \"t\"} }",
			"{ \"a.b\": {\"source\": \"s\"},\n  \"sourcing.U1\" :   {\n    \"affects\": [\n      \"U1\"\n    ],\n    \"mpn\": \"X1\",\n    \"retrieved\": \"2026-03-01T12:00:00Z\",\n    \"source\": \"nexar\",\n    \"stockTotal\": 5,\n    \"distributors\": 1\n  }, \"z\": {\"source\": \"t\"} }"},
		{"empty object",
			"{ }\n",
			"{\n  \"sourcing.U1\": {\n    \"affects\": [\n      \"U1\"\n    ],\n    \"mpn\": \"X1\",\n    \"retrieved\": \"2026-03-01T12:00:00Z\",\n    \"source\": \"nexar\",\n    \"stockTotal\": 5,\n    \"distributors\": 1\n  }\n}\n"},
	}
	snap := sourcing.Snapshot{MPN: "X1", Provider: "nexar", Retrieved: retrievedAt, Stock: 5, Distributors: 1}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeRepo(t, map[string]string{config.ConstraintsPath: tt.before})
			changed, err := RecordSourcing(root, config.DefaultConfig(), "U1", snap)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changed, []string{config.ConstraintsPath}) {
				t.Errorf("changed = %q (no BOM.md: only the registry)", changed)
			}
			got := readRepoFile(t, root, config.ConstraintsPath)
			// Keys inside the new entry come from Constraint.MarshalJSON
			// (sorted); compare through a parse, and the bytes around it.
			wantReg, err := ParseConstraints([]byte(tt.want), "want")
			if err != nil {
				t.Fatal(err)
			}
			gotReg, err := ParseConstraints([]byte(got), "got")
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			if string(gotReg.Marshal()) != string(wantReg.Marshal()) {
				t.Errorf("registry:\n%s\nwant:\n%s", got, tt.want)
			}
			prefix := tt.want[:strings.Index(tt.want, `"sourcing.U1"`)]
			if !strings.HasPrefix(got, prefix) {
				t.Errorf("bytes before the entry changed:\n%q\nwant prefix %q", got, prefix)
			}
			if changed, err := RecordSourcing(root, config.DefaultConfig(), "U1", snap); err != nil || len(changed) != 0 {
				t.Errorf("second record: %q, %v", changed, err)
			}
		})
	}
}

func TestRecordSourcingCanonicalRegistryStaysCanonical(t *testing.T) {
	reg, err := ParseConstraints([]byte(specExample), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	root := writeRepo(t, map[string]string{config.ConstraintsPath: string(reg.Marshal())})
	if _, err := RecordSourcing(root, config.DefaultConfig(), "U2", tpsSnapshot); err != nil {
		t.Fatal(err)
	}
	got := readRepoFile(t, root, config.ConstraintsPath)
	after, err := ParseConstraints([]byte(got), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(after.Marshal()) != got || len(after) != 4 {
		t.Errorf("registry is no longer canonical or lost entries:\n%s", got)
	}
	for _, key := range []string{"pins.strapping", "power.sleep_current_uA", "rf.antenna_keepout_mm"} {
		b, _ := reg[key].MarshalJSON()
		a, _ := after[key].MarshalJSON()
		if string(a) != string(b) {
			t.Errorf("%s changed: %s -> %s", key, b, a)
		}
	}
}

func TestRecordSourcingRefuses(t *testing.T) {
	tests := []struct {
		name   string
		refdes string
		snap   sourcing.Snapshot
		files  map[string]string
		want   string
	}{
		{"empty refdes", " ", tpsSnapshot, nil, "is not a reference designator"},
		{"refdes with a space", "U 1", tpsSnapshot, nil, "is not a reference designator"},
		{"refdes with a backtick", "U1`", tpsSnapshot, nil, "is not a reference designator"},
		{"refdes with a colon", "U:1", tpsSnapshot, nil, "is not a reference designator"},
		{"no MPN", "U1", sourcing.Snapshot{Provider: "nexar"}, nil, "the snapshot has no MPN"},
		{"price JSON cannot hold", "U1", sourcing.Snapshot{MPN: "X", Price1k: math.Inf(1)}, nil, "encode the snapshot of X"},
		{"malformed registry", "U1", tpsSnapshot, map[string]string{config.ConstraintsPath: "{"}, "malformed JSON"},
		{"registry entry not an object", "U1", tpsSnapshot, map[string]string{config.ConstraintsPath: `{"a": 1}`}, `constraint "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeRepo(t, tt.files)
			changed, err := RecordSourcing(root, config.DefaultConfig(), tt.refdes, tt.snap)
			if err == nil || !strings.Contains(err.Error(), tt.want) || len(changed) != 0 {
				t.Errorf("changed %q, err %v, want %q", changed, err, tt.want)
			}
		})
	}
}

func TestSnapshotOfErrors(t *testing.T) {
	tests := []struct{ entry, want string }{
		{`{"source": "nexar", "stockTotal": 3}`, `field "mpn" is missing`},
		{`{"mpn": "X", "stockTotal": "many"}`, `field "stockTotal": expected a number`},
		{`{"mpn": "X", "retrieved": "yesterday"}`, `field "retrieved": "yesterday" is not an RFC 3339 time`},
		{`{"mpn": "X", "retrieved": 3}`, `field "retrieved": expected a string`},
	}
	for _, tt := range tests {
		reg, err := ParseConstraints([]byte(`{"sourcing.U1": `+tt.entry+`}`), "c")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := SnapshotOf(reg["sourcing.U1"]); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SnapshotOf(%s) = %v, want %q", tt.entry, err, tt.want)
		}
	}
}
