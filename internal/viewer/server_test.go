package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"copperhead/internal/kicadcli"
	"copperhead/internal/llm"
	"copperhead/internal/redact"
	"copperhead/internal/runs"
)

// fakeKiCad plots a two-sheet schematic and a board as tiny SVGs naming
// the schematic's content, and answers ERC/DRC with the report it holds.
type fakeKiCad struct {
	mu      sync.Mutex
	exports int
	erc     *kicadcli.Report
}

func (f *fakeKiCad) ExportSVG(_ context.Context, input, outDir string) ([]string, error) {
	f.mu.Lock()
	f.exports++
	f.mu.Unlock()
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(input)
	if err != nil {
		return nil, err
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(input), ".kicad_sch"), ".kicad_pcb")
	names := []string{stem + ".svg"}
	if filepath.Ext(input) == ".kicad_sch" {
		names = append(names, stem+"-power.svg")
	}
	slices.Sort(names) // kicad-cli's order: "board-power.svg" before "board.svg"
	var out []string
	for _, n := range names {
		p := filepath.Join(outDir, n)
		svg := fmt.Sprintf("<svg xmlns='http://www.w3.org/2000/svg'><text>%s %s</text></svg>", n, strings.TrimSpace(string(data)))
		if err := os.WriteFile(p, []byte(svg), 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func (f *fakeKiCad) ERC(context.Context, string) (*kicadcli.Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.erc, nil
}

func (f *fakeKiCad) DRC(context.Context, string) (*kicadcli.Report, error) {
	return &kicadcli.Report{}, nil
}

// session is a Server serving on a loopback port for one test.
type session struct {
	srv  *Server
	base string // http://127.0.0.1:<port>
	port int
	sch  string
	kc   *fakeKiCad
}

func startSession(t *testing.T, run Runner) *session {
	t.Helper()
	dir := t.TempDir()
	sch := filepath.Join(dir, "board.kicad_sch")
	pcb := filepath.Join(dir, "board.kicad_pcb")
	for p, body := range map[string]string{sch: "(kicad_sch NET_A)", pcb: "(kicad_pcb)"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kc := &fakeKiCad{erc: &kicadcli.Report{}}
	srv, err := New(Options{Schematic: sch, Board: pcb, Exporter: kc, Checker: kc, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	s, cancel, done := serve(t, srv)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	s.sch, s.kc = sch, kc
	return s
}

// serve serves srv on a new loopback port until cancel is called; done
// then gets what Serve returned. The session's sch and kc are unset.
func serve(t *testing.T, srv *Server) (s *session, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	port := ln.Addr().(*net.TCPAddr).Port
	return &session{srv: srv, base: fmt.Sprintf("http://127.0.0.1:%d", port), port: port}, cancel, served
}

func (s *session) do(t *testing.T, method, path string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// TestListenIsLoopbackOnly: the listener is bound to 127.0.0.1, never a
// wildcard address.
func TestListenIsLoopbackOnly(t *testing.T) {
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.Equal(net.IPv4(127, 0, 0, 1)) {
		t.Errorf("listening on %v, want 127.0.0.1", ip)
	}
	if _, err := Listen(70000); err == nil {
		t.Error("Listen(70000) succeeded")
	}
}

// TestHostHeader: DNS rebinding is refused on every path, the page included.
func TestHostHeader(t *testing.T) {
	s := startSession(t, nil)
	p := fmt.Sprint(s.port)
	for _, c := range []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + p, 200},
		{"localhost:" + p, 200},
		{"LOCALHOST:" + p, 200},
		{"evil.example:" + p, 403},
		{"127.0.0.1", 403},
		{"127.0.0.1:" + p + "0", 403},
		{"[::1]:" + p, 403},
		{"0.0.0.0:" + p, 403},
	} {
		for _, path := range []string{"/", "/app.js", "/svg?gen=1&key=sch-0"} {
			code, _ := s.do(t, "GET", path, map[string]string{"Host": c.host}, "")
			if c.want == 403 && code != 403 || c.want == 200 && code == 403 {
				t.Errorf("GET %s with Host %q: %d, want %d", path, c.host, code, c.want)
			}
		}
	}
}

// token fetches the page and reads the session token from it.
func (s *session) token(t *testing.T) string {
	t.Helper()
	code, page := s.do(t, "GET", "/", nil, "")
	if code != 200 {
		t.Fatalf("page: %d", code)
	}
	_, rest, ok := strings.Cut(page, `name="copperhead-token" content="`)
	tok, _, _ := strings.Cut(rest, `"`)
	if !ok || len(tok) < 32 {
		t.Fatalf("no session token in the page")
	}
	if tok != s.srv.token {
		t.Fatalf("page token %q is not the session's", tok)
	}
	return tok
}

// TestChangingRequestsNeedTheToken: starting and stopping a run need the
// session token in a header, and a foreign Origin is refused even with it.
func TestChangingRequestsNeedTheToken(t *testing.T) {
	started := make(chan string, 4)
	stopped := make(chan error, 4)
	s := startSession(t, func(ctx context.Context, request string, _ func(*runs.Run)) error {
		started <- request
		<-ctx.Done()
		stopped <- ctx.Err()
		return ctx.Err()
	})
	tok := s.token(t)
	own := fmt.Sprintf("http://127.0.0.1:%d", s.port)
	body := `{"request": "rename net A to B"}`
	for _, c := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", map[string]string{}, 403},
		{"wrong token", map[string]string{"X-Copperhead-Token": strings.Repeat("0", len(tok))}, 403},
		{"token in the wrong place", map[string]string{"Authorization": "Bearer " + tok}, 403},
		{"foreign origin", map[string]string{"X-Copperhead-Token": tok, "Origin": "http://evil.example"}, 403},
		{"foreign origin on our port", map[string]string{"X-Copperhead-Token": tok, "Origin": fmt.Sprintf("http://evil.example:%d", s.port)}, 403},
	} {
		if code, msg := s.do(t, "POST", "/api/run", c.header, body); code != c.want {
			t.Errorf("%s: POST /api/run %d %q, want %d", c.name, code, msg, c.want)
		}
	}
	select {
	case r := <-started:
		t.Fatalf("a refused request started a run: %q", r)
	default:
	}
	ok := map[string]string{"X-Copperhead-Token": tok, "Origin": own}
	if code, msg := s.do(t, "POST", "/api/run", ok, `{"request": ""}`); code != 400 {
		t.Errorf("empty request: %d %q, want 400", code, msg)
	}
	if code, msg := s.do(t, "POST", "/api/run", ok, `{"request": "x", "path": "/etc/passwd"}`); code != 400 {
		t.Errorf("unknown field: %d %q, want 400", code, msg)
	}
	if code, msg := s.do(t, "POST", "/api/stop", ok, ""); code != 409 {
		t.Errorf("stop with no run: %d %q, want 409", code, msg)
	}
	if code, msg := s.do(t, "POST", "/api/run", ok, body); code != 202 {
		t.Fatalf("POST /api/run: %d %q, want 202", code, msg)
	}
	if got := <-started; got != "rename net A to B" {
		t.Errorf("runner got %q", got)
	}
	if code, _ := s.do(t, "POST", "/api/run", ok, body); code != 409 {
		t.Errorf("a second run while one is going: %d, want 409", code)
	}
	if code, _ := s.do(t, "POST", "/api/stop", map[string]string{}, ""); code != 403 {
		t.Errorf("stop without the token: %d, want 403", code)
	}
	if code, msg := s.do(t, "POST", "/api/stop", ok, ""); code != 202 {
		t.Fatalf("POST /api/stop: %d %q, want 202", code, msg)
	}
	if err := <-stopped; err != context.Canceled {
		t.Errorf("the run's context after Stop: %v, want context.Canceled", err)
	}
	// Once it has ended, another run may start.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		code, _ := s.do(t, "POST", "/api/run", ok, body)
		if code == 202 {
			break
		}
		if code != 409 || time.Now().After(deadline) {
			t.Fatalf("a run after the stopped one: %d", code)
		}
	}
	<-started
	// Serve's end (t.Cleanup) interrupts it, as Ctrl-C does.
}

// dialWS opens the page's WebSocket with origin and token.
func (s *session) dialWS(t *testing.T, origin, token string) (*websocket.Conn, int, error) {
	t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, res, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d/ws?token=%s", s.port, token), &websocket.DialOptions{HTTPHeader: h})
	code := 0
	if res != nil {
		code = res.StatusCode
	}
	return c, code, err
}

// readState reads messages until a state message satisfying ok arrives.
func readState(t *testing.T, c *websocket.Conn, ok func(state) bool) state {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang detector only
	defer cancel()
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("websocket read: %v", err)
		}
		var st state
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		if st.Type == "state" && ok(st) {
			return st
		}
	}
}

// TestWebSocket: the socket checks Origin and the token, then pushes the
// state; a change of the schematic on disk pushes a new render, whose
// pictures are fetched by key, and the chips are re-checked for it.
func TestWebSocket(t *testing.T) {
	s := startSession(t, nil)
	tok := s.token(t)
	own := fmt.Sprintf("http://localhost:%d", s.port)
	for _, c := range []struct{ name, origin, token string }{
		{"no origin", "", tok},
		{"foreign origin", "http://evil.example", tok},
		{"https origin", fmt.Sprintf("https://127.0.0.1:%d", s.port), tok},
		{"no token", own, ""},
		{"wrong token", own, "abc"},
	} {
		conn, code, err := s.dialWS(t, c.origin, c.token)
		if err == nil {
			conn.CloseNow()
			t.Errorf("%s: the WebSocket opened", c.name)
		} else if code != 403 {
			t.Errorf("%s: status %d, want 403", c.name, code)
		}
	}
	conn, _, err := s.dialWS(t, fmt.Sprintf("http://127.0.0.1:%d", s.port), tok)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	first := readState(t, conn, func(st state) bool {
		return st.Render != nil && len(st.Chips) == 2 && st.Chips[0].Gen == st.Render.Gen && st.Chips[0].State == ChipGreen
	})
	var pics []string
	for _, p := range first.Render.Pictures {
		pics = append(pics, p.Key+"="+p.Label)
	}
	if got := strings.Join(pics, ", "); got != "sch-0=root sheet, sch-1=sheet power, board=board" {
		t.Fatalf("pictures %s, want sch-0=root sheet, sch-1=sheet power, board=board", got)
	}
	if _, svg := s.do(t, "GET", fmt.Sprintf("/svg?gen=%d&key=sch-1", first.Render.Gen), nil, ""); !strings.Contains(svg, "board-power.svg") {
		t.Errorf("sch-1 is %q, want the power sheet's picture", svg)
	}
	if first.Before == nil || first.Before.Gen != first.Render.Gen {
		t.Errorf("before %+v, want the first render", first.Before)
	}
	gen := first.Render.Gen
	code, svg := s.do(t, "GET", fmt.Sprintf("/svg?gen=%d&key=sch-0", gen), nil, "")
	if code != 200 || !strings.Contains(svg, "NET_A") {
		t.Fatalf("root sheet picture: %d %q", code, svg)
	}
	// Nothing the page sends is a path: a key is looked up, never joined.
	for _, key := range []string{"../../../../etc/passwd", "board.kicad_sch", "sch-0/../../x", "/etc/passwd", ""} {
		if code, _ := s.do(t, "GET", fmt.Sprintf("/svg?gen=%d&key=%s", gen, key), nil, ""); code != 404 {
			t.Errorf("key %q: %d, want 404", key, code)
		}
	}

	// An edit on disk: a new generation, the old one still the "before".
	s.kc.mu.Lock()
	s.kc.erc = &kicadcli.Report{Violations: []kicadcli.Violation{{Severity: kicadcli.SeverityError}}}
	s.kc.mu.Unlock()
	if err := os.WriteFile(s.sch, []byte("(kicad_sch NET_B)"), 0o644); err != nil {
		t.Fatal(err)
	}
	next := readState(t, conn, func(st state) bool {
		return st.Render != nil && st.Render.Gen > gen && st.Chips[0].Gen == st.Render.Gen && st.Chips[0].State != ChipPending
	})
	if next.Chips[0].State != ChipRed || next.Chips[0].Errors != 1 {
		t.Errorf("ERC chip %+v, want red with 1 error", next.Chips[0])
	}
	if next.Before == nil || next.Before.Gen != gen {
		t.Errorf("before %+v, want generation %d", next.Before, gen)
	}
	if _, svg := s.do(t, "GET", fmt.Sprintf("/svg?gen=%d&key=sch-0", next.Render.Gen), nil, ""); !strings.Contains(svg, "NET_B") {
		t.Errorf("new picture %q lacks NET_B", svg)
	}
	if _, svg := s.do(t, "GET", fmt.Sprintf("/svg?gen=%d&key=sch-0", gen), nil, ""); !strings.Contains(svg, "NET_A") {
		t.Errorf("before picture %q lacks NET_A", svg)
	}
}

// TestUnchangedDesignIsNotReRendered: a write that leaves the bytes as they
// were (kicad-cli rewriting a file, a touch) exports nothing.
func TestUnchangedDesignIsNotReRendered(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(dir, "a.kicad_sch")
	if err := os.WriteFile(sch, []byte("(kicad_sch)"), 0o644); err != nil {
		t.Fatal(err)
	}
	kc := &fakeKiCad{}
	r, err := newRenderer(kc, sch, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ctx := context.Background()
	first, changed, err := r.refresh(ctx)
	if err != nil || !changed {
		t.Fatalf("first refresh: changed %v, %v", changed, err)
	}
	if err := os.WriteFile(sch, []byte("(kicad_sch)"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, changed, err := r.refresh(ctx)
	if err != nil || changed || again != first || kc.exports != 1 {
		t.Errorf("refresh of identical bytes: changed %v, exports %d, err %v", changed, kc.exports, err)
	}
	if err := os.WriteFile(sch, []byte("(kicad_sch x)"), 0o644); err != nil {
		t.Fatal(err)
	}
	third, changed, err := r.refresh(ctx)
	if err != nil || !changed || third.Gen != first.Gen+1 {
		t.Errorf("refresh after a change: changed %v, gen %d after %d, err %v", changed, third.Gen, first.Gen, err)
	}
}

func TestChipFor(t *testing.T) {
	warn := kicadcli.Violation{Severity: kicadcli.SeverityWarning}
	fail := kicadcli.Violation{Severity: kicadcli.SeverityError}
	for _, c := range []struct {
		name  string
		r     *kicadcli.Report
		err   error
		state string
		text  string
	}{
		{"clean", &kicadcli.Report{}, nil, ChipGreen, "ERC ✓"},
		{"warnings", &kicadcli.Report{Violations: []kicadcli.Violation{warn, warn}}, nil, ChipAmber, "ERC 2 warnings"},
		{"errors", &kicadcli.Report{Violations: []kicadcli.Violation{fail, warn}}, nil, ChipRed, "ERC 1 error, 1 warning"},
		{"environment only", &kicadcli.Report{Environment: []kicadcli.Violation{fail}}, nil, ChipGreen, "ERC ✓"},
		{"could not run", nil, fmt.Errorf("kicad-cli sch erc: boom"), ChipRed, "ERC could not run: kicad-cli sch erc: boom"},
		{"nothing to check", nil, nil, ChipNone, "ERC: no board"},
	} {
		got := chipFor("ERC", 3, c.r, c.err)
		if got.State != c.state || got.Text != c.text || got.Gen != 3 {
			t.Errorf("%s: %+v, want state %s text %q", c.name, got, c.state, c.text)
		}
	}
}

// TestEventsAreRedacted: what a run's events carry reaches the page through
// the run's own redactor, like the transcript and the terminal.
func TestEventsAreRedacted(t *testing.T) {
	secret := "sk-" + "live-0123456789abcdefghij"
	red := redact.New([]string{"OPENAI_API_KEY=" + secret})
	s := &Server{opts: Options{OutcomeLine: func(o *runs.Outcome) string { return "done with " + secret }}}
	m := s.eventMessage(red, runs.Event{Kind: runs.EventTool, Tool: "read_file", Text: "key " + secret, Result: "body " + secret,
		Turn: 2, Budget: 40, Tokens: llm.Usage{Input: 1200, Output: 80}})
	data, _ := json.Marshal(m)
	if strings.Contains(string(data), secret) {
		t.Errorf("event message carries the secret: %s", data)
	}
	if m.Turn != 2 || m.Budget != 40 || m.TokensIn != 1200 || m.TokensOut != 80 {
		t.Errorf("progress counters %+v", m)
	}
	end := s.eventMessage(red, runs.Event{Kind: runs.EventEnd, Outcome: &runs.Outcome{ExitPath: "done", Summary: "used " + secret}})
	data, _ = json.Marshal(end)
	if strings.Contains(string(data), secret) || end.Outcome == nil || !end.Outcome.OK {
		t.Errorf("end message: %s", data)
	}
}

// TestServeWaitsForTheRun: stopping the server (Ctrl-C) interrupts a run in
// progress and returns only once the run has ended.
func TestServeWaitsForTheRun(t *testing.T) {
	var ended atomic.Bool
	started := make(chan struct{})
	dir := t.TempDir()
	sch := filepath.Join(dir, "a.kicad_sch")
	if err := os.WriteFile(sch, []byte("(kicad_sch)"), 0o644); err != nil {
		t.Fatal(err)
	}
	kc := &fakeKiCad{erc: &kicadcli.Report{}}
	srv, err := New(Options{Schematic: sch, Exporter: kc, Checker: kc, Run: func(ctx context.Context, _ string, _ func(*runs.Run)) error {
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a rollback taking a moment
		ended.Store(true)
		return ctx.Err()
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, cancel, done := serve(t, srv)
	if code, msg := s.do(t, "POST", "/api/run", map[string]string{"X-Copperhead-Token": srv.token}, `{"request":"x"}`); code != 202 {
		t.Fatalf("start: %d %q", code, msg)
	}
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !ended.Load() {
		t.Error("Serve returned before the interrupted run ended")
	}
}

// TestChatOff: a session without a model serves the viewer, says in the
// page that the chat is off, and refuses a run.
func TestChatOff(t *testing.T) {
	s := startSession(t, nil)
	tok := s.token(t)
	_, page := s.do(t, "GET", "/", nil, "")
	if !strings.Contains(page, "no model configured") || !strings.Contains(page, `id="send" type="submit" disabled`) {
		t.Errorf("the page does not say the chat is off")
	}
	if code, _ := s.do(t, "POST", "/api/run", map[string]string{"X-Copperhead-Token": tok}, `{"request":"x"}`); code != http.StatusServiceUnavailable {
		t.Errorf("a run without a model: %d, want 503", code)
	}
}
