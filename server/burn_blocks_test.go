package server_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

// burnBlockJSON is a block's burnBlock as the queries below select it.
type burnBlockJSON struct {
	Hash       string
	Height     int
	BurnAmount string
	Canonical  bool
}

// A block's burnBlock is the burn block stored under its burn block hash, or null when none is,
// whichever read of blocks gives the block (a lookup, a list, a connection's nodes or its edges)
// and whatever else the query asks of it: the reads that take the burn block beside the blocks'
// rows answer as the burnBlock root does.
func TestBlocksShowTheirBurnBlocks(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{})
	replay(t, a.store, "stacks/epoch-3-transition.tsv.gz", 1<<30)

	// The tip's burn block goes missing, as when the observer missed that burn block.
	var missing string
	if err := a.store.DB.QueryRow(`DELETE FROM burn_blocks WHERE burn_block_hash =
		(SELECT burn_block_hash FROM blocks WHERE canonical ORDER BY block_height DESC LIMIT 1) RETURNING '0x' || encode(burn_block_hash, 'hex')`).
		Scan(&missing); err != nil {
		t.Fatal(err)
	}

	const fields = `height burnBlockHash burnBlock { hash height burnAmount canonical }`
	type block struct {
		Height        int
		BurnBlockHash string
		BurnBlock     *burnBlockJSON
	}
	data, _ := a.mustQuery(t, `{
		connection: blocksConnection(first: 6) { nodes { `+fields+` } edges { node { `+fields+` } } }
		withContents: blocksConnection(first: 6) { nodes { txIds `+fields+` } }
		list: blocks(limit: 6) { `+fields+` }
		listWithContents: blocks(limit: 6) { txIds `+fields+` }
	}`, nil)
	var got struct {
		Connection struct {
			Nodes []block
			Edges []struct{ Node block }
		}
		WithContents     struct{ Nodes []block }
		List             []block
		ListWithContents []block
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	reads := map[string][]block{"connection nodes": got.Connection.Nodes, "connection with contents": got.WithContents.Nodes,
		"list": got.List, "list with contents": got.ListWithContents}
	for _, e := range got.Connection.Edges {
		reads["connection edges"] = append(reads["connection edges"], e.Node)
	}
	for _, b := range got.Connection.Nodes {
		data, _ := a.mustQuery(t, fmt.Sprintf(`{ block(height: %d) { %s } }`, b.Height, fields), nil)
		var one struct{ Block block }
		if err := json.Unmarshal(data, &one); err != nil {
			t.Fatal(err)
		}
		reads["lookup"] = append(reads["lookup"], one.Block)
	}

	for name, blocks := range reads {
		if len(blocks) != 6 {
			t.Fatalf("%s: %d blocks, want 6", name, len(blocks))
		}
		for _, b := range blocks {
			data, _ := a.mustQuery(t, `query($h: Hex!) { burnBlock(hash: $h) { hash height burnAmount canonical } }`,
				map[string]any{"h": b.BurnBlockHash})
			var want struct{ BurnBlock *burnBlockJSON }
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b.BurnBlock, want.BurnBlock) {
				t.Errorf("%s: block %d's burn block %+v, the burnBlock root %+v", name, b.Height, b.BurnBlock, want.BurnBlock)
			}
		}
		// The tip's burn block is null, and the page shows some that are stored.
		if blocks[0].BurnBlockHash != missing || blocks[0].BurnBlock != nil || !slices.ContainsFunc(blocks, func(b block) bool { return b.BurnBlock != nil }) {
			t.Errorf("%s: want the tip's burn block %s null and some stored: %+v", name, missing, blocks)
		}
	}
}
