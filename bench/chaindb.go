// Package bench holds stxgraph's end-to-end benchmarks (go test -bench ./bench) and the cached
// synthetic-chain databases they and the load test (cmd/loadgen) read.
package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/migrations"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// HistoryChain is the benchmark chain, shaped like the chain the reference API's figures in
// bench/RESULTS.md were measured on: 183,000 transactions (3,000 blocks of a coinbase, 59 STX
// transfers and one contract call, so 61 transaction ids per block), 10,000 accounts, the busy
// one in 28.49% of the transfers (about 50,400).
var HistoryChain = chaingen.Options{
	Seed: 5, Blocks: 3000, TxsPerBlock: 59, Accounts: 10_000, BusyShare: 0.2849, ContractCallsPerBlock: 1,
}

// ServerURL is the PostgreSQL server the chain databases live on: $DATABASE_URL's server, or
// postgres://$PGUSER@$PGHOST:$PGPORT (default postgres@127.0.0.1:5432), as the tests use.
func ServerURL() *url.URL {
	if s := os.Getenv("DATABASE_URL"); s != "" {
		if u, err := url.Parse(s); err == nil {
			return u
		}
	}
	u := &url.URL{Scheme: "postgres", Host: env("PGHOST", "127.0.0.1") + ":" + env("PGPORT", "5432"), RawQuery: "sslmode=disable"}
	if p := os.Getenv("PGPASSWORD"); p != "" {
		u.User = url.UserPassword(env("PGUSER", "postgres"), p)
	} else {
		u.User = url.User(env("PGUSER", "postgres"))
	}
	return u
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// ChainDBName names the database of a chain: one per generator options and schema, so that a
// changed chain or migration builds a new one.
func ChainDBName(o chaingen.Options) (string, error) {
	schema, err := migrations.Hash()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(o.Key() + "/" + schema))
	return "stxgraph_bench_" + hex.EncodeToString(h[:6]), nil
}

// ChainDB returns the URL of a database holding the chain o generates, replayed through the
// real import path (ingest.Replay of the chain's TSV file, as `import-events` does). The
// database is kept: later calls find it complete and return at once. An interrupted build
// resumes, since a replay skips the records it already applied. rebuild wipes the chain data
// first, for when the ingestion code changed. progress, when set, is told how the build goes.
func ChainDB(ctx context.Context, o chaingen.Options, rebuild bool, progress func(ingest.Progress)) (string, error) {
	name, err := ChainDBName(o)
	if err != nil {
		return "", err
	}
	u := *ServerURL()
	u.Path = "/" + name
	dsn := u.String()
	if err := db.EnsureDatabase(ctx, dsn); err != nil {
		return "", err
	}
	store := db.Open(dsn, db.PoolOptions{MaxOpen: 4})
	defer store.Close()
	if _, err := store.Migrate(ctx); err != nil {
		return "", err
	}
	if rebuild {
		if err := store.WipeChainData(ctx); err != nil {
			return "", err
		}
	}
	g, err := chaingen.New(o)
	if err != nil {
		return "", err
	}
	tip, err := store.ChainTip(ctx)
	if err != nil {
		return "", err
	}
	if int(tip.BlockHeight) == g.Options().Blocks+1 {
		return dsn, nil
	}
	if _, err := Replay(ctx, store, g, progress); err != nil {
		return "", fmt.Errorf("build %s: %w", name, err)
	}
	// As import-events finishes a bulk load: what autovacuum would do on a live server (this
	// machine's PostgreSQL runs with autovacuum off).
	if err := store.VacuumChainData(ctx); err != nil {
		return "", err
	}
	return dsn, nil
}

// Replay generates g's chain as a TSV event log and replays it into store through
// ingest.Replay; generation runs alongside, in its own goroutine.
func Replay(ctx context.Context, store *db.Store, g *chaingen.Generator, progress func(ingest.Progress)) (ingest.Progress, error) {
	pr, pw := io.Pipe()
	go func() {
		w := tsv.NewWriter(pw)
		_, err := chaingen.WriteTSV(w, g)
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	r, err := tsv.NewReader(pr)
	if err != nil {
		return ingest.Progress{}, err
	}
	var opts ingest.ReplayOptions
	if progress != nil {
		last := time.Now()
		opts.OnProgress = func(p ingest.Progress) {
			if time.Since(last) > 5*time.Second {
				last = time.Now()
				progress(p)
			}
		}
	}
	return ingest.NewIngester(store).Replay(ctx, r, opts)
}

// TxIDs returns the ids of the first n transactions after genesis of the chain o generates (a
// coinbase, the contract deploy, then transfers), generating only the blocks it needs.
func TxIDs(o chaingen.Options, n int) ([]string, error) {
	g, err := chaingen.New(o)
	if err != nil {
		return nil, err
	}
	var ids []string
	for len(ids) < n {
		m, err := g.Next()
		if err != nil {
			return nil, fmt.Errorf("the chain has fewer than %d transactions after genesis: %w", n, err)
		}
		if m.Path != chaingen.PathNewBlock || g.Stats().Blocks == 1 {
			continue
		}
		var b struct {
			Transactions []struct {
				TxID string `json:"txid"`
			} `json:"transactions"`
		}
		if err := json.Unmarshal(m.Payload, &b); err != nil {
			return nil, err
		}
		for _, t := range b.Transactions {
			ids = append(ids, t.TxID)
		}
	}
	return ids[:n], nil
}
