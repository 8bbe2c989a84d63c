package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/internal/inscriptionfeed"
	"github.com/stxgraph/stxgraph/server"
)

// explorerChain has the demo chain's shape (demo.Chain), smaller: transfers, contract calls
// with events, microblocks, a fork and pending transactions.
var explorerChain = chaingen.Options{Seed: 1, Blocks: 40, TxsPerBlock: 4, Accounts: 8, BusyShare: 0.3,
	ContractCallsPerBlock: 1, ForkAt: 20, MempoolTxs: 6, MicroblockEvery: 5, MicroblockTxs: 2}

// screenshots is where -update writes the explorer's screenshots, which README.md shows.
const screenshots = "../docs/screenshots"

// The explorer in a real browser with nothing reachable but this server: every page renders
// on a demo-shaped chain, the balance chart draws the account's checkpoints, a block posted to
// the event observer reaches the home page without a reload, and no page logs an error.
func TestExplorerInBrowser(t *testing.T) {
	ctx := context.Background()
	a := startAPI(t, server.Config{Introspection: true}, true)
	g, err := chaingen.New(explorerChain)
	if err != nil {
		t.Fatal(err)
	}
	var ms []chaingen.Message
	if err := g.Each(func(m chaingen.Message) error { ms = append(ms, m); return nil }); err != nil {
		t.Fatal(err)
	}
	// The pending transactions (the chain's last message) and the last three blocks (from the
	// burn block before the third last) arrive through the event observer while the home page
	// is open.
	pending := ms[len(ms)-1]
	if pending.Path != chaingen.PathNewMempoolTx {
		t.Fatalf("the chain ends on %s, not on its pending transactions", pending.Path)
	}
	ms = ms[:len(ms)-1]
	held, blocks := len(ms), 0
	for held > 0 && blocks < 3 {
		held--
		if ms[held].Path == chaingen.PathNewBurnBlock {
			blocks++
		}
	}
	applyAll(t, a.store, ms[:held])
	for _, b := range inscriptionfeed.Sample() {
		if err := inscriptionfeed.Apply(ctx, a.store, b.Payload()); err != nil {
			t.Fatal(err)
		}
	}
	observer := httptest.NewServer(ingest.NewServer(a.store, ingest.Options{}))
	t.Cleanup(observer.Close)
	tip, err := a.store.ChainTip(ctx)
	if err != nil {
		t.Fatal(err)
	}

	b := newBrowser(t)
	shot := func(name string) {
		t.Helper()
		if !*update {
			return
		}
		var png []byte
		if err := chromedp.Run(b.ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(screenshots, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(screenshots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	open := func(path, ready string) {
		t.Helper()
		if err := chromedp.Run(b.ctx, chromedp.Navigate(a.url+path)); err != nil {
			t.Fatal(err)
		}
		b.waitReady(t, ready)
	}

	// The start page shows the tip, and links the explorer.
	if err := chromedp.Run(b.ctx, chromedp.Navigate(a.url+"/")); err != nil {
		t.Fatal(err)
	}
	b.waitText(t, "#tip-height", fmt.Sprint(tip.BlockHeight))
	b.waitText(t, "#status", "ready")
	shot("start")

	// Home: the newest blocks and the mempool; then the held-back blocks arrive live.
	if err := chromedp.Run(b.ctx, chromedp.Click(`ul.links a[href="/explorer/"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b.waitReady(t, "/")
	b.waitText(t, "#blocks", fmt.Sprintf("#%d", tip.BlockHeight))
	waitSubscribed(t, b, a.url)
	b.waitText(t, "#live", "live")
	seen := false
	for _, m := range ms[held:] {
		if seen {
			break
		}
		post(t, observer.URL+m.Path, m.Payload)
		if m.Path != chaingen.PathNewBlock {
			continue
		}
		var block struct {
			Height int `json:"block_height"`
		}
		if err := json.Unmarshal(m.Payload, &block); err != nil {
			t.Fatal(err)
		}
		seen = b.showsWithin("#blocks", fmt.Sprintf("#%d", block.Height), 10*time.Second) &&
			b.showsWithin("#tip-height", fmt.Sprint(block.Height), 10*time.Second)
	}
	if !seen {
		t.Fatalf("none of the blocks posted to the event observer reached the home page:\n%.1000s\nconsole: %q", b.text("main"), b.consoleLog())
	}
	listed := b.count(`#mempool tr`)
	post(t, observer.URL+pending.Path, pending.Payload)
	for deadline := time.Now().Add(10 * time.Second); b.count(`#mempool tr`) < listed+explorerChain.MempoolTxs && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if n := b.count(`#mempool tr`); n < listed+explorerChain.MempoolTxs {
		t.Errorf("the home page lists %d mempool transactions after %d arrived; it listed %d before", n, explorerChain.MempoolTxs, listed)
	}
	shot("home")

	// Search by transaction id leads to the transaction page: its result, events, post-conditions.
	var call struct {
		TxID string `bun:"tx_id"`
	}
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(tx_id, 'hex') AS tx_id FROM txs
		WHERE canonical AND microblock_canonical AND event_count > 0 AND type_id = 2 ORDER BY block_height DESC LIMIT 1`).Scan(ctx, &call); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(b.ctx, chromedp.SendKeys(`#search input`, call.TxID, chromedp.ByQuery), chromedp.Submit(`#search`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b.waitReady(t, "/tx/"+call.TxID)
	b.waitText(t, "#txid", call.TxID)
	if r := b.text("#tx-result"); !strings.HasPrefix(r, "(ok") && !strings.HasPrefix(r, "(err") {
		t.Errorf("transaction result %q", r)
	}
	if b.count("#tx-events tbody tr") == 0 {
		t.Errorf("the contract call shows no events:\n%.1000s", b.text("main"))
	}
	shot("transaction")

	// A pending transaction shows where it waits.
	var queued struct{ ID string }
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(tx_id, 'hex') AS id FROM mempool_txs WHERE NOT pruned LIMIT 1`).Scan(ctx, &queued); err != nil {
		t.Fatal(err)
	}
	open("/explorer/tx/"+queued.ID, "/tx/"+queued.ID)
	b.waitText(t, "main", "in the mempool since")

	// A microblock transaction says so; a fork block says it is not canonical.
	var micro, fork struct{ ID string }
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(tx_id, 'hex') AS id FROM txs
		WHERE canonical AND microblock_canonical AND microblock_sequence < 2147483647 LIMIT 1`).Scan(ctx, &micro); err != nil {
		t.Fatal(err)
	}
	open("/explorer/tx/"+micro.ID, "/tx/"+micro.ID)
	b.waitText(t, "main", "microblock #")
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(block_hash, 'hex') AS id FROM blocks WHERE NOT canonical LIMIT 1`).Scan(ctx, &fork); err != nil {
		t.Fatal(err)
	}
	open("/explorer/block/"+fork.ID, "/block/"+fork.ID)
	b.waitText(t, "main", "not on the canonical chain")

	// A block with microblocks, by height.
	var mb struct{ Height int }
	if err := a.store.DB.NewRaw(`SELECT b.block_height AS height FROM blocks b JOIN microblocks m ON m.index_block_hash = b.index_block_hash
		WHERE b.canonical AND m.microblock_canonical ORDER BY b.block_height DESC LIMIT 1`).Scan(ctx, &mb); err != nil {
		t.Fatalf("a block confirming microblocks: %v", err)
	}
	open(fmt.Sprintf("/explorer/block/%d", mb.Height), fmt.Sprintf("/block/%d", mb.Height))
	b.waitText(t, "main", "confirmed by this block")
	if b.count("#block-txs tbody tr") == 0 {
		t.Errorf("block %d lists no transactions", mb.Height)
	}
	shot("block")

	// The account: the chart's points are the balances its checkpoints hold at their heights.
	busy := g.Busy()
	open("/explorer/address/"+busy, "/address/"+busy)
	b.waitText(t, "#balance", "STX")
	b.checkChart(t, a.store, busy)
	if b.count("#account-txs tbody tr") != 10 {
		t.Errorf("the account's first page has %d transactions, want 10", b.count("#account-txs tbody tr"))
	}
	shot("account")
	first := b.text("#account-txs tbody")
	if err := chromedp.Run(b.ctx, chromedp.Click(`//a[contains(., "Older")]`)); err != nil {
		t.Fatal(err)
	}
	b.waitText(t, ".pager", "Newer")
	if next := b.text("#account-txs tbody"); next == first || next == "" {
		t.Errorf("the next page shows the same transactions")
	}

	// BRC-20: the list links the token, whose page has its holders and activity.
	open("/explorer/brc20", "/brc20")
	if err := chromedp.Run(b.ctx, chromedp.Click(`//a[normalize-space(.)="ordi"]`)); err != nil {
		t.Fatalf("no ordi in the token list: %v\n%.500s", err, b.text("main"))
	}
	b.waitReady(t, "/brc20/ordi")
	b.waitText(t, "#minted", "%")
	if n := b.count("#holders tbody tr"); n != 3 {
		t.Errorf("ordi shows %d holders, want 3:\n%.1000s", n, b.text("main"))
	}
	if b.count("#activity tbody tr") == 0 {
		t.Errorf("ordi shows no activity")
	}
	shot("brc20")

	// The search box tells its input's kind by its shape.
	var tipHash struct{ Hash string }
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(block_hash, 'hex') AS hash FROM blocks WHERE canonical AND block_height = ?`, mb.Height).
		Scan(ctx, &tipHash); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ q, page, shows string }{
		{fmt.Sprint(mb.Height), fmt.Sprintf("/block/%d", mb.Height), fmt.Sprintf("Block #%d", mb.Height)},
		{strings.TrimPrefix(tipHash.Hash, "0x"), "/block/" + tipHash.Hash, fmt.Sprintf("Block #%d", mb.Height)},
		{busy, "/address/" + busy, busy},
		{g.ContractID(), "/address/" + g.ContractID(), "Contract"},
		{"ordi", "/brc20/ordi", "BRC-20 token"},
	} {
		if err := chromedp.Run(b.ctx, chromedp.SetValue(`#search input`, s.q, chromedp.ByQuery), chromedp.Submit(`#search`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		b.waitReady(t, s.page)
		b.waitText(t, "main", s.shows)
	}

	// The query toggle shows the page's operation.
	if err := chromedp.Run(b.ctx, chromedp.Click(`details.query summary`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	b.waitText(t, "details.query", "query Brc20Token($ticker: String!)")
	shot("query")

	if n := b.checkLocal(t, a.url); n < 10 {
		t.Errorf("recorded %d requests; the pages' own requests were not seen", n)
	}
	for _, c := range b.consoleLog() {
		if strings.HasPrefix(c, "error") || strings.HasPrefix(c, "exception") {
			t.Errorf("console: %s", c)
		}
	}
}

// post sends a message to the event observer as a stacks node does.
func post(t *testing.T, url string, payload []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d", url, resp.StatusCode)
	}
}

// unrendered is what a page shows when it renders a missing value.
var unrendered = regexp.MustCompile(`\b(null|undefined|NaN|\[object Object\])`)

// waitReady waits until the explorer has rendered the page at path (under /explorer).
func (b *browser) waitReady(t *testing.T, path string) {
	t.Helper()
	var ready string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_ = chromedp.Run(b.ctx, chromedp.Evaluate(`document.body.dataset.ready || ""`, &ready))
		if ready == path {
			if e := b.text(".error"); e != "" {
				t.Fatalf("%s shows an error: %s", path, e)
			}
			if m := unrendered.FindString(b.text("main")); m != "" {
				t.Errorf("%s shows %q:\n%.1000s", path, m, b.text("main"))
			}
			return
		}
	}
	t.Fatalf("the explorer never rendered %s (it rendered %q):\n%.1000s\nconsole: %q", path, ready, b.text("main"), b.consoleLog())
}

// count is the number of elements the selector matches.
func (b *browser) count(selector string) int {
	var n int
	_ = chromedp.Run(b.ctx, chromedp.Evaluate(`document.querySelectorAll(`+"`"+selector+"`"+`).length`, &n))
	return n
}

// checkChart checks the balance chart against the principal's checkpoints: each point shows
// the balance of the newest checkpoint at or below its height, every checkpoint in the range is
// drawn as a change, and a larger balance is drawn higher.
func (b *browser) checkChart(t *testing.T, store *db.Store, principal string) {
	t.Helper()
	var points []struct {
		Height  int     `json:"h"`
		Balance string  `json:"b"`
		Y       float64 `json:"y"`
		Change  bool    `json:"c"`
	}
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(`[...document.querySelectorAll('#balance-chart circle.point')].map((c) => ({
		h: Number(c.dataset.height), b: c.dataset.balance, y: Number(c.getAttribute('cy')), c: c.classList.contains('change')}))`, &points)); err != nil {
		t.Fatal(err)
	}
	if len(points) < 2 {
		t.Fatalf("the chart draws %d points", len(points))
	}
	var checkpoints []struct {
		Height  int
		Balance string
	}
	if err := store.DB.NewRaw(`SELECT block_height AS height, (total_received - total_sent - total_fees_sent + total_miner_rewards_received)::text AS balance
		FROM principal_stx_checkpoints WHERE principal = ? ORDER BY block_height`, principal).Scan(context.Background(), &checkpoints); err != nil {
		t.Fatal(err)
	}
	changes := 0
	for _, p := range points {
		want, at := "0", 0
		for _, c := range checkpoints {
			if c.Height <= p.Height {
				want, at = c.Balance, c.Height
			}
		}
		if p.Balance != want {
			t.Errorf("the chart draws %s at height %d; the checkpoint at %d holds %s", p.Balance, p.Height, at, want)
		}
		if p.Change != (at == p.Height) {
			t.Errorf("height %d drawn as a change: %v; checkpoint there: %v", p.Height, p.Change, at == p.Height)
		}
		if p.Change {
			changes++
		}
	}
	inRange := 0
	for _, c := range checkpoints {
		if c.Height >= points[0].Height && c.Height <= points[len(points)-1].Height {
			inRange++
		}
	}
	if changes != inRange || changes < 3 {
		t.Errorf("the chart draws %d changes; %d checkpoints are in its range", changes, inRange)
	}
	for _, p := range points {
		for _, q := range points {
			if cmpDecimal(p.Balance, q.Balance) > 0 && p.Y > q.Y {
				t.Fatalf("balance %s at height %d is drawn lower than %s at %d", p.Balance, p.Height, q.Balance, q.Height)
			}
		}
	}
}

// cmpDecimal compares two non-negative decimal integers.
func cmpDecimal(x, y string) int {
	if len(x) != len(y) {
		return len(x) - len(y)
	}
	return strings.Compare(x, y)
}

// The start page says whether the chain has blocks yet, and which is the tip.
func TestStartPage(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	if body := get(t, a.url+"/"); !strings.Contains(body, "waiting for the first block") || strings.Contains(body, "Chain tip") {
		t.Errorf("the start page of an empty database:\n%.2000s", body)
	}
	g, err := chaingen.New(chaingen.Options{Seed: 2, Blocks: 5, TxsPerBlock: 1, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	var ms []chaingen.Message
	if err := g.Each(func(m chaingen.Message) error { ms = append(ms, m); return nil }); err != nil {
		t.Fatal(err)
	}
	applyAll(t, a.store, ms)
	tip, err := a.store.ChainTip(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body := get(t, a.url+"/")
	for _, want := range []string{">ready<", fmt.Sprintf(`<a href="/explorer/block/%s">%d</a>`, db.Hex(tip.BlockHash), tip.BlockHeight)} {
		if !strings.Contains(body, want) {
			t.Errorf("the start page lacks %q:\n%.2000s", want, body)
		}
	}
}
