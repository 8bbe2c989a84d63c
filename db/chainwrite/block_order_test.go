package chainwrite_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/db/dbtest"
)

// Blocks are counted in height order and taken back from the top: a block that would be
// counted other than just above the tip fails, as does a branch to restore whose heights do
// not go down one by one from the tip. Both take a stored chain whose heights are wrong.
func TestBlocksCountedInHeightOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	apply := func(name string, height int32, parent string) error {
		return chainwrite.NewStore(store).Ingest(ctx, time.Now(), chainwrite.IngestOptions{}, func(ctx context.Context, w *chainwrite.Writer) error {
			_, err := w.ApplyBlock(ctx, &chainwrite.BlockData{Block: testBlock(name, height, parent)})
			return err
		})
	}
	exec := func(q string, args ...any) {
		if _, err := store.DB.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Blocks 1, 2, 3, and a fork 2b, 3b beside 2 and 3.
	for _, b := range []struct {
		name   string
		height int32
		parent string
	}{{"1", 1, "0"}, {"2", 2, "1"}, {"3", 3, "2"}, {"2b", 2, "1"}, {"3b", 3, "2b"}} {
		if err := apply(b.name, b.height, b.parent); err != nil {
			t.Fatalf("block %s: %v", b.name, err)
		}
	}

	// The tip says height 2, though block 3 is stored: block 4 on block 3 would be counted
	// at a height not just above the tip.
	exec("UPDATE chain_tip SET block_height = 2")
	err := apply("4", 4, "3")
	if err == nil || !strings.Contains(err.Error(), "counted in height order") {
		t.Errorf("block above a stored block above the tip: error %v, want one on the height order", err)
	}
	exec("UPDATE chain_tip SET block_height = 3")

	// Block 2b says height 1: restoring the fork for block 4b would stop counting block 3,
	// then not block 2 but a block at height 1.
	exec("UPDATE blocks SET block_height = 1 WHERE index_block_hash = ?", hash("2b"))
	err = apply("4b", 4, "3b")
	if err == nil || !strings.Contains(err.Error(), "counting stops from the top") {
		t.Errorf("fork with a height gap: error %v, want one on counting from the top", err)
	}
	var canonical []string
	if err := store.DB.NewRaw("SELECT rtrim(encode(index_block_hash, 'escape'), '.') FROM blocks WHERE canonical ORDER BY block_height, 1").
		Scan(ctx, &canonical); err != nil {
		t.Fatal(err)
	}
	if strings.Join(canonical, " ") != "1 2 3" {
		t.Errorf("canonical blocks %q, want 1 2 3: the failed blocks changed nothing", canonical)
	}
}

// hash is a test block's 32-byte hash, its name padded.
func hash(name string) []byte {
	return append([]byte(name), bytes.Repeat([]byte{'.'}, 32-len(name))...)
}

// testBlock is a block without transactions, named name, at height on the block named parent.
func testBlock(name string, height int32, parent string) *db.Block {
	return &db.Block{IndexBlockHash: hash(name), BlockHash: hash("h" + name), BlockHeight: height,
		ParentIndexBlockHash: hash(parent), ParentBlockHash: hash("h" + parent), ParentMicroblockHash: []byte{},
		BurnBlockHash: hash("b" + name), BurnBlockHeight: 100 + height, ParentBurnBlockHash: hash("b" + parent),
		MinerTxid: hash("m" + name), ConsensusHash: hash("c" + name)}
}
