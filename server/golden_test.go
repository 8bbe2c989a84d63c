package server_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got (indented) with testdata/name.json, or rewrites it with -update.
func golden(t *testing.T, name string, got json.RawMessage) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the golden file:\n%s", path, buf.Bytes())
	}
}

// The GraphQL root fields over the mocknet fixture, replayed through ingestion.
func TestGoldenRootFields(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/mocknet.tsv.gz", 1<<30)
	tests := []struct{ name, query string }{
		{"blocks_connection", `{ blocksConnection(first: 3) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
			edges { cursor node { height hash indexBlockHash canonical parent { height } burnBlock { height hash }
				microblocks { hash sequence } microblocksStreamed { hash sequence blockHeight }
				minerRewards { recipient coinbaseAmount txFeesAnchored matureBlockHeight }
				transactions(first: 2) { totalCount pageInfo { hasNextPage endCursor } nodes { txId txIndex microblockSequence sender { principal } } } } } } }`},
		{"blocks_connection_last", `{ blocksConnection(last: 2) { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { height } } }`},
		{"account_transactions", `{ account(principal: "ST000000000000000000002AMW42H") { principal transactions(first: 3) { totalCount
			pageInfo { hasNextPage endCursor } nodes { txId blockHeight txIndex block { height } } } } }`},
		{"microblock", `{ microblock(hash: "0x428cdea2b74d76d781fbdb7bfe1ee6fe732bb6680a8c3eb1be27f656a725b9a8") { hash sequence parentHash
			canonical microblockCanonical blockHeight parentBlock { height } block { height } transactions { txId microblock { hash } } } }`},
		{"contract", `{ contract(id: "ST000000000000000000002AMW42H.pox") { id txId blockHeight canonical clarityVersion
			transaction { txId } block { height } events(first: 2) { pageInfo { hasNextPage } nodes { eventIndex txId } } } }`},
		{"mempool", `{ mempool(first: 5) { totalCount pageInfo { hasNextPage } nodes { txId } } }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := a.mustQuery(t, tc.query, nil)
			golden(t, tc.name, data)
		})
	}
}
