package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph/server"
)

// TestPersistedQueryAnswersFollowTheChain: a persisted query's answer is computed once per chain
// state and served from memory at that state; a new block makes the next request compute it
// again (even before any notice arrives), and mutations are never kept.
func TestPersistedQueryAnswersFollowTheChain(t *testing.T) {
	t.Parallel()
	a := newAPI(t, server.Config{AnswerCacheBytes: 1 << 20})
	c := chain{blocks: 3, txsPerBlock: 2, eventsPerTx: 1, sender: testSender}
	c.seed(t, a.store)

	q := `query Front($n: Int) { blocksConnection(first: $n) { nodes { height transactions(first: 2) { nodes { txId events(limit: 1) { __typename } } } } } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	vars := map[string]any{"n": 2}
	ask := func(withQuery bool) (string, int64) {
		t.Helper()
		body := map[string]any{"extensions": ext, "variables": vars}
		if withQuery {
			body["query"] = q
		}
		out, n := a.query(t, body)
		if len(out.Errors) > 0 {
			t.Fatalf("errors %+v", out.Errors)
		}
		return string(out.Data), n
	}

	first, computed := ask(true)
	again, served := ask(false)
	if again != first || !strings.Contains(first, `"height":3`) {
		t.Fatalf("answers %s then %s", first, again)
	}
	if served >= computed {
		t.Errorf("repeated persisted query ran %d statements, the first %d: not kept", served, computed)
	}

	c.insertBlock(context.Background(), t, a.store, 4, true)
	moved, recomputed := ask(false)
	if !strings.Contains(moved, `"height":4`) {
		t.Fatalf("answer after block 4: %s", moved)
	}
	if recomputed <= served {
		t.Errorf("after the block the query ran %d statements, a kept answer %d", recomputed, served)
	}
	if _, n := ask(false); n != served {
		t.Errorf("at the new tip the query ran %d statements; a kept answer runs %d", n, served)
	}

	// Another variable value is another answer.
	vars = map[string]any{"n": 1}
	if one, _ := ask(false); strings.Contains(one, `"height":3`) {
		t.Errorf("answer for n=1 holds a second block: %s", one)
	}
}
