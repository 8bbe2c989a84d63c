package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/internal/fixtures"
)

// TestServeEventObserver posts the first mocknet block to the running server's event
// observer and reads the new tip back from the API.
func TestServeEventObserver(t *testing.T) {
	t.Parallel()
	api, events := startServeBoth(t)
	first, _, _ := strings.Cut(string(fixtures.ReadGzip(t, fixtures.Path(t, "stacks/mocknet.tsv.gz"))), "\n")
	payload := strings.SplitN(first, "\t", 4)[3]
	resp, err := http.Post(events+"/new_block", "application/json", strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(bytes.TrimSpace(body)) != `{"result":"ok"}` {
		t.Fatalf("POST /new_block = %d %s", resp.StatusCode, body)
	}
	var status struct {
		ChainTip struct {
			BlockHeight int `json:"block_height"`
		} `json:"chain_tip"`
	}
	getJSON(t, api+"/extended", &status)
	if status.ChainTip.BlockHeight != 1 {
		t.Errorf("tip height after one block = %d, want 1", status.ChainTip.BlockHeight)
	}
}

// TestImportExportEvents runs import-events twice (the second run skips everything) and
// export-events, whose output must equal the imported file.
func TestImportExportEvents(t *testing.T) {
	t.Parallel()
	src := fixtures.Path(t, "stacks/mainnet-reorg-scenario2.tsv.gz")
	cfg := &config{databaseURL: dbtest.URL(t)}
	ctx := context.Background()
	var out bytes.Buffer
	for range 2 {
		if err := importEvents(ctx, cfg, src, false, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(out.String(), "applied 6 (5 blocks)") || !strings.Contains(out.String(), "applied 0 (0 blocks), skipped 6") {
		t.Errorf("import summaries = %q", out.String())
	}
	dst := filepath.Join(t.TempDir(), "events.tsv.gz")
	if err := exportEvents(ctx, cfg, dst, false, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fixtures.ReadGzip(t, dst), fixtures.ReadGzip(t, src)) {
		t.Error("exported events differ from the imported file")
	}
	if err := exportEvents(ctx, cfg, dst, false, io.Discard); err == nil {
		t.Error("export over an existing file without --overwrite-file succeeded")
	}
	if err := importEvents(ctx, cfg, src, true, io.Discard, io.Discard); err != nil {
		t.Fatalf("import --wipe: %v", err)
	}
}

// TestImportEventsServesProfiles runs import-events with --pprof-addr: an address it cannot
// listen on stops the command before anything is imported, naming the listener; a free one
// leaves the import as it is, and is closed again when the import ends.
func TestImportEventsServesProfiles(t *testing.T) {
	t.Parallel()
	src := fixtures.Path(t, "stacks/mainnet-reorg-scenario2.tsv.gz")
	url := dbtest.URL(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"import-events", "--file", src, "--database-url", url, "--pprof-addr", taken.Addr().String()}, &stdout, &stderr); code != 1 {
		t.Fatalf("import-events on a taken profiles address: exit %d, want 1", code)
	}
	if !strings.Contains(stderr.String(), "profiles:") || stdout.Len() != 0 {
		t.Errorf("taken profiles address: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	addr := taken.Addr().String()
	taken.Close()
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"import-events", "--file", src, "--database-url", url, "--pprof-addr", addr}, &stdout, &stderr); code != 0 {
		t.Fatalf("import-events with profiles: exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "applied 6 (5 blocks)") {
		t.Errorf("import summary = %q", stdout.String())
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the profiles' listener outlives the import")
	}
}
