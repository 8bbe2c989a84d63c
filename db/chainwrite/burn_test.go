package chainwrite

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/db/dbtest"
)

// A burn block takes the rows above its height off the canonical chain through an index on each
// burn table's height: with a burn chain thousands of blocks long, no update of the three reads
// its table sequentially, which is what each would do without the index (sequential scans are
// disabled, so only a missing index leaves one in the plan).
func TestOrphanBurnRowsReadByHeight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := dbtest.New(t)
	defer store.Close()
	const fill = `INSERT INTO burn_blocks (burn_block_hash, burn_block_height) SELECT int8send(h), h FROM generate_series(1, 5000) h;
		INSERT INTO burnchain_rewards (burn_block_hash, burn_block_height, reward_index, recipient, amount)
			SELECT int8send(h), h, i, 'mvBuTdqLzDcqbLkbiWjdNbRknYH9BAxyu6', 1000 FROM generate_series(1, 5000) h, generate_series(0, 1) i;
		INSERT INTO reward_slot_holders (burn_block_hash, burn_block_height, slot_index, address)
			SELECT int8send(h), h, i, 'mvBuTdqLzDcqbLkbiWjdNbRknYH9BAxyu6' FROM generate_series(1, 5000) h, generate_series(0, 1) i;
		ANALYZE burn_blocks, burnchain_rewards, reward_slot_holders`
	if _, err := store.DB.ExecContext(ctx, fill); err != nil {
		t.Fatal(err)
	}
	conn, err := store.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"burn_blocks", "burnchain_rewards", "reward_slot_holders"} {
		var out []string
		err := store.DB.NewRaw("EXPLAIN (FORMAT JSON) "+orphanBurnRows(table), 4990, byteArray([][]byte{{0xbb}})).Conn(conn).Scan(ctx, &out)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		plan, _, err := dbtest.ParsePlan(strings.Join(out, ""))
		if err != nil {
			t.Fatalf("%s: plan %q: %v", table, out, err)
		}
		var scans []string
		plan.Walk(func(n *dbtest.PlanNode) {
			if n.Relation == table {
				scans = append(scans, n.NodeType)
			}
		})
		if len(scans) == 0 || slices.Contains(scans, "Seq Scan") {
			t.Errorf("%s is read by %v when a burn block arrives, want its height index", table, scans)
		}
	}
}
