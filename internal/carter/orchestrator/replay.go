package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"copperhead/internal/atomicfile"
	"copperhead/internal/carter/artifact"
	"copperhead/internal/carter/eventlog"
	"copperhead/internal/carter/render"
)

// ReplayDir is where a replay writes its outputs inside the run folder.
const ReplayDir = "replay"

// FileCheck compares one replayed output with the run's own.
type FileCheck struct {
	Name      string `json:"name"`
	Identical bool   `json:"identical"`
	Original  string `json:"original_sha256"`
	Replayed  string `json:"replayed_sha256"`
	Recorded  bool   `json:"matches_event_log"` // the hash the BRIEF_RENDERED event recorded
}

// ReplayResult is a finished replay.
type ReplayResult struct {
	RunID     string      `json:"run_id"`
	RunDir    string      `json:"run_dir"`
	OutDir    string      `json:"out_dir"`
	Files     []FileCheck `json:"files"`
	Identical bool        `json:"identical"`
	Events    int         `json:"events"`
}

// Replay rebuilds a run's outputs from its artifacts alone (no retriever, no
// network, no model: recorded turns stand in) into <runDir>/replay/ and
// compares them byte for byte with the run's own outputs and with the
// hashes its event log recorded.
func Replay(ctx context.Context, runDir string) (ReplayResult, error) {
	res := ReplayResult{RunDir: runDir, OutDir: filepath.Join(runDir, ReplayDir)}
	events, err := eventlog.Read(filepath.Join(runDir, eventlog.FileName))
	if err != nil {
		return res, err
	}
	res.Events = len(events)
	recorded := map[string]string{}
	for _, ev := range events {
		if ev.Type != eventlog.BriefRendered {
			continue
		}
		var p struct {
			Brief  string `json:"brief_sha256"`
			Claims string `json:"claims_sha256"`
			Report string `json:"report_sha256"`
		}
		if err := json.Unmarshal(ev.Payload, &p); err == nil {
			recorded = map[string]string{render.BriefFile: p.Brief, render.ClaimsFile: p.Claims, render.ReportFile: p.Report}
		}
	}
	store := artifact.Open(runDir)
	rec, err := store.ReadRecord()
	if err != nil {
		return res, err
	}
	res.RunID = rec.RunID
	out, err := Compose(ctx, rec, store)
	if err != nil {
		return res, fmt.Errorf("replay %s: %w", rec.RunID, err)
	}
	res.Identical = true
	for _, f := range []struct {
		name string
		data []byte
	}{{render.BriefFile, out.Brief}, {render.ClaimsFile, out.Claims}, {render.ReportFile, out.Report}} {
		if err := atomicfile.Write(filepath.Join(res.OutDir, f.name), f.data, 0o644); err != nil {
			return res, err
		}
		orig, err := os.ReadFile(filepath.Join(runDir, f.name))
		if err != nil {
			return res, fmt.Errorf("replay: the run's own %s: %w", f.name, err)
		}
		fc := FileCheck{Name: f.name, Identical: bytes.Equal(orig, f.data), Original: artifact.Hash(orig), Replayed: artifact.Hash(f.data)}
		fc.Recorded = recorded[f.name] == fc.Replayed
		if !fc.Identical || !fc.Recorded {
			res.Identical = false
		}
		res.Files = append(res.Files, fc)
	}
	return res, nil
}
