package viewer

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"copperhead/internal/runs"
)

//go:embed page
var pageFS embed.FS

var pageTemplate = template.Must(template.ParseFS(pageFS, "page/index.html"))

// DefaultPort is the port `copperhead watch` serves on unless told.
const DefaultPort = 3663

// debounce is how long the design must be quiet after a change before it is
// re-exported: an edit writes several files (sheets, board, docs) within
// milliseconds, and one render of the final state beats three of the
// intermediate ones.
const debounce = 250 * time.Millisecond

// maxRequestBody bounds what a start-run request may send: a change request
// is a sentence or a paragraph; 64 KiB stops a runaway page, not a person.
const maxRequestBody = 64 << 10

// maxRunLog bounds the events kept for a page that connects mid-run (or
// reloads after it): enough for a whole turn budget of tool calls.
const maxRunLog = 4000

// Runner runs one change request as the same gated agent run as `copperhead
// do`, in-process, and returns when it has ended (committed, refused,
// failed or interrupted: ctx is cancelled by Stop and by Ctrl-C). attach is
// called with the run before its first turn, so the viewer subscribes to
// every event. The error is the run's failure as the CLI words it (a dirty
// tree, a failed run); an ended run's outcome also arrives as its end event.
type Runner func(ctx context.Context, request string, attach func(*runs.Run)) error

// Options is what a Server shows and runs.
type Options struct {
	Schematic string   // root .kicad_sch, absolute
	Board     string   // .kicad_pcb, absolute; "" when the project has none
	Exporter  Exporter // kicad-cli's SVG export
	Checker   Checker  // kicad-cli's ERC and DRC
	Run       Runner   // nil: the chat is disabled (the page says so)
	// OutcomeLine words a run's outcome as the terminal does; nil uses the
	// exit path alone.
	OutcomeLine func(*runs.Outcome) string
	// Watch lists the folders whose KiCad files are watched for changes;
	// empty watches the schematic's and the board's folders.
	Watch []string
	// Log gets one line per event worth a person's attention at the
	// terminal (a render or a watch that failed); nil discards them.
	Log io.Writer
}

// Server is one `copperhead watch` session. Its token is fresh per session
// and only the page it serves knows it.
type Server struct {
	opts  Options
	token string
	rend  *renderer
	hub   *hub
	poke  chan struct{}

	mu        sync.Mutex
	running   bool
	request   string
	cancelRun context.CancelFunc
	runDone   chan struct{}
	runLog    [][]byte // the latest run's event messages, for late joiners
	rationale []string // the latest run's reasoning lines and summary
	chips     []Chip
	lastErr   string
	baseCtx   context.Context // Serve's: a run's context derives from it
}

// New prepares a server; Serve starts it.
func New(o Options) (*Server, error) {
	if o.Schematic == "" || o.Exporter == nil || o.Checker == nil {
		return nil, errors.New("viewer: a schematic, an exporter and a checker are required")
	}
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("session token: %w", err)
	}
	r, err := newRenderer(o.Exporter, o.Schematic, o.Board)
	if err != nil {
		return nil, err
	}
	return &Server{opts: o, token: hex.EncodeToString(tok), rend: r, hub: newHub(), poke: make(chan struct{}, 1),
		chips: []Chip{{Gate: "ERC", State: ChipPending, Text: "ERC …"}, {Gate: "DRC", State: ChipPending, Text: "DRC …"}}}, nil
}

// Listen opens the loopback listener: 127.0.0.1 only, never a wildcard
// address, so the server is not reachable from another machine. Port 0
// picks a free port.
func Listen(port int) (net.Listener, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("port %d: want 0 to 65535", port)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1:%d: %w", port, err)
	}
	return ln, nil
}

// PageURL is the page's address on ln.
func PageURL(ln net.Listener) string {
	return fmt.Sprintf("http://127.0.0.1:%d/", ln.Addr().(*net.TCPAddr).Port)
}

// Serve serves on ln until ctx is cancelled. A run in progress is
// interrupted then (its context is ctx's child) and Serve returns once it
// has ended, rolled back, so Ctrl-C leaves the tree as `do` would.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.rend.close()
	port := ln.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.baseCtx = ctx
	s.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { s.work(ctx) })
	if err := s.watchFiles(ctx, &wg); err != nil {
		s.logf("watch: %v (changes are picked up from runs only)", err)
	}
	s.kick()
	srv := &http.Server{Handler: s.Handler(port), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	cancel()
	s.waitRun()
	s.hub.closeAll()
	shutCtx, done := context.WithTimeout(context.Background(), 2*time.Second)
	defer done()
	_ = srv.Shutdown(shutCtx)
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Handler is the server's HTTP surface for port (the port the page was
// served on, which every Host and Origin must name).
func (s *Server) Handler(port int) http.Handler {
	allowed := map[string]bool{}
	for _, h := range []string{"127.0.0.1", "localhost"} {
		allowed[h+":"+strconv.Itoa(port)] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /app.js", s.serveAsset("page/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", s.serveAsset("page/app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /svg", s.serveSVG)
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) { s.serveWS(w, r, allowed) })
	mux.HandleFunc("POST /api/run", s.changing(allowed, s.startRun))
	mux.HandleFunc("POST /api/stop", s.changing(allowed, s.stopRun))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// DNS rebinding: a name the attacker controls, resolved to
		// 127.0.0.1, reaches this listener with its own name in Host.
		if !allowed[strings.ToLower(r.Host)] {
			http.Error(w, "forbidden: Host must be 127.0.0.1:"+strconv.Itoa(port)+" or localhost:"+strconv.Itoa(port), http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
			"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		mux.ServeHTTP(w, r)
	})
}

// originAllowed says whether a browser request came from this server's own
// page: its Origin is http://<an allowed host>. No Origin (a non-browser
// client) is not allowed where one is required.
func originAllowed(r *http.Request, allowed map[string]bool) bool {
	o := r.Header.Get("Origin")
	host, ok := strings.CutPrefix(o, "http://")
	return ok && allowed[strings.ToLower(host)]
}

// tokenOK compares in constant time, so the token cannot be guessed a byte
// at a time from response timings.
func (s *Server) tokenOK(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// changing guards a request that changes something: the session token in
// X-Copperhead-Token (a custom header, which a cross-origin page cannot
// send without a CORS preflight this server never answers) and, when the
// browser says where it came from, this server's own origin.
func (s *Server) changing(allowed map[string]bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" && !originAllowed(r, allowed) {
			http.Error(w, "forbidden: foreign origin", http.StatusForbidden)
			return
		}
		if !s.tokenOK(r.Header.Get("X-Copperhead-Token")) {
			http.Error(w, "forbidden: missing or wrong session token", http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

func (s *Server) servePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	chat := s.opts.Run != nil
	if err := pageTemplate.Execute(w, struct {
		Token string
		Chat  bool
	}{s.token, chat}); err != nil {
		s.logf("page: %v", err)
	}
}

func (s *Server) serveAsset(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		data, err := pageFS.ReadFile(name)
		if err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(data)
	}
}

// serveSVG answers /svg?gen=N&key=K with that generation's picture: the key
// is looked up in the generation's own table, never joined to a path.
func (s *Server) serveSVG(w http.ResponseWriter, r *http.Request) {
	gen, err := strconv.Atoi(r.URL.Query().Get("gen"))
	if err != nil {
		http.Error(w, "bad gen", http.StatusBadRequest)
		return
	}
	data, ok, err := s.rend.svg(gen, r.URL.Query().Get("key"))
	if err != nil {
		http.Error(w, "render unavailable", http.StatusInternalServerError)
		return
	}
	if !ok {
		http.Error(w, "no such picture (it may have been replaced by a newer render)", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(data)
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "copperhead: watch: "+format+"\n", args...)
	}
}

// kick asks the worker to look at the design again (a file changed, a run
// wrote one); many kicks before it looks are one look.
func (s *Server) kick() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// work re-renders and re-checks the design after each quiet spell following
// a kick, one generation at a time.
func (s *Server) work(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.poke:
		}
		t := time.NewTimer(debounce)
		for quiet := false; !quiet; {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-s.poke:
				t.Reset(debounce)
			case <-t.C:
				quiet = true
			}
		}
		s.update(ctx)
	}
}

// update renders the design when it changed, pushes the pictures, then
// re-runs ERC and DRC and pushes the chips.
func (s *Server) update(ctx context.Context) {
	start := time.Now()
	r, changed, err := s.rend.refresh(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.logf("render: %v", err)
			s.broadcastState(func() { s.lastErr = err.Error() })
		}
		return
	}
	if !changed {
		return
	}
	if r.Error != "" {
		s.logf("render %d: %s", r.Gen, r.Error)
	}
	// The "within 2 s" of AC-5.1 is this line, read by a person or a
	// benchmark, never asserted.
	s.logf("render %d (%s) in %v", r.Gen, r.Hash, time.Since(start).Round(time.Millisecond))
	s.broadcastState(func() {
		s.lastErr = ""
		s.chips = []Chip{{Gate: "ERC", State: ChipPending, Text: "ERC …", Gen: r.Gen}, {Gate: "DRC", State: ChipPending, Text: "DRC …", Gen: r.Gen}}
	})
	chips := runChecks(ctx, s.opts.Checker, s.opts.Schematic, s.opts.Board, r.Gen)
	if ctx.Err() != nil {
		return
	}
	s.broadcastState(func() { s.chips = chips })
}

// state is everything the page shows besides the run's events, as one
// message: a page that joins late, or misses one, is whole after the next.
type state struct {
	Type      string   `json:"type"` // "state"
	Render    *Render  `json:"render"`
	Before    *Render  `json:"before"`
	Chips     []Chip   `json:"chips"`
	Running   bool     `json:"running"`
	Request   string   `json:"request"`
	Rationale []string `json:"rationale"`
	Chat      bool     `json:"chat"`
	Error     string   `json:"error,omitempty"`
}

func (s *Server) stateMessage() []byte {
	cur, before := s.rend.state()
	s.mu.Lock()
	st := state{Type: "state", Render: cur, Before: before, Chips: s.chips, Running: s.running, Request: s.request,
		Rationale: append([]string{}, s.rationale...), Chat: s.opts.Run != nil, Error: s.lastErr}
	s.mu.Unlock()
	data, _ := json.Marshal(st)
	return data
}

// broadcastState applies change under the lock and sends the new state to
// every page. The hub's lock is held from the change to the send, so two
// changes reach every page in the order they were made (a stale state never
// overtakes a newer one) and a page joining meanwhile gets each once.
func (s *Server) broadcastState(change func()) {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.mu.Lock()
	change()
	s.mu.Unlock()
	s.hub.broadcastLocked(s.stateMessage())
}
