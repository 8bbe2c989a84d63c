package chainwrite_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
)

// A new block's rows copied straight into their tables reach the server ahead of the statements
// queued before them, so none of those may see them. A block that mines the transactions of a
// mempool message just before it, in the same transaction of a replay, leaves the mempool and
// its update time as when every row goes as VALUES, in queue order: the mempool message's check
// whether its transactions are mined anywhere runs before the block's rows are stored. Not
// parallel: it sets the threshold for the whole package while it runs.
func TestBlockRowsCopiedAheadOfEarlierMempoolWrites(t *testing.T) {
	sameStateCopiedOrValues(t, "mempool before every block", mempoolBeforeEveryBlock(t, syntheticLog(t)))
}

// mempoolBeforeEveryBlock puts before every block of a TSV log a mempool message, received a
// second earlier, carrying the block's transactions (but the Bitcoin-originated ones, which
// have no raw form), and numbers the records anew.
func mempoolBeforeEveryBlock(t *testing.T, log []byte) []byte {
	t.Helper()
	r, err := tsv.NewReader(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := tsv.NewWriter(&out)
	id := int64(0)
	write := func(rec tsv.Record) {
		id++
		rec.ID = id
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Path == ingest.PathNewBlock {
			var b struct {
				Transactions []struct {
					RawTx string `json:"raw_tx"`
				} `json:"transactions"`
			}
			if err := json.Unmarshal(rec.Payload, &b); err != nil {
				t.Fatal(err)
			}
			var raws []string
			for _, tx := range b.Transactions {
				if tx.RawTx != "0x00" && tx.RawTx != "" {
					raws = append(raws, tx.RawTx)
				}
			}
			if len(raws) > 0 {
				p, err := json.Marshal(raws)
				if err != nil {
					t.Fatal(err)
				}
				write(tsv.Record{ReceivedAt: rec.ReceivedAt.Add(-time.Second), Path: ingest.PathNewMempoolTx, Payload: p})
			}
		}
		write(*rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
