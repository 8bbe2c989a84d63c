package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/internal/unisat"
)

// import-inscriptions applies the real mainnet UniSat file (as gzip JSON lines) with the
// published figures, skips everything on a second run, and stops at a malformed line.
func TestImportInscriptions(t *testing.T) {
	t.Parallel()
	blocks, err := unisat.Blocks(bytes.NewReader(fixtures.ReadGzip(t, fixtures.Path(t, "brc20/unisat-mainnet-779832-780025.txt.gz"))))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gz := filepath.Join(dir, "payloads.jsonl.gz")
	f, err := os.Create(gz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	for _, b := range blocks {
		zw.Write(b.Payload)
		zw.Write([]byte("\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	url := dbtest.URL(t)
	cfg := &config{databaseURL: url}
	ctx := context.Background()
	var out bytes.Buffer
	for range 2 {
		if err := importInscriptions(ctx, cfg, gz, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	first, second, _ := strings.Cut(out.String(), "\n")
	n := strconv.Itoa(len(blocks))
	if !strings.Contains(first, "read "+n+" payloads: applied "+n+" blocks") ||
		!strings.Contains(second, "applied 0 blocks (0 BRC-20 operations), rolled back 0, skipped "+n+" ") {
		t.Errorf("import summaries = %q", out.String())
	}
	store := db.Open(url, db.PoolOptions{})
	defer store.Close()
	var minted string
	var holders, tokens int
	err = store.DB.QueryRow(`SELECT minted_supply::text, holders, (SELECT count(*) FROM brc20_tokens) FROM brc20_tokens WHERE ticker = 'ordi'`).
		Scan(&minted, &holders, &tokens)
	if err != nil {
		t.Fatal(err)
	}
	if minted != "8960661000000000000000000" || holders != 2180 || tokens != 59 {
		t.Errorf("ordi minted %s holders %d, %d tokens; want 8960661 (scaled), 2180, 59", minted, holders, tokens)
	}

	// A plain file: rolling back the last block, then a malformed line stops the import.
	plain := filepath.Join(dir, "payloads.jsonl")
	last := blocks[len(blocks)-1]
	if err := os.WriteFile(plain, append(append(last.RollbackPayload, '\n'), []byte("{\"apply\":[{}]}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = importInscriptions(ctx, cfg, plain, &out, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("malformed line: %v", err)
	}
	var tip int32
	if err := store.DB.QueryRow(`SELECT max(block_height) FROM brc20_blocks`).Scan(&tip); err != nil {
		t.Fatal(err)
	}
	if tip != blocks[len(blocks)-2].Height {
		t.Errorf("tip after rolling back the last block = %d, want %d", tip, blocks[len(blocks)-2].Height)
	}
}

// ORDINALS_INGEST_TOKEN configures the observer's inscription path; the command needs --file.
func TestInscriptionsConfiguration(t *testing.T) {
	t.Setenv("ORDINALS_INGEST_TOKEN", "from-env")
	if cfg, err := parseServe(); err != nil || cfg.observer.OrdinalsToken != "from-env" {
		t.Errorf("token %q, %v; want it from ORDINALS_INGEST_TOKEN", cfg.observer.OrdinalsToken, err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import-inscriptions"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--file is required") {
		t.Errorf("without --file: %d %q", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"import-inscriptions", "--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "inscription_feed") {
		t.Errorf("--help: %d %q", code, stderr.String())
	}
}
