package rest_test

import (
	"bytes"
	"context"

	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/internal/inscriptionfeed"
	"github.com/stxgraph/stxgraph/internal/unisat"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/rest"
)

// ingestMainnet applies UniSat's real mainnet inscriptions (blocks 779832-780025) through the
// inscription ingestion, one payload per block.
func ingestMainnet(t testing.TB) *db.Store {
	t.Helper()
	blocks, err := unisat.Blocks(bytes.NewReader(fixtures.ReadGzip(t, fixtures.Path(t, "brc20/unisat-mainnet-779832-780025.txt.gz"))))
	if err != nil {
		t.Fatal(err)
	}
	store := replay(t, "")
	for _, b := range blocks {
		if err := inscriptionfeed.Apply(context.Background(), store, b.Payload); err != nil {
			t.Fatalf("block %d: %v", b.Height, err)
		}
	}
	return store
}

type tokenDetails struct {
	Token struct {
		ID              string `json:"id"`
		Number          int64  `json:"number"`
		BlockHeight     int    `json:"block_height"`
		TxID            string `json:"tx_id"`
		Address         string `json:"address"`
		Ticker          string `json:"ticker"`
		MaxSupply       string `json:"max_supply"`
		MintLimit       string `json:"mint_limit"`
		Decimals        int    `json:"decimals"`
		DeployTimestamp int64  `json:"deploy_timestamp"`
		MintedSupply    string `json:"minted_supply"`
		TxCount         int    `json:"tx_count"`
	} `json:"token"`
	Supply struct {
		MaxSupply    string `json:"max_supply"`
		MintedSupply string `json:"minted_supply"`
		Holders      int    `json:"holders"`
	} `json:"supply"`
}

// The token lookup on real mainnet data: the published ordi figures (minted 8,960,661 with
// 2,180 holders under the lower-case-key rule) and the known deploy facts of four tokens, in
// Hiro's formatting; the token list counts the published 59 tickers.
func TestBrc20MainnetTokens(t *testing.T) {
	t.Parallel()
	srv := serve(t, ingestMainnet(t), rest.Options{ServerVersion: "test"})
	type fact struct {
		ticker, id         string
		number             int64
		height             int
		timestamp          int64
		deployer, max, lim string
	}
	for _, f := range []fact{
		{"ordi", "b61b0172d95e266c18aea0c624db987e971a5d6d4ebc2aaed85da4642d635735i0", 348020, 779832, 1678248991000,
			"bc1pxaneaf3w4d27hl2y93fuft2xk6m4u3wc4rafevc6slgd7f5tq2dqyfgy06", "21000000", "1000"},
		{"meme", "307ffac5d20fc188f723706f85d75c926550d536f5fd1113839586f38542971ci0", 352242, 779887, 1678279462000,
			"bc1pxwx69grfcccaphd6xa0fmrz3pqthftatmzvwa807r450j7n29mpqsmd28p", "99999", "1"},
		{"punk", "2782fcc4173baddd337b6adaaca11535daa821ab6c234d8eee22257260ea7d07i0", 356204, 779964, 1678333933000,
			"bc1p7pceefkw20p0uch3mk2x5rx8ylag4gpky7vl6390wgdtwpc8rqcqtk3paa", "10000", "1"},
		{"pepe", "54d5fe82f5d284363fec6ae6137d0e5263e237caf15211078252c0d95af8943ai0", 356777, 779969, 1678338023000,
			"bc1pfku4w9trutsz6eyqw4h3xm5k4xdw4e2xt2lr3nm7esa86kttmgzsxswqke", "42069000", "1000"},
	} {
		t.Run(f.ticker, func(t *testing.T) {
			var d tokenDetails
			if code := getJSON(t, srv.URL+"/ordinals/v1/brc-20/tokens/"+f.ticker, &d); code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			tk := d.Token
			const zeros = ".000000000000000000"
			if tk.ID != f.id || tk.Number != f.number || tk.BlockHeight != f.height || tk.DeployTimestamp != f.timestamp ||
				tk.Address != f.deployer || tk.TxID+"i0" != f.id || tk.Ticker != f.ticker || tk.Decimals != 18 ||
				tk.MaxSupply != f.max+zeros || tk.MintLimit != f.lim+zeros || d.Supply.MaxSupply != tk.MaxSupply ||
				d.Supply.MintedSupply != tk.MintedSupply {
				t.Errorf("got %+v, want %+v", d, f)
			}
		})
	}
	var ordi tokenDetails
	getJSON(t, srv.URL+"/ordinals/v1/brc-20/tokens/ORDI", &ordi)
	if ordi.Token.MintedSupply != "8960661.000000000000000000" || ordi.Supply.Holders != 2180 {
		t.Errorf("ordi minted %s with %d holders, want 8960661.000000000000000000 and 2180", ordi.Token.MintedSupply, ordi.Supply.Holders)
	}
	resp, err := http.Get(srv.URL + "/ordinals/v1/brc-20/tokens/ordi")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	golden(t, filepath.Join("testdata", "brc20", "mainnet-ordi.json"), record(t, resp))

	var list struct {
		Total   int `json:"total"`
		Results []struct {
			Ticker string `json:"ticker"`
		} `json:"results"`
	}
	if getJSON(t, srv.URL+"/ordinals/v1/brc-20/tokens?limit=60", &list); list.Total != 59 || len(list.Results) != 59 {
		t.Errorf("token list: total %d, %d results, want 59", list.Total, len(list.Results))
	}
	var holders struct {
		Total   int `json:"total"`
		Results []struct {
			OverallBalance string `json:"overall_balance"`
		} `json:"results"`
	}
	if getJSON(t, srv.URL+"/ordinals/v1/brc-20/tokens/ordi/holders?limit=60&offset=2150", &holders); holders.Total != 2180 || len(holders.Results) != 30 {
		t.Errorf("ordi holders from 2150: total %d, %d results, want 2180 and 30", holders.Total, len(holders.Results))
	}
}

// BenchmarkBrc20TokenLookup measures GET /ordinals/v1/brc-20/tokens/{ticker} over loopback
// HTTP at 32 concurrent connections on the real mainnet data, cycling through its tokens.
func BenchmarkBrc20TokenLookup(b *testing.B) {
	store := ingestMainnet(b)
	if _, err := store.DB.ExecContext(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	var tickers []string
	if err := store.DB.NewRaw("SELECT ticker FROM brc20_tokens ORDER BY ticker").Scan(context.Background(), &tickers); err != nil {
		b.Fatal(err)
	}
	api, err := rest.New(schemaOf(store), rest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := mux.NewRouter()
	r.Use(loaders.Middleware(store, loaders.DefaultWait))
	api.Register(r)
	srv := httptest.NewServer(r)
	defer srv.Close()
	b.Run("32-connections", func(b *testing.B) {
		const conns = 32
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
		var mu sync.Mutex
		next := 0
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((conns + procs - 1) / procs) // RunParallel starts parallelism × GOMAXPROCS goroutines
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				mu.Lock()
				ticker := tickers[next%len(tickers)]
				next++
				mu.Unlock()
				resp, err := client.Get(srv.URL + "/ordinals/v1/brc-20/tokens/" + ticker)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body) //nolint:errcheck // drained for connection reuse
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("%s: status %d", ticker, resp.StatusCode)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
	})
}
