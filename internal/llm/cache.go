package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"copperhead/internal/atomicfile"
)

// Cache is a Provider that answers a request it has answered before from
// disk, and asks the wrapped provider otherwise. It saves money and time when
// the same conversation is run again (a re-run demo, a retried pipeline
// stage); a changed prompt, tool or message is a new request and goes out.
type Cache struct {
	p   Provider
	dir string
	key func(reqHash string) string
}

// CacheScope is what, besides the request itself, identifies a cached turn:
// the backend and model id, and for the compat route only, the endpoint. One
// model id can be served by several OpenAI-compatible hosts (AC-3.20), so
// there the id alone does not name the backend; every other route keeps keys
// without an endpoint, so their existing entries stay valid.
func CacheScope(sel Selection) string {
	scope := sel.Backend + "\x00" + sel.ModelID
	if sel.Backend == BackendCompat {
		scope += "\x00" + sel.BaseURL
	}
	return scope
}

// WithCache wraps p so turns are cached in dir under sel's scope.
func WithCache(p Provider, sel Selection, dir string) *Cache {
	scope := CacheScope(sel)
	return &Cache{p: p, dir: dir, key: func(reqHash string) string {
		sum := sha256.Sum256([]byte(scope + "\x00" + reqHash))
		return hex.EncodeToString(sum[:])
	}}
}

// Name is the wrapped provider's.
func (c *Cache) Name() string { return c.p.Name() }

// Model is the wrapped provider's.
func (c *Cache) Model() string { return c.p.Model() }

// Chat serves a cached turn for an identical request, else calls through and
// stores a successful turn. A cache that cannot be read or written is
// skipped, never fatal: it only ever saves a call.
func (c *Cache) Chat(ctx context.Context, msgs []Message, tools []Tool, opts Options) (*Turn, error) {
	path := filepath.Join(c.dir, c.key(RequestHash(msgs, tools, opts))+".json")
	if data, err := os.ReadFile(path); err == nil {
		var t Turn
		if json.Unmarshal(data, &t) == nil {
			t.Cached = true
			return &t, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read model cache: %w", err)
	}
	t, err := c.p.Chat(ctx, msgs, tools, opts)
	if err != nil {
		return t, err
	}
	stored := *t
	stored.Attempts = nil
	if data, merr := json.Marshal(stored); merr == nil {
		_ = atomicfile.Write(path, data, 0o600)
	}
	return t, nil
}
