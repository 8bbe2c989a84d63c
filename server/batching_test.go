package server_test

import (
	"encoding/json"
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

// maxStatements is what nestedQuery may run whatever the page size: the blocks page, the tip
// (totalCount), one statement per edge (parent, burnBlock, microblocks, minerRewards,
// transactions, transaction.block, event.transaction) and one per event table for
// transaction.events (db.EventsOfTxs reads the five event tables separately).
const maxStatements = 9 + 5

func TestNestedQueryStatementsDoNotGrowWithItems(t *testing.T) {
	t.Parallel()
	// A generous batch wait: a loaded machine can take many milliseconds to run 120 sibling
	// resolvers, and a key that misses its batch costs one more statement (see BenchmarkNestedQuery
	// for the production wait).
	a := newAPI(t, server.Config{LoaderWait: 250 * time.Millisecond})
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
