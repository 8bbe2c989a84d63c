package server_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

// chromium finds Debian's headless Chromium (`make test` installs it). Without it the browser
// tests skip, except under CI, where they fail.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (make test installs Debian's chromium package)")
	}
	t.Skip("chromium is not installed: run `make test`, which installs it")
	return ""
}

// browser opens a headless Chromium and records the address of every request and WebSocket
// the pages make.
type browser struct {
	ctx     context.Context
	mu      sync.Mutex
	urls    []string
	console []string // console messages and uncaught exceptions, for failure reports
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromium(t)
	// Chromium may still write its profile while it exits, so the directory is removed after the
	// browser has gone, without failing the test (t.TempDir would).
	profile, err := os.MkdirTemp("", "stxgraph-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser and waits for it
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.urls = append(b.urls, e.Request.URL)
		case *network.EventWebSocketCreated:
			b.urls = append(b.urls, e.URL)
		case *runtime.EventConsoleAPICalled:
			for _, arg := range e.Args {
				b.console = append(b.console, string(e.Type)+": "+string(arg.Value)+arg.Description)
			}
		case *runtime.EventExceptionThrown:
			b.console = append(b.console, "exception: "+e.ExceptionDetails.Error())
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// checkLocal fails on any request that went to another host than base's, and returns how
// many requests the pages made.
func (b *browser) checkLocal(t *testing.T, base string) int {
	t.Helper()
	home, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, raw := range b.urls {
		u, err := url.Parse(raw)
		if err != nil {
			t.Errorf("unparsable request address %q", raw)
			continue
		}
		switch u.Scheme {
		case "data", "blob", "about":
			continue
		}
		if u.Host != home.Host {
			t.Errorf("the page made a request to another host: %s", truncate(raw))
		}
	}
	return len(b.urls)
}

// text is an element's rendered text ("" when absent).
func (b *browser) text(selector string) string {
	var s string
	_ = chromedp.Run(b.ctx, chromedp.Evaluate(`(document.querySelector(`+"`"+selector+"`"+`)||{}).innerText||""`, &s))
	return s
}

// showsWithin reports whether the element's text holds want within d.
func (b *browser) showsWithin(selector, want string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(b.text(selector), want) {
			return true
		}
	}
	return false
}

// waitText waits until the element's text holds want, failing with what it shows instead.
func (b *browser) waitText(t *testing.T, selector, want string) {
	t.Helper()
	if b.showsWithin(selector, want, 30*time.Second) {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t.Fatalf("%s never showed %q; it shows:\n%.2000s\nconsole: %q", selector, want, b.text(selector), b.console)
}

// applyAll ingests messages as the event observer does.
func applyAll(t *testing.T, store *db.Store, ms []chaingen.Message) {
	t.Helper()
	in := ingest.NewIngester(store)
	for _, m := range ms {
		if _, err := in.Apply(context.Background(), ingest.Message{Path: m.Path, Payload: m.Payload, ReceivedAt: m.ReceivedAt}); err != nil {
			t.Fatal(err)
		}
	}
}

// GraphiQL in a real browser, with nothing reachable but this server: the example query runs
// and shows the chain's newest block hash, and the live-blocks tab's subscription shows a
// block stored while it runs.
func TestGraphiQLInBrowser(t *testing.T) {
	a := startAPI(t, server.Config{Introspection: true}, true)
	g, err := chaingen.New(chaingen.Options{Seed: 11, Blocks: 8, TxsPerBlock: 2, Accounts: 6, ContractCallsPerBlock: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ms []chaingen.Message
	if err := g.Each(func(m chaingen.Message) error { ms = append(ms, m); return nil }); err != nil {
		t.Fatal(err)
	}
	live := ms[len(ms)-6:] // the last three burn blocks and blocks arrive while the subscription runs
	applyAll(t, a.store, ms[:len(ms)-6])
	tip, err := a.store.ChainTip(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tipHash := db.Hex(tip.BlockHash)

	b := newBrowser(t)
	err = chromedp.Run(b.ctx,
		chromedp.Navigate(a.url+"/graphiql"),
		chromedp.WaitVisible(`.graphiql-execute-button`, chromedp.ByQuery),
		chromedp.WaitVisible(`.graphiql-sidebar button[aria-label="Show GraphiQL Explorer"]`, chromedp.ByQuery),
		chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("GraphiQL did not load: %v\n%.500s\nconsole: %q", err, b.text("body"), b.consoleLog())
	}
	b.waitText(t, ".result-window", tipHash)
	if q := b.text(".graphiql-query-editor"); !strings.Contains(q, "blocksConnection(first: 5)") {
		t.Errorf("the first tab is not the example query:\n%.500s", q)
	}
	for _, name := range []string{"AccountPage", "BlockPage", "LiveBlocks"} {
		if !strings.Contains(b.text(".graphiql-tabs"), name) {
			t.Errorf("no %s tab; tabs: %q", name, b.text(".graphiql-tabs"))
		}
	}

	// The account tab runs its own operation (not the one of the tab shown before).
	b.openTab(t, "AccountPage")
	if err := chromedp.Run(b.ctx, chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b.waitText(t, ".result-window", `"stxBalance"`)

	// The live tab subscribes over graphql-ws; the next block reaches the result pane.
	b.openTab(t, "LiveBlocks")
	if err := chromedp.Run(b.ctx, chromedp.Click(`.graphiql-execute-button`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	// The page subscribes once its WebSocket is open; the server registers the subscription a
	// moment later, so blocks are stored one at a time until one reaches the result pane.
	waitSubscribed(t, b, a.url)
	seen := false
	for i := 0; i < len(live) && !seen; i += 2 {
		applyAll(t, a.store, live[i:i+2])
		var block struct {
			Hash string `json:"block_hash"`
		}
		if err := json.Unmarshal(live[i+1].Payload, &block); err != nil || block.Hash == "" {
			t.Fatalf("block message: %v", err)
		}
		seen = b.showsWithin(".result-window", block.Hash, 10*time.Second)
	}
	if !seen {
		t.Fatalf("the LiveBlocks subscription showed none of the %d blocks stored while it ran; result pane:\n%.1000s\nconsole: %q",
			len(live)/2, b.text(".result-window"), b.consoleLog())
	}

	if n := b.checkLocal(t, a.url); n < 3 {
		t.Errorf("recorded %d requests; the page's own requests were not seen", n)
	}
}

// openTab shows the example tab of the named operation.
func (b *browser) openTab(t *testing.T, operation string) {
	t.Helper()
	var clicked bool
	err := chromedp.Run(b.ctx, chromedp.Evaluate(`(() => {
		const tab = [...document.querySelectorAll('.graphiql-tab-button')].find((b) => b.innerText.includes('`+operation+`'));
		if (tab) tab.click();
		return !!tab;
	})()`, &clicked))
	if err != nil || !clicked {
		t.Fatalf("open the %s tab: %v (found: %v)", operation, err, clicked)
	}
	b.waitText(t, ".graphiql-query-editor", " "+operation)
}

// waitSubscribed waits until the page has opened its WebSocket to /graphql.
func waitSubscribed(t *testing.T, b *browser, base string) {
	t.Helper()
	ws := "ws" + strings.TrimPrefix(base, "http") + "/graphql"
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b.mu.Lock()
		for _, u := range b.urls {
			if u == ws {
				b.mu.Unlock()
				return
			}
		}
		b.mu.Unlock()
		time.Sleep(100 * time.Millisecond)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var short []string
	for _, u := range b.urls {
		short = append(short, truncate(u))
	}
	t.Fatalf("the page opened no WebSocket to %s; requests: %q; console: %q; result pane:\n%.1000s", ws, short, b.console, b.text(".result-window"))
}

// The REST reference renders the OpenAPI document's paths, with nothing but this server.
func TestRESTDocsInBrowser(t *testing.T) {
	a := newAPI(t, server.Config{})
	b := newBrowser(t)
	err := chromedp.Run(b.ctx,
		chromedp.Navigate(a.url+"/"),
		chromedp.Click(`a[href="/docs"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.swagger-ui .info .title`, chromedp.ByQuery),
		chromedp.WaitVisible(`.swagger-ui .opblock`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the REST reference did not render: %v\n%.500s\nconsole: %q", err, b.text("body"), b.consoleLog())
	}
	if title := b.text(".swagger-ui .info .title"); !strings.Contains(title, "stxgraph") {
		t.Errorf("title %q", title)
	}
	b.waitText(t, ".swagger-ui", "/extended/v1/tx/events")
	if n := b.checkLocal(t, a.url); n < 4 {
		t.Errorf("recorded %d requests; the page's own requests were not seen", n)
	}
}

// truncate shortens an address for a report (data: addresses hold whole fonts).
func truncate(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

func (b *browser) consoleLog() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.console)
}
