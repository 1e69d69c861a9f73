package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rogpeppe/go-internal/txtar"

	"copperhead/internal/llm"
	"copperhead/internal/llm/llmtest"
	"copperhead/internal/testkit"
)

// TestWatchInBrowser is AC-5.1–5.4 in a real browser: the built binary's
// `watch` serves a copy of the bundled board, and headless Chromium (Debian
// `chromium`, through chromedp) loads the page and checks what a person
// would see, polling the DOM (no step is timed; the one-minute bounds only
// detect a hang):
//   - the page shows the current schematic as SVG (AC-5.1; how long it took
//     is logged, not asserted);
//   - `copperhead edit rename-net KEY_DAH KEY_DASH` in another process
//     re-renders it without a reload (the render counter moves, the new SVG
//     holds KEY_DASH) and the ERC chip is re-checked for that render (AC-5.2);
//   - the before/after toggle shows the pre-change render and back (AC-5.3);
//   - a request typed into the chat runs with a scripted model (do_rename's
//     replies, run the other way: KEY_DASH back to KEY_DAH), its events
//     arrive in the pane one by one as they happen and end with its outcome,
//     and the schematic re-renders with the run's change (AC-5.4);
//   - a foreign Host gets 403 and the port answers on 127.0.0.1 only.
//
// Screenshots of each step go to $COPPERHEAD_ARTIFACTS (else a temporary
// folder, named in the log).
func TestWatchInBrowser(t *testing.T) {
	bin, err := exec.LookPath("copperhead") // testscript.Main puts it on PATH
	if err != nil {
		t.Skip("copperhead command not on PATH")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (scripts/setup.sh installs it)")
	}
	testkit.NeedKiCadCLI(t)
	if _, err := exec.LookPath("openspec"); err != nil {
		t.Skip("openspec is not installed (scripts/setup.sh installs it)")
	}
	shots := os.Getenv("COPPERHEAD_ARTIFACTS")
	if shots == "" {
		shots = t.TempDir()
	} else {
		shots = filepath.Join(shots, "watch")
		os.RemoveAll(shots) // the last run's pictures would mislead
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", shots)

	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := testkit.CopyTree(repo, "../../examples/open-telegraph", nil); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "COPPERHEAD_CACHE_DIR="+filepath.Join(dir, "cache"),
		"COPPERHEAD_KICAD_CONFIG="+filepath.Join(dir, "kicadcfg"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test Engineer", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Test Engineer", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "open-telegraph")

	model := llmtest.NewServer(t, llmtest.OpenAI, watchScript(t)...)
	env = append(env, "COPPERHEAD_BASE_URL="+model.URL)

	// The server, as a person starts it.
	watch := exec.Command(bin, "--repo", repo, "--plain", "watch", "--port", "0", "--model", "compat:scripted")
	watch.Env = env
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	watch.Stderr = &stderr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("watch printed nothing; stderr:\n%s", stderr.String())
	}
	m := regexp.MustCompile(`serving (http://127\.0\.0\.1:(\d+)/)`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("first line %q names no http://127.0.0.1:<port>/", lines.Text())
	}
	url, port := m[1], m[2]
	go func() { // the run's terminal rendering; only drained
		for lines.Scan() {
		}
	}()

	// The browser, fresh profile, the flags that work on this machine.
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1400, 900))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	b := &browser{t: t, ctx: ctx, shots: shots}

	// AC-5.1: the current schematic, as SVG, in the page.
	loaded := time.Now()
	// The first action starts the browser: no timeout on it, or the
	// timeout would end the browser with it.
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("browser: %v", err)
	}
	b.waitFor("the schematic SVG", `(() => { const s = document.querySelector('#canvas svg');
		return !!s && +document.getElementById('view').dataset.shownGen >= 1 && s.textContent.includes('KEY_DAH'); })()`)
	t.Logf("AC-5.1: schematic SVG in the page %v after navigation (the spec asks for 2 s)", time.Since(loaded).Round(time.Millisecond))
	eval[bool](b, `window.__sameDocument = true`)
	gen1 := b.number(`+document.getElementById('view').dataset.gen`)
	b.waitFor("the ERC chip for the first render", fmt.Sprintf(`(() => { const c = document.getElementById('erc-chip');
		return +c.dataset.gen >= %d && +c.dataset.gen === +document.getElementById('view').dataset.gen && ['green','amber','red'].includes(c.dataset.state); })()`, gen1))
	if got := b.text(`document.getElementById('sheet').options.length + ''`); got != "3" {
		t.Errorf("the picture selector has %s entries, want 3 (root sheet, power sheet, board)", got)
	}
	b.shot("1-loaded")

	// The sheet selector shows each picture of the hierarchy: the power
	// sheet, the board, then the root sheet again.
	for _, c := range []struct{ key, holds string }{{"sch-1", "MCP73831-2-OT"}, {"board", "<path"}, {"sch-0", "KEY_DAH"}} {
		eval[bool](b, fmt.Sprintf(`(() => { const s = document.getElementById('sheet'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, c.key))
		b.waitFor("picture "+c.key, fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg');
			return document.getElementById('view').dataset.shownKey === %q && !!s && s.outerHTML.includes(%q); })()`, c.key, c.holds))
		if c.key == "sch-1" {
			b.shot("1b-power-sheet")
		}
	}

	// Zoom (wheel) and pan (drag) are set now and must survive the
	// re-render below.
	eval[bool](b, `(() => { const v = document.getElementById('view');
		v.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, clientX: 700, clientY: 400, bubbles: true, cancelable: true }));
		v.dispatchEvent(new PointerEvent('pointerdown', { clientX: 600, clientY: 400, pointerId: 1, bubbles: true }));
		v.dispatchEvent(new PointerEvent('pointermove', { clientX: 540, clientY: 360, pointerId: 1, bubbles: true }));
		v.dispatchEvent(new PointerEvent('pointerup', { clientX: 540, clientY: 360, pointerId: 1, bubbles: true }));
		return true; })()`)
	zoomed := b.text(`document.getElementById('canvas').style.transform`)
	if !strings.Contains(zoomed, "scale(") || strings.Contains(zoomed, "scale(1)") || strings.Contains(zoomed, "translate(0px, 0px)") {
		t.Fatalf("after wheel and drag the picture's transform is %q, want zoomed and panned", zoomed)
	}

	// AC-5.2: an edit in another process re-renders without a reload, and
	// the ERC chip is re-checked for the new render.
	edit := exec.Command(bin, "--repo", repo, "edit", "rename-net", "KEY_DAH", "KEY_DASH")
	edit.Env = env
	if out, err := edit.CombinedOutput(); err != nil {
		t.Fatalf("edit rename-net: %v\n%s", err, out)
	}
	b.waitFor("the re-render with KEY_DASH", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return +v.dataset.shownGen > %d && s.textContent.includes('KEY_DASH') && !s.textContent.includes('KEY_DAH'); })()`, gen1))
	gen2 := b.number(`+document.getElementById('view').dataset.gen`)
	b.waitFor("the ERC chip for the re-render", fmt.Sprintf(`(() => { const c = document.getElementById('erc-chip');
		return +c.dataset.gen >= %d && +c.dataset.gen === +document.getElementById('view').dataset.gen && ['green','amber','red'].includes(c.dataset.state); })()`, gen2))
	if b.text(`String(window.__sameDocument === true)`) != "true" {
		t.Error("the page reloaded to show the new render")
	}
	if got := b.text(`document.getElementById('canvas').style.transform`); got != zoomed {
		t.Errorf("zoom and pan after the re-render: %q, want %q as before it", got, zoomed)
	}
	b.shot("2-after-edit")

	// AC-5.3: the toggle shows the pre-change render, then the current one.
	b.do(chromedp.Click(chromedp.ID("toggle")))
	b.waitFor("the before render", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return v.dataset.mode === 'before' && +v.dataset.shownGen === %d && s.textContent.includes('KEY_DAH') && !s.textContent.includes('KEY_DASH'); })()`, gen1))
	b.shot("3-before")
	b.do(chromedp.Click(chromedp.ID("toggle")))
	b.waitFor("the current render again", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return v.dataset.mode === 'after' && +v.dataset.shownGen >= %d && +v.dataset.shownGen === +v.dataset.gen && s.textContent.includes('KEY_DASH'); })()`, gen2))
	b.shot("4-after-again")

	// AC-5.4: a request typed into the chat streams its events as they
	// happen. A MutationObserver records each batch of new log lines: one
	// batch per pushed event proves they arrived one by one, not at the end.
	// The dirty-tree rule applies to the page's runs as to do's: the hand
	// edit is not committed yet, so the request is refused, in the pane.
	b.do(chromedp.SendKeys(chromedp.ID("request"), "rename net KEY_DASH to KEY_DAH"), chromedp.Click(chromedp.ID("send")))
	b.waitFor("the dirty-tree refusal", `[...document.querySelectorAll('#log li[data-kind="error"]')].some((li) => li.textContent.includes('uncommitted changes'))`)
	b.shot("4b-dirty-refused")
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("a refused run reached the model (%d requests)", n)
	}
	git("add", "-A")
	git("commit", "-qm", "rename KEY_DAH to KEY_DASH by hand")
	eval[bool](b, `document.getElementById('request').value = ''; true`)
	eval[bool](b, `window.__batches = [];
		new MutationObserver((ms) => { const kinds = [];
			for (const m of ms) for (const n of m.addedNodes) if (n.dataset) kinds.push(n.dataset.kind);
			if (kinds.length) window.__batches.push(kinds); }).observe(document.getElementById('log'), { childList: true }); true`)
	b.do(chromedp.SendKeys(chromedp.ID("request"), "rename net KEY_DASH to KEY_DAH"), chromedp.Click(chromedp.ID("send")))
	b.waitFor("a tool call in the pane", `document.querySelectorAll('#log li[data-kind="tool"]').length > 0`)
	b.shot("5-run-streaming")
	b.waitFor("the run's outcome", `!!document.querySelector('#log li[data-kind="end"]')`)
	b.shot("6-run-ended")
	if exit := b.text(`document.querySelector('#log li[data-kind="end"]').dataset.exit`); exit != "done" {
		t.Fatalf("the run ended %q, want done; pane:\n%s\nstderr:\n%s", exit, b.text(`document.getElementById('log').innerText`), stderr.String())
	}
	if line := b.text(`document.querySelector('#log li[data-kind="end"]').textContent`); !strings.Contains(line, "commit ") {
		t.Errorf("the outcome line %q names no commit", line)
	}
	batches := eval[[][]string](b, `window.__batches`)
	tools := 0
	for i, kinds := range batches {
		for _, k := range kinds {
			if k == "tool" {
				tools++
			}
			if k == "end" && i != len(batches)-1 {
				t.Errorf("the end event arrived before later events: %v", batches)
			}
		}
	}
	if len(batches) < 10 || tools < 8 || len(batches[0]) > 2 {
		t.Errorf("events arrived in %d batches (%v), want one small batch per event (the run has 10 tool calls)", len(batches), batches)
	}
	if p := b.text(`document.getElementById('progress').textContent`); !regexp.MustCompile(`^turn \d+/\d+ · \S+ in / \S+ out tokens$`).MatchString(p) {
		t.Errorf("progress line %q, want turn k/N and tokens", p)
	}
	b.waitFor("the run's change rendered", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return +v.dataset.shownGen > %d && s.textContent.includes('KEY_DAH') && !s.textContent.includes('KEY_DASH'); })()`, gen2))
	gen3 := b.number(`+document.getElementById('view').dataset.gen`)
	b.waitFor("the ERC chip for the run's render", fmt.Sprintf(`(() => { const c = document.getElementById('erc-chip');
		return +c.dataset.gen >= %d && +c.dataset.gen === +document.getElementById('view').dataset.gen && ['green','amber','red'].includes(c.dataset.state); })()`, gen3))
	if r := b.text(`document.getElementById('rationale').textContent`); !strings.Contains(r, "Renamed KEY_DASH to KEY_DAH") {
		t.Errorf("status bar rationale %q lacks the run's summary", r)
	}
	b.shot("7-run-rendered")

	// Stop interrupts a run: the second request's model edits the
	// schematic (the page re-renders it mid-run) and then never answers;
	// Stop ends the run interrupted, the tree rolled back and the work
	// stashed, and the page renders the restored schematic.
	eval[bool](b, `document.getElementById('request').value = ''; true`)
	b.do(chromedp.SendKeys(chromedp.ID("request"), "rename net KEY_DIT to KEY_DOT"), chromedp.Click(chromedp.ID("send")))
	b.waitFor("the mid-run render with KEY_DOT", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return +v.dataset.shownGen > %d && s.textContent.includes('KEY_DOT'); })()`, gen3))
	b.waitFor("the Stop button enabled", `!document.getElementById('stop').disabled`)
	b.shot("8-mid-run")
	b.do(chromedp.Click(chromedp.ID("stop")))
	b.waitFor("the interrupted outcome", `(() => { const e = document.querySelector('#log li[data-kind="end"]'); return !!e && e.dataset.exit === 'interrupted'; })()`)
	b.waitFor("the restored schematic rendered", `(() => { const s = document.querySelector('#canvas svg');
		return s.textContent.includes('KEY_DIT') && !s.textContent.includes('KEY_DOT'); })()`)
	b.shot("9-stopped")
	stash := exec.Command("git", "-C", repo, "stash", "list")
	stash.Env = env
	if out, err := stash.CombinedOutput(); err != nil || !strings.Contains(string(out), "copperhead interrupted run") {
		t.Errorf("git stash list after Stop: %v\n%s", err, out)
	}
	status := exec.Command("git", "-C", repo, "status", "--porcelain")
	status.Env = env
	if out, err := status.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("git status after Stop: %v\n%s", err, out)
	}
	gen4 := b.number(`+document.getElementById('view').dataset.gen`)

	// The spec's demo: "add a second RGB LED on an RTC-capable pin" runs to
	// its commit, and the schematic re-renders with D3 and its nets, ERC
	// re-checked for that render; before/after shows the pre-run picture.
	eval[bool](b, `document.getElementById('request').value = ''; true`)
	b.do(chromedp.SendKeys(chromedp.ID("request"), "add a second RGB LED on an RTC-capable pin"), chromedp.Click(chromedp.ID("send")))
	b.waitFor("the demo's outcome", `!!document.querySelector('#log li[data-kind="end"]')`)
	if exit := b.text(`document.querySelector('#log li[data-kind="end"]').dataset.exit`); exit != "done" {
		t.Fatalf("the demo run ended %q, want done; pane:\n%s", exit, b.text(`document.getElementById('log').innerText`))
	}
	b.waitFor("the new part rendered", fmt.Sprintf(`(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return +v.dataset.shownGen > %d && ['D3', 'R13', 'LED2_R', 'LED2_B'].every((w) => s.textContent.includes(w)); })()`, gen4))
	gen5 := b.number(`+document.getElementById('view').dataset.gen`)
	b.waitFor("the ERC chip for the demo's render", fmt.Sprintf(`(() => { const c = document.getElementById('erc-chip');
		return +c.dataset.gen >= %d && +c.dataset.gen === +document.getElementById('view').dataset.gen && c.dataset.state === 'green'; })()`, gen5))
	b.shot("10-demo-rgb-led")
	b.do(chromedp.Click(chromedp.ID("toggle")))
	b.waitFor("the demo's before picture", `(() => { const s = document.querySelector('#canvas svg'); const v = document.getElementById('view');
		return v.dataset.mode === 'before' && !s.textContent.includes('LED2_R') && s.textContent.includes('KEY_DIT'); })()`)
	b.shot("11-demo-before")
	b.do(chromedp.Click(chromedp.ID("toggle")))

	// Security: a foreign Host is refused; only 127.0.0.1 answers.
	for _, c := range []struct {
		host string
		want int
	}{{"127.0.0.1:" + port, 200}, {"localhost:" + port, 200}, {"evil.example:" + port, 403}, {"127.0.0.1:1", 403}} {
		req, _ := http.NewRequest("GET", url, nil)
		req.Host = c.host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("Host %s: status %d, want %d", c.host, res.StatusCode, c.want)
		}
	}
	for _, addr := range otherAddrs(t) {
		if conn, err := net.DialTimeout("tcp", net.JoinHostPort(addr, port), 2*time.Second); err == nil {
			conn.Close()
			t.Errorf("the server answers on %s:%s: it must listen on 127.0.0.1 only", addr, port)
		}
	}

	// Ctrl-C ends watch with exit 0.
	if err := watch.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- watch.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watch after Ctrl-C: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute): // a hang detector only
		t.Fatal("watch did not stop after SIGINT")
	}
	t.Logf("watch stderr:\n%s", stderr.String())
}

// browser is one Chromium tab the test drives.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string
	n     int
}

// do runs actions in the tab; a minute without an answer is a hang.
func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute) // a hang detector only
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed")
		b.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute) // a hang detector only
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.shot("failed")
		b.t.Fatalf("browser: %s: %v", expr, err)
	}
	return v
}

// waitFor polls the page until expr is true; a minute without it is a hang.
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if eval[bool](b, expr) {
			return
		}
		if time.Now().After(deadline) {
			b.shot("timeout")
			page := eval[string](b, `document.getElementById('log').innerText + '\n' + document.getElementById('render-info').textContent +
				'\nshown ' + JSON.stringify(document.getElementById('view').dataset) + ' selected ' + document.getElementById('sheet').value`)
			b.t.Fatalf("waiting for %s: not there after a minute; page says:\n%s", what, page)
		}
	}
}

func (b *browser) text(expr string) string {
	b.t.Helper()
	return eval[string](b, expr)
}

func (b *browser) number(expr string) int {
	b.t.Helper()
	return int(eval[float64](b, expr))
}

// shot writes a screenshot of the page as NN-name.png.
func (b *browser) shot(name string) {
	b.n++
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, name)), png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
	}
}

// scriptedStep is one reply of a scripted model, as the fakemodel -script
// files spell it.
type scriptedStep struct {
	Text      string         `json:"text"`
	ToolCalls []llm.ToolCall `json:"tool_calls"`
}

// watchScript is the model behind TestWatchInBrowser's three requests, in
// order:
//  1. do_rename.txtar's replies with KEY_DAH and KEY_DASH swapped: the run
//     renames the net back after the hand edit;
//  2. a proposal, its validation, one edit, then no answer until the run is
//     stopped;
//  3. the spec's demo, testdata/watch/rgb_led.json: "add a second RGB LED on
//     an RTC-capable pin".
func watchScript(t *testing.T) []llmtest.Step {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/script/do_rename.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var rename []byte
	for _, f := range ar.Files {
		if f.Name == "rename.json" {
			rename = f.Data
		}
	}
	if rename == nil {
		t.Fatal("do_rename.txtar has no rename.json")
	}
	swapped := strings.NewReplacer("KEY_DASH", "KEY_DAH", "KEY_DAH", "KEY_DASH", "key-dah", "key-dash").Replace(string(rename))
	var steps []scriptedStep
	if err := json.Unmarshal([]byte(swapped), &steps); err != nil {
		t.Fatal(err)
	}
	out := replies(steps)

	out = append(out, replies([]scriptedStep{
		{Text: "Plan: rename the dot key net.", ToolCalls: []llm.ToolCall{{Name: "propose_change", Args: json.RawMessage(`{
			"id": "rename-key-dit", "why": "The dot paddle net is called KEY_DOT in the firmware.",
			"what_changes": "Rename net KEY_DIT to KEY_DOT in the schematic.",
			"tasks": ["Rename the global labels", "Run ERC"],
			"deltas": [{"capability": "keyer-inputs", "kind": "ADDED", "requirements": [{
				"name": "Dot key net name",
				"text": "The dot paddle input SHALL be on the net KEY_DOT.",
				"scenarios": [{"name": "Dot paddle pressed", "when": "the dot paddle closes", "then": "KEY_DOT reads low"}]}]}]}`)}}},
		{ToolCalls: []llm.ToolCall{{Name: "validate_change", Args: json.RawMessage(`{}`)}}},
		{ToolCalls: []llm.ToolCall{{Name: "edit_file", Args: json.RawMessage(`{"path": "hardware/open-telegraph.kicad_sch",
			"old_string": "(global_label \"KEY_DIT\"", "new_string": "(global_label \"KEY_DOT\"", "replace_all": true}`)}}},
	})...)
	out = append(out, llmtest.Slow{Delay: 10 * time.Minute})

	data, err := os.ReadFile("testdata/watch/rgb_led.json")
	if err != nil {
		t.Fatal(err)
	}
	steps = nil
	if err := json.Unmarshal(data, &steps); err != nil {
		t.Fatalf("rgb_led.json: %v", err)
	}
	return append(out, replies(steps)...)
}

// replies turns scripted steps into fake-model replies, as fakemodel does.
func replies(steps []scriptedStep) []llmtest.Step {
	var out []llmtest.Step
	for i, st := range steps {
		stop := llm.StopEnd
		for j := range st.ToolCalls {
			st.ToolCalls[j].ID = fmt.Sprintf("call_%d_%d", i+1, j+1)
			stop = llm.StopToolUse
		}
		out = append(out, llmtest.Reply{Text: st.Text, ToolCalls: st.ToolCalls, Stop: stop, Usage: llm.Usage{Input: 1200, Output: 80}})
	}
	return out
}

// otherAddrs are this machine's addresses other than 127.0.0.1 (IPv6
// loopback included), where the server must not answer.
func otherAddrs(t *testing.T) []string {
	addrs := []string{"::1"}
	ifs, err := net.InterfaceAddrs()
	if err != nil {
		t.Logf("interface addresses: %v", err)
		return addrs
	}
	for _, a := range ifs {
		if ipn, ok := a.(*net.IPNet); ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() {
			addrs = append(addrs, ipn.IP.String())
		}
	}
	if len(addrs) == 1 {
		t.Log("no non-loopback address on this machine: only [::1] is tried")
	}
	return addrs
}
