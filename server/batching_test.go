package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/server"
)

// nestedQuery walks every batched edge below a page of blocks.
const nestedQuery = `query($n: Int!) {
  blocksConnection(first: $n) {
    totalCount
    nodes {
      height
      parent { height }
      burnBlock { height }
      microblocks { hash }
      minerRewards { recipient }
      transactions(first: 50) {
        totalCount
        nodes {
          txId block { height } microblock { hash }
          events { eventIndex transaction { txId } }
        }
      }
    }
  }
}`

// maxStatements is what nestedQuery runs whatever the page size, one statement per level and
// edge: the blocks page with their burn blocks, the tip (totalCount), then parent, microblocks,
// minerRewards, transactions, transaction.block, transaction.events (the five event tables in
// one UNION ALL) and event.transaction. transaction.microblock is null for anchored transactions
// and loads nothing.
const maxStatements = 9

// With the production batch wait: batches run when every resolver of the request waits on a
// loader, so the count does not depend on how fast the machine schedules sibling resolvers
// (run it with -count=20 next to a CPU-heavy job to see).
func TestNestedQueryStatementsDoNotGrowWithItems(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 30, txsPerBlock: 4, eventsPerTx: 2, sender: testSender}.seed(t, a.store)

	counts := map[int]int64{}
	for _, n := range []int{1, 10, 30} {
		data, stmts := a.mustQuery(t, nestedQuery, map[string]any{"n": n})
		var got struct {
			BlocksConnection struct {
				TotalCount int
				Nodes      []struct {
					Height       int
					Parent       *struct{ Height int }
					Transactions struct {
						TotalCount int
						Nodes      []struct {
							TxID   string
							Block  struct{ Height int }
							Events []struct {
								EventIndex  int
								Transaction struct{ TxID string }
							}
						}
					}
				}
			}
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		bc := got.BlocksConnection
		if bc.TotalCount != 30 || len(bc.Nodes) != n {
			t.Fatalf("n=%d: totalCount %d, %d nodes", n, bc.TotalCount, len(bc.Nodes))
		}
		for _, b := range bc.Nodes {
			if b.Height > 1 && (b.Parent == nil || b.Parent.Height != b.Height-1) {
				t.Errorf("block %d: parent %+v", b.Height, b.Parent)
			}
			if b.Transactions.TotalCount != 4 || len(b.Transactions.Nodes) != 4 {
				t.Errorf("block %d: %d of %d txs", b.Height, len(b.Transactions.Nodes), b.Transactions.TotalCount)
			}
			for _, tx := range b.Transactions.Nodes {
				if tx.Block.Height != b.Height {
					t.Errorf("block %d: tx in block %d", b.Height, tx.Block.Height)
				}
				if len(tx.Events) != 2 || tx.Events[1].EventIndex != 1 || tx.Events[0].Transaction.TxID != tx.TxID {
					t.Errorf("block %d tx %s: events %+v", b.Height, tx.TxID, tx.Events)
				}
			}
		}
		counts[n] = stmts
		t.Logf("%d blocks: %d SQL statements", n, stmts)
	}
	if counts[30] > maxStatements || counts[30] != counts[10] || counts[10] != counts[1] {
		t.Errorf("statements by page size = %v; want the same for every size and at most %d", counts, maxStatements)
	}
}

// With a batch wait of an hour, every query below can only finish because its batches run when
// the count of runnable fields reaches zero: a shape the count misjudged would hold its batches
// until the query timeout, which answers with an error. The shapes cover what the count must
// get right: lists, nulls, aliases, @skip/@include, fragments, __typename, interface and union
// results with type-specific selections, introspection, and nested errors.
func TestBatchesRunWhenEveryResolverWaits(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{LoaderWait: time.Hour, QueryTimeout: 20 * time.Second, Introspection: true})
	replay(t, a.store, "stacks/mocknet.tsv.gz", 1<<30)

	data, _ := a.mustQuery(t, `{ blocksConnection(first: 5) { nodes { transactions(first: 1) { nodes { txId } } } } }`, nil)
	var ids struct {
		BlocksConnection struct {
			Nodes []struct {
				Transactions struct{ Nodes []struct{ TxID string } }
			}
		}
	}
	if err := json.Unmarshal(data, &ids); err != nil {
		t.Fatal(err)
	}
	lookup := []string{"0x" + strings.Repeat("ab", 32)}
	for _, b := range ids.BlocksConnection.Nodes {
		for _, tx := range b.Transactions.Nodes {
			lookup = append(lookup, tx.TxID)
		}
	}

	tests := []struct {
		name, query string
		vars        map[string]any
		wantErr     bool
	}{
		{name: "nested with typed events", query: `{ blocksConnection(first: 10) { nodes { height parent { height parent { height } }
			burnBlock { height } microblocks { hash transactions { txId } } minerRewards { recipient }
			transactions(first: 20) { totalCount nodes { __typename txId block { height } microblock { hash }
				sender { principal transactions(first: 2) { totalCount nodes { txId } } }
				events { __typename eventIndex
					... on StxAssetEvent { asset { amount } transaction { txId } }
					... on SmartContractLogEvent { contractLog { topic } transaction { block { height } } }
					... on StxLockEvent { transaction { txId } } } } } } } }`},
		{name: "inline fields with loading subtrees before resolver fields", query: `{ blocksConnection(first: 4) { nodes {
			transactions(first: 3) { nodes { events { eventIndex } } edges { node { block { height } } } pageInfo { hasNextPage } totalCount } } } }`},
		{name: "leaves with a resolver under an inline field", query: `{ blocksConnection(first: 3) { nodes {
			transactions(first: 5) { nodes { sender { principal latestTxId } } } } } }`},
		{name: "transactions with the events their page read, one after another", query: `{ blocksConnection(first: 50) { nodes {
			height burnBlock { height } transactions(first: 20) { nodes { txId sender { principal } events(limit: 5) { __typename eventIndex } } } } } }`},
		{name: "transactions with events in two windows", query: `{ blocksConnection(first: 50) { nodes {
			transactions(first: 20) { nodes { a: events(limit: 5) { eventIndex } b: events(limit: 2) { eventIndex } } } } } }`},
		{name: "blocks with the contents their page read, one after another", query: `{ blocks(limit: 10) {
			height txIds microblockTxCounts { hash txCount } streamedMicroblockHashes } }`},
		{name: "blocks with the contents their page read and a field that loads", query: `{ blocks(limit: 10) {
			txIds streamedMicroblockHashes parent { height } } }`},
		{name: "only __typename under lists", query: `{ blocksConnection(first: 5) { nodes { __typename transactions { nodes { __typename } } } } }`},
		{name: "aliases, skip and include", query: `{ a: blocksConnection(first: 3) { nodes { parent { height } } }
			b: blocksConnection(first: 2) { nodes { t: transactions(first: 1) @include(if: true) { nodes { txId block { height } } }
				u: transactions(last: 1) @skip(if: true) { nodes { txId } } } } }`},
		{name: "fragments", query: `query { blocksConnection(first: 3) { nodes { ...B } } }
			fragment B on Block { parent { ...P } transactions { nodes { block { ...P } } } }
			fragment P on Block { height burnBlock { height } }`},
		{name: "union results", query: `query($ids: [Hex!]!) { transactionsByIds(ids: $ids) { found result { __typename
			... on Transaction { block { height } events { eventIndex } }
			... on MempoolTransaction { txId } } } }`, vars: map[string]any{"ids": lookup}},
		{name: "contract", query: `{ contract(id: "ST000000000000000000002AMW42H.pox") { transaction { block { height } }
			events(first: 5) { nodes { transaction { txId block { height } } } } } }`},
		{name: "account", query: `{ account(principal: "ST000000000000000000002AMW42H") { transactions(first: 5) { totalCount nodes { block { parent { height } } events { eventIndex } } } } }`},
		{name: "introspection next to loaded fields", query: `{ __schema { queryType { name } } __type(name: "Block") { fields { name } }
			blocksConnection(first: 2) { nodes { parent { height } } } }`},
		{name: "nested errors", query: `{ blocksConnection(first: 3) { nodes { height transactions(after: "bogus") { nodes { txId } }
			parent { height } } } }`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := a.query(t, map[string]any{"query": tc.query, "variables": tc.vars})
			for _, e := range out.Errors {
				if !tc.wantErr || strings.Contains(e.Message, "did not finish") {
					t.Errorf("error: %s", e.Message)
				}
			}
			if tc.wantErr && len(out.Errors) == 0 {
				t.Error("no error")
			}
		})
	}
}

// Contract calls answer from their transaction's payload unless their ABI is asked for, which
// loads the called contract: a page of transactions with contract calls among them runs at
// once when it asks for the ABI, and in order when it does not. Under an hour's batch wait a
// page run in order that waited would not finish (replayed chain data with contract calls).
func TestContractCallsWithTheirABIRunAtOnce(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{LoaderWait: time.Hour, QueryTimeout: 20 * time.Second})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)
	for _, abi := range []bool{true, false} {
		data, _ := a.mustQuery(t, `query($abi: Boolean!) { blocksConnection(first: 20) { nodes { transactions(first: 50) {
			nodes { events(limit: 5) { eventIndex } contractCall(abi: $abi) { functionName } } } } } }`, map[string]any{"abi": abi})
		var page struct {
			BlocksConnection struct {
				Nodes []struct {
					Transactions struct {
						Nodes []struct {
							ContractCall *struct{ FunctionName string }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(data, &page); err != nil {
			t.Fatal(err)
		}
		calls := 0
		for _, b := range page.BlocksConnection.Nodes {
			for _, tx := range b.Transactions.Nodes {
				if tx.ContractCall != nil && tx.ContractCall.FunctionName != "" {
					calls++
				}
			}
		}
		if calls == 0 {
			t.Errorf("abi %v: the page shows no contract call; the fixture's newest blocks hold some", abi)
		}
	}
}

// A page of blocks asking for their transaction ids and microblocks reads them with the page,
// and a block looked up by height, hash or burn block hash with the block: one statement
// whatever the page's size, and each block lists the same read either way.
func TestBlockPageReadsItsContentsWithIt(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	chain{blocks: 30, txsPerBlock: 4, eventsPerTx: 1, sender: testSender}.seed(t, a.store)

	type block struct {
		Height                   int
		Hash                     string
		BurnBlockHash            string
		TxIds                    []string
		MicroblockTxCounts       []struct{ Hash string }
		StreamedMicroblockHashes []string
	}
	const fields = `height hash burnBlockHash txIds microblockTxCounts { hash } streamedMicroblockHashes`
	lookups := []struct{ query, arg string }{
		{`query($v: Int!) { block(height: $v) { ` + fields + ` } }`, "height"},
		{`query($v: Hex!) { block(hash: $v) { ` + fields + ` } }`, "hash"},
		{`query($v: Hex!) { block: blockByBurnBlockHash(hash: $v) { ` + fields + ` } }`, "burn"},
	}
	for _, n := range []int{1, 10, 30} {
		data, stmts := a.mustQuery(t, `query($n: Int!) { blocks(limit: $n) { `+fields+` } }`, map[string]any{"n": n})
		var page struct{ Blocks []block }
		if err := json.Unmarshal(data, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Blocks) != n || stmts != 1 {
			t.Errorf("a page of %d blocks: %d blocks in %d statements, want one statement", n, len(page.Blocks), stmts)
		}
		for _, b := range page.Blocks {
			for _, l := range lookups {
				v := map[string]any{"height": b.Height, "hash": b.Hash, "burn": b.BurnBlockHash}[l.arg]
				data, stmts := a.mustQuery(t, l.query, map[string]any{"v": v})
				var alone struct{ Block block }
				if err := json.Unmarshal(data, &alone); err != nil {
					t.Fatal(err)
				}
				if len(b.TxIds) != 4 || !reflect.DeepEqual(b, alone.Block) || stmts != 1 {
					t.Errorf("block %d in a page of %d: %+v, looked up by %s in %d statements %+v", b.Height, n, b, l.arg, stmts, alone.Block)
				}
			}
		}
	}
}
