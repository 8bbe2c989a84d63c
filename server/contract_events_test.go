package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/bench"
	"github.com/stxgraph/stxgraph/internal/chaingen"
	"github.com/stxgraph/stxgraph/server"
)

// A contract's events read by position (deep pages) and by walking its index (pages near the
// newest) are the pages of one list: at every offset, including those on either side of where
// the reads switch, a page holds the events a sort of all the contract's print events puts
// there, read by as many statements as the first page.
func TestContractEventPagesAtEveryDepth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newAPI(t, server.Config{})
	g, err := chaingen.New(chaingen.Options{Seed: 3, Blocks: 110, TxsPerBlock: 2, Accounts: 6, ContractCallsPerBlock: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bench.Replay(ctx, a.store, g, nil); err != nil {
		t.Fatal(err)
	}
	var all []string
	if err := a.store.DB.NewRaw(`SELECT '0x' || encode(tx_id, 'hex') || ':' || event_index FROM contract_logs
		WHERE contract_identifier = ? AND canonical AND microblock_canonical
		ORDER BY block_height DESC, microblock_sequence DESC, tx_index DESC, event_index DESC`, g.ContractID()).Scan(ctx, &all); err != nil {
		t.Fatal(err)
	}
	if len(all) < 300 {
		t.Fatalf("the contract printed %d events: too few to page past where the reads switch", len(all))
	}
	statements := int64(-1)
	for _, offset := range []int{0, 1, 200, 250, 255, 256, 257, 280, len(all) - 20, len(all) - 7, len(all), len(all) + 5} {
		t.Run(fmt.Sprint(offset), func(t *testing.T) {
			before := a.store.Statements()
			resp, err := http.Get(fmt.Sprintf("%s/extended/v1/contract/%s/events?limit=20&offset=%d", a.url, g.ContractID(), offset))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			var page struct {
				Results []struct {
					TxID       string `json:"tx_id"`
					EventIndex int    `json:"event_index"`
				} `json:"results"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Results {
				got = append(got, fmt.Sprintf("%s:%d", e.TxID, e.EventIndex))
			}
			want := all[min(offset, len(all)):min(offset+20, len(all))]
			if !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Errorf("got %v, want %v", got, want)
			}
			n := a.store.Statements() - before
			if statements < 0 {
				statements = n
			}
			if n != statements {
				t.Errorf("%d statements, the first page %d", n, statements)
			}
		})
	}
}
