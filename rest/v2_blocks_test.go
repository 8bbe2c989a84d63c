package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	gqlhandler "github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/rest"
)

// Block hashes of the fixtures the /extended/v2 block cases name.
const (
	// fuzzed-transactions-1: Nakamoto blocks 1-12 in tenures 38 (1-2), 39 (3-10) and 40 (11-12),
	// anchored in burn blocks 242-244, each signed by three signers.
	nakamoto5Index  = "0x5143467b1f218fc99c96a4aeb8c9503a4b2451842f344add7abd61c96dd2945e"
	nakamoto5Hash   = "1780fbc68743fcc09257bd17699192f77aa46a57b9d06e6dfb7dd0d7a10e38ad"
	nakamoto9Index  = "0x2ac2438bfc22832a8c9b847712fac777647e58681a2f5aa802fced3a8a1e6f62"
	nakamoto10Index = "0xb21dbd8c8d45670983dbb4f789021885f77d0b98ac9f538c640e58d811c02a9b"
	nakamotoBurn243 = "727c936aab71c050b1ad61ec22978eee21a429a4a8d0677236a6f237be62d696"
	// epoch-3-transition: burn block 125 anchors blocks 20 and 21.
	epoch3Burn125 = "1da9c307f043b4b1588b0cff8c544ab50989c5b00f004d1a9b36aa91c1397b9f"
)

// v2BlockCalls are the /extended/v2 block reads replayed per fixture, with goldens named
// v2_blocks-<case>.json.
var v2BlockCalls = map[string][]call{
	"fuzzed-transactions-1": {
		{"blocks", "/extended/v2/blocks?limit=3"},
		// The page of older blocks (prev_cursor), from its cursor; its newer page (next_cursor)
		// starts a page above.
		{"blocks-cursor", "/extended/v2/blocks?limit=3&cursor=" + nakamoto9Index},
		{"blocks-cursor-offset", "/extended/v2/blocks?limit=3&cursor=" + nakamoto9Index + "&offset=2"},
		{"blocks-cursor-offset-negative", "/extended/v2/blocks?limit=3&cursor=" + nakamoto5Index + "&offset=-2"},
		{"blocks-offset", "/extended/v2/blocks?limit=3&offset=5"},
		// Fewer than a page of older blocks: no prev_cursor.
		{"blocks-oldest", "/extended/v2/blocks?limit=5&offset=8"},
		{"blocks-offset-past-end", "/extended/v2/blocks?offset=20"},
		{"blocks-limit-zero", "/extended/v2/blocks?limit=0&offset=10"},
		{"blocks-cursor-unknown", "/extended/v2/blocks?cursor=0x" + zeros},
		{"blocks-cursor-past-end", "/extended/v2/blocks?cursor=" + nakamoto5Index + "&offset=10"},
		{"blocks-cursor-bad", "/extended/v2/blocks?cursor=testvalue"},
		{"blocks-offset-over", "/extended/v2/blocks?offset=301"},
		{"blocks-offset-under", "/extended/v2/blocks?offset=-301"},
		{"blocks-offset-not-integer", "/extended/v2/blocks?offset=x"},
		{"blocks-limit-over", "/extended/v2/blocks?limit=31"},
		{"block-latest", "/extended/v2/blocks/latest"},
		{"block-height", "/extended/v2/blocks/5"},
		{"block-hash-no-0x", "/extended/v2/blocks/" + nakamoto5Hash},
		{"block-index-hash", "/extended/v2/blocks/" + nakamoto5Index},
		{"block-unknown", "/extended/v2/blocks/999"},
		{"block-not-height-or-hash", "/extended/v2/blocks/abc"},
		{"block-negative", "/extended/v2/blocks/-1"},
		// The reference reads a height as JavaScript reads a number: 0x12 is 18, 1e1 is 10.
		{"block-height-as-hex-number", "/extended/v2/blocks/0x5"},
		{"block-height-exponent", "/extended/v2/blocks/1e1"},
		{"block-height-out-of-range", "/extended/v2/blocks/99999999999"},
		{"block-height-infinity", "/extended/v2/blocks/Infinity"},
		{"block-transactions", "/extended/v2/blocks/1/transactions"},
		{"block-transactions-page", "/extended/v2/blocks/6/transactions?limit=1&offset=1"},
		{"block-transactions-index-hash-no-0x", "/extended/v2/blocks/" + nakamoto5Index[2:] + "/transactions"},
		{"block-transactions-past-end", "/extended/v2/blocks/1/transactions?offset=5"},
		{"block-transactions-limit-zero", "/extended/v2/blocks/1/transactions?limit=0"},
		{"block-transactions-limit-over", "/extended/v2/blocks/1/transactions?limit=51"},
		{"block-transactions-unknown", "/extended/v2/blocks/999/transactions"},
		{"signer-signatures", "/extended/v2/blocks/" + nakamoto5Index + "/signer-signatures"},
		{"signer-signatures-page", "/extended/v2/blocks/5/signer-signatures?limit=1&offset=1"},
		{"signer-signatures-limit-zero", "/extended/v2/blocks/5/signer-signatures?limit=0"},
		{"signer-signatures-limit-over", "/extended/v2/blocks/5/signer-signatures?limit=1001"},
		{"signer-signatures-unknown", "/extended/v2/blocks/999/signer-signatures"},
		{"tenure-of-tip", "/extended/v2/block-tenures/40/blocks"},
		// Without a cursor a tenure's page starts at the tip: empty unless the tip is in it.
		{"tenure-not-of-tip", "/extended/v2/block-tenures/39/blocks"},
		{"tenure-cursor", "/extended/v2/block-tenures/39/blocks?limit=3&cursor=" + nakamoto10Index},
		{"tenure-cursor-other-tenure", "/extended/v2/block-tenures/38/blocks?cursor=" + nakamoto10Index},
		{"tenure-zero", "/extended/v2/block-tenures/0/blocks?limit=2"},
		{"tenure-not-integer", "/extended/v2/block-tenures/abc/blocks"},
		{"tenure-negative", "/extended/v2/block-tenures/-1/blocks"},
		{"tenure-fraction-zero", "/extended/v2/block-tenures/40.0/blocks?offset=1.0"},
		{"tenure-out-of-range", "/extended/v2/block-tenures/99999999999/blocks"},
		{"burn-blocks", "/extended/v2/burn-blocks"},
		{"burn-blocks-page", "/extended/v2/burn-blocks?limit=1&offset=1"},
		{"burn-blocks-limit-zero", "/extended/v2/burn-blocks?limit=0"},
		{"burn-blocks-limit-over", "/extended/v2/burn-blocks?limit=31"},
		{"burn-block-latest", "/extended/v2/burn-blocks/latest"},
		{"burn-block-height", "/extended/v2/burn-blocks/243"},
		{"burn-block-hash", "/extended/v2/burn-blocks/0x" + nakamotoBurn243},
		{"burn-block-unknown", "/extended/v2/burn-blocks/999"},
		{"burn-block-bad", "/extended/v2/burn-blocks/0x12"},
		{"burn-block-blocks", "/extended/v2/burn-blocks/" + nakamotoBurn243 + "/blocks?limit=3&offset=1"},
		{"burn-block-blocks-latest", "/extended/v2/burn-blocks/latest/blocks"},
		{"burn-block-blocks-past-end", "/extended/v2/burn-blocks/243/blocks?offset=10"},
		{"burn-block-blocks-unknown", "/extended/v2/burn-blocks/999/blocks"},
		{"average-times", "/extended/v2/blocks/average-times"},
	},
	"epoch-3-transition": {
		{"blocks", "/extended/v2/blocks?limit=2"},
		{"block-latest", "/extended/v2/blocks/latest/"},
		// The genesis block is not canonical.
		{"block-genesis", "/extended/v2/blocks/0"},
		{"block-transactions", "/extended/v2/blocks/5/transactions?limit=3&offset=1"},
		{"signer-signatures-before-nakamoto", "/extended/v2/blocks/5/signer-signatures"},
		{"burn-blocks", "/extended/v2/burn-blocks?limit=3"},
		{"burn-block-two-blocks", "/extended/v2/burn-blocks/" + epoch3Burn125},
		{"burn-block-blocks", "/extended/v2/burn-blocks/125/blocks"},
	},
	"mainnet-reorg-scenario1": {
		{"blocks-around-fork", "/extended/v2/blocks?limit=4&offset=17"},
		// A burn block that anchors only an orphaned block lists no blocks; it is known.
		{"burn-block-blocks-orphan", "/extended/v2/burn-blocks/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924/blocks"},
		{"burn-block-orphan", "/extended/v2/burn-blocks/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924"},
	},
	"mainnet-reorg-scenario2": {
		{"blocks", "/extended/v2/blocks"},
		{"block-transactions", "/extended/v2/blocks/2/transactions"},
	},
	"mocknet": {
		{"blocks", "/extended/v2/blocks?limit=2"},
		{"block-transactions", "/extended/v2/blocks/latest/transactions?limit=2"},
	},
	"mainnet-block0": {
		{"blocks", "/extended/v2/blocks"},
		{"block-latest", "/extended/v2/blocks/latest"},
		{"burn-blocks", "/extended/v2/burn-blocks"},
	},
}

func TestV2BlocksGolden(t *testing.T) { recordGoldens(t, v2BlockCalls, "v2_blocks-") }

// TestV2BlocksETag checks the block ETag: the index block hash and canonical flag of the block an
// index block hash, a height or latest names; none for a block hash, none on the tenure route.
func TestV2BlocksETag(t *testing.T) {
	t.Parallel()
	srv := serve(t, replay(t, "fuzzed-transactions-1"), rest.Options{ServerVersion: "test"})
	get := func(path, ifNoneMatch string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for path, want := range map[string]string{
		"/extended/v2/blocks/5":                                   `"` + nakamoto5Index + `:true"`,
		"/extended/v2/blocks/" + nakamoto5Index + "/transactions": `"` + nakamoto5Index + `:true"`,
		"/extended/v2/blocks/latest/signer-signatures":            `"0x3a027883a1952955c5836fa0048383bf7a6492519d1dc9c28eb54e4e4c109a35:true"`,
		"/extended/v2/blocks/" + nakamoto5Hash:                    "",
		"/extended/v2/block-tenures/40/blocks":                    "",
	} {
		resp := get(path, "")
		if got := resp.Header.Get("ETag"); got != want {
			t.Errorf("%s: ETag %q, want %q", path, got, want)
		}
		if want == "" {
			continue
		}
		if resp := get(path, want); resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s with If-None-Match: status %d, want 304", path, resp.StatusCode)
		}
	}
}

// cursorPage is the part of a cursor page the walk reads.
type cursorPage struct {
	Total      int     `json:"total"`
	Cursor     *string `json:"cursor"`
	NextCursor *string `json:"next_cursor"`
	PrevCursor *string `json:"prev_cursor"`
	Results    []struct {
		Height         int    `json:"height"`
		IndexBlockHash string `json:"index_block_hash"`
	} `json:"results"`
}

// TestV2BlocksCursorWalk walks the whole chain from the tip by prev_cursor: every canonical block
// once, newest first, each page starting at the cursor it was asked for and naming as its newer
// page the one the walk came from whenever a full page lies above it.
func TestV2BlocksCursorWalk(t *testing.T) {
	t.Parallel()
	srv := serve(t, replay(t, "epoch-3-transition"), rest.Options{ServerVersion: "test"})
	read := func(path string) cursorPage {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p cursorPage
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&p) != nil {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		return p
	}
	const limit = 7
	p := read("/extended/v2/blocks?limit=7")
	want, pages := p.Total, []cursorPage{p}
	for p.PrevCursor != nil {
		asked := *p.PrevCursor
		p = read("/extended/v2/blocks?limit=7&cursor=" + asked)
		if p.Cursor == nil || *p.Cursor != asked {
			t.Fatalf("page asked at %s starts at %v", asked, p.Cursor)
		}
		pages = append(pages, p)
	}
	var heights []int
	for i, p := range pages {
		for _, b := range p.Results {
			heights = append(heights, b.Height)
		}
		if i > 0 && (p.NextCursor == nil || *p.NextCursor != *pages[i-1].Cursor) {
			t.Errorf("page %d: next_cursor %v, want %s", i, p.NextCursor, *pages[i-1].Cursor)
		}
	}
	if len(heights) != want {
		t.Fatalf("walked %d blocks, the total is %d", len(heights), want)
	}
	for i, h := range heights {
		if h != want-i {
			t.Fatalf("block %d of the walk is at height %d, want %d", i, h, want-i)
		}
	}
}

// TestV2BlocksGraphQL reads the block fields behind the /extended/v2 block routes directly: their
// values on Nakamoto blocks and the arguments they refuse.
func TestV2BlocksGraphQL(t *testing.T) {
	t.Parallel()
	store := replay(t, "fuzzed-transactions-1")
	srv := httptest.NewServer(loaders.Middleware(store, loaders.DefaultWait)(graphQL(schemaOf(store))))
	t.Cleanup(srv.Close)
	h := srv.Client()
	query := func(q string) (string, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"query": q})
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := h.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Data   json.RawMessage `json:"data"`
			Errors []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		if len(out.Errors) > 0 {
			return "", out.Errors[0].Message
		}
		return string(out.Data), ""
	}
	for q, want := range map[string]string{
		`{ canonicalBlock(latest: true) { height signerSignatureCount signerSignatures(limit: 2, offset: 2) nakamotoTenureHeight transactionPage(limit: 1, offset: 1) { txId } } }`: `{"canonicalBlock":{"height":12,"signerSignatureCount":3,"signerSignatures":["` +
			`0x00ae14a33c022f046ad6a8f85d0affdd2a5d200be29037f71f134c9ad3326de0d30fbe74c52e2de25c324e9348e682dc09d7a5b7467c228e84077d3ff7343c9bdb"],"nakamotoTenureHeight":40,"transactionPage":[]}}`,
		`{ blocksOfBurnBlock(height: 243, limit: 2) { total results { height } } }`:                                                          `{"blocksOfBurnBlock":{"total":8,"results":[{"height":10},{"height":9}]}}`,
		`{ anchoringBurnBlocks(limit: 1) { total results { height averageBlockTime totalTxCount } } }`:                                       `{"anchoringBurnBlocks":{"total":12,"results":[{"height":244,"averageBlockTime":2,"totalTxCount":3}]}}`,
		`{ anchoringBurnBlock(height: 243) { averageBlockTime timeIso } }`:                                                                   `{"anchoringBurnBlock":{"averageBlockTime":3.86,"timeIso":"2025-10-16T16:10:53.000Z"}}`,
		`{ blocksFromCursor(limit: 2, offset: 1, cursor: "` + nakamoto10Index + `", tenureHeight: 39) { total cursor results { height } } }`: `{"blocksFromCursor":{"total":8,"cursor":"0x2ac2438bfc22832a8c9b847712fac777647e58681a2f5aa802fced3a8a1e6f62","results":[{"height":9},{"height":8}]}}`,
	} {
		got, msg := query(q)
		if msg != "" {
			t.Errorf("%s: %s", q, msg)
		} else if got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
	for q, want := range map[string]string{
		`{ canonicalBlock(height: 5, hash: "` + nakamoto5Index + `") { height } }`: "give exactly one of latest, height and hash",
		`{ canonicalBlock { height } }`:                                            "give exactly one of latest, height and hash",
		`{ blocksFromCursor(limit: 0) { total } }`:                                 "limit must be between 1 and 30",
		`{ blocksFromCursor(offset: 301) { total } }`:                              "offset must be between -300 and 300",
		`{ canonicalBlock(latest: true) { signerSignatures(limit: 1001) } }`:       "limit must be between 0 and 1000",
		`{ canonicalBlock(latest: true) { transactionPage(limit: 51) { txId } } }`: "limit must be between 0 and 50",
	} {
		if _, msg := query(q); msg != want {
			t.Errorf("%s: error %q, want %q", q, msg, want)
		}
	}
}

// graphQL serves es over POST.
func graphQL(es graphql.ExecutableSchema) *gqlhandler.Server {
	h := gqlhandler.New(es)
	h.AddTransport(transport.POST{})
	return h
}

// TestV2AverageBlockTimes averages the gaps between consecutive canonical blocks' times over
// windows ending 10 seconds after the tip (fuzzed-transactions-1: blocks 1-12, 36 seconds apart in
// 11 gaps), and only those of blocks inside a window.
func TestV2AverageBlockTimes(t *testing.T) {
	t.Parallel()
	store := replay(t, "fuzzed-transactions-1")
	const tipTime = 1760631086
	got, err := store.AverageBlockTimesAt(context.Background(), time.Unix(tipTime+10, 0))
	if err != nil {
		t.Fatal(err)
	}
	near := func(v float64) bool { return math.Abs(v-36.0/11) < 1e-9 }
	if !near(got.Last1h) || !near(got.Last24h) || !near(got.Last7d) || !near(got.Last30d) {
		t.Errorf("averages %+v, want 36/11 in every window", got)
	}
	// With the hour starting 5 seconds before the tip (at 1081 past 1760631000), it holds the
	// blocks at 1081, 1084 and 1086,
	// whose gaps from their previous blocks are 4, 3 and 2.
	got, err = store.AverageBlockTimesAt(context.Background(), time.Unix(tipTime-5+3600, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got.Last1h != 3 || !near(got.Last24h) {
		t.Errorf("averages %+v, want 3 over the hour and 36/11 over the day", got)
	}
	// 40 days later only the 30-day window would reach back, and it holds no block.
	got, err = store.AverageBlockTimesAt(context.Background(), time.Unix(tipTime+40*86400, 0))
	if err != nil {
		t.Fatal(err)
	}
	if *got != (db.AverageBlockTimes{}) {
		t.Errorf("averages %+v, want zeros", got)
	}
	if v := db.RoundCents(2.675); v != 2.67 {
		t.Errorf("RoundCents(2.675) = %v, want 2.67 as JavaScript's toFixed(2) gives", v)
	}
}
