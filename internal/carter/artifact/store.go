package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/atomicfile"
	"copperhead/internal/carter/task"
)

// Names inside a run folder.
const (
	Dir         = "artifacts"
	RecordFile  = "run.json"
	TextDir     = "text"
	ModelFile   = "model.jsonl"
	recordVer   = 1
	maxTextSize = 64 << 20 // a stored text larger than this is corruption
)

// Facts are what the gathering loop measured and decided: the inputs to the
// run report that replay cannot recompute (time, network) and so reads back.
type Facts struct {
	StartedAt    string  `json:"started_at"`
	FinishedAt   string  `json:"finished_at"`
	ElapsedMS    int64   `json:"elapsed_ms"`
	Rounds       int     `json:"rounds"`
	Cost                 // flattened: tool_calls ... tokens_out, in that order
	Considered   int     `json:"sources_considered"`
	Rejected     int     `json:"sources_rejected"`
	FetchErrors  int     `json:"fetch_errors"`
	Flagged      int     `json:"sources_flagged"`
	StopReason   string  `json:"stop_reason"`
	StopDetail   string  `json:"stop_detail"`
	LoopCoverage float64 `json:"loop_coverage"`
}

// Cost is what a run spent (spec §5 "tool calls + tokens"): measured by the
// gathering loop into Facts, scored by evaluate.
type Cost struct {
	ToolCalls  int `json:"tool_calls"`
	Searches   int `json:"searches"`
	Fetches    int `json:"fetches"`
	ModelCalls int `json:"model_calls"`
	TokensIn   int `json:"tokens_in"`
	TokensOut  int `json:"tokens_out"`
}

// Record is artifacts/run.json: everything the outputs are a function of.
type Record struct {
	Version     int        `json:"version"`
	RunID       string     `json:"run_id"`
	Spec        task.Spec  `json:"task"`
	Retriever   string     `json:"retriever"`
	Synthesizer string     `json:"synthesizer"` // "extractive" or "llm"
	Model       string     `json:"model,omitempty"`
	Sources     []Source   `json:"sources"`
	Evidence    []Evidence `json:"evidence"`
	Facts       Facts      `json:"facts"`
	Notes       []string   `json:"notes"` // what the brief must tell its reader (a synthesizer fallback)
	// Weights are the question words' weights in the collection searched
	// (the corpus's IDF; 0 for a word it never uses), recorded so coverage
	// is judged the same way at replay. Empty for the web.
	Weights map[string]float64 `json:"aspect_weights,omitempty"`
}

// ModelTurn is one recorded model exchange (artifacts/model.jsonl): replay
// serves Text again when a request with the same hash arrives.
type ModelTurn struct {
	RequestHash string `json:"request_hash"`
	Model       string `json:"model"`
	Text        string `json:"text"`
	TokensIn    int    `json:"tokens_in"`
	TokensOut   int    `json:"tokens_out"`
}

// Store is one run's artifact folder.
type Store struct {
	dir string // <run>/artifacts
}

// Open returns the store of the run folder runDir (created on first write).
func Open(runDir string) *Store { return &Store{dir: filepath.Join(runDir, Dir)} }

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// PutText stores an extracted text under its hash and returns the hash. A
// text already stored is not written again.
func (s *Store) PutText(text string) (string, error) {
	h := Hash([]byte(text))
	path := filepath.Join(s.dir, TextDir, h+".txt")
	if _, err := os.Stat(path); err == nil {
		return h, nil
	}
	if err := atomicfile.Write(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("store text: %w", err)
	}
	return h, nil
}

// Text reads a stored text and checks that it still hashes to hash: a quote
// checked against a modified file would prove nothing.
func (s *Store) Text(hash string) (string, error) {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", fmt.Errorf("stored text: %q is not a sha256", hash)
	}
	path := filepath.Join(s.dir, TextDir, hash+".txt")
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("stored text: %w", err)
	}
	if fi.Size() > maxTextSize {
		return "", fmt.Errorf("stored text %s: %d bytes is over the %d-byte limit", path, fi.Size(), maxTextSize)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("stored text: %w", err)
	}
	if got := Hash(data); got != hash {
		return "", fmt.Errorf("stored text %s: content hashes to %s, not its name", path, got[:12])
	}
	return string(data), nil
}

// WriteRecord writes artifacts/run.json atomically.
func (s *Store) WriteRecord(r Record) error {
	r.Version = recordVer
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run record: %w", err)
	}
	return atomicfile.Write(filepath.Join(s.dir, RecordFile), append(data, '\n'), 0o644)
}

// ReadRecord reads artifacts/run.json.
func (s *Store) ReadRecord() (Record, error) {
	var r Record
	data, err := os.ReadFile(filepath.Join(s.dir, RecordFile))
	if err != nil {
		return r, fmt.Errorf("read run record: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("read run record: %w", err)
	}
	if r.Version != recordVer {
		return r, fmt.Errorf("run record version %d is not %d", r.Version, recordVer)
	}
	return r, nil
}

// WriteModelTurns writes artifacts/model.jsonl atomically.
func (s *Store) WriteModelTurns(turns []ModelTurn) error {
	var b bytes.Buffer
	for _, t := range turns {
		line, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("encode model turn: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return atomicfile.Write(filepath.Join(s.dir, ModelFile), b.Bytes(), 0o644)
}

// ModelTurns reads artifacts/model.jsonl; a run that called no model has
// none.
func (s *Store) ModelTurns() ([]ModelTurn, error) {
	data, err := os.ReadFile(filepath.Join(s.dir, ModelFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read model turns: %w", err)
	}
	var out []ModelTurn
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var t ModelTurn
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("read model turns: %w", err)
		}
		out = append(out, t)
	}
	return out, sc.Err()
}
