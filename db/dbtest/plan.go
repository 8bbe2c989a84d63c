package dbtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/stxgraph/stxgraph/db"
)

// ExplainAsServed explains st with sequential scans disabled, as the planner sees a chain too
// large to scan, and a prepared statement (one with parameters) on the generic plan the server's
// sessions run it on, with its parameters: the plan in text without costs, and the plan executed
// as EXPLAIN (ANALYZE, FORMAT JSON) writes it (ParsePlan reads it).
func ExplainAsServed(ctx context.Context, store *db.Store, st db.Statement) (text, analyzed string, err error) {
	return explain(ctx, store, st, "SET LOCAL enable_seqscan = off")
}

// ExplainOnStatistics explains st as ExplainAsServed does, but costed on the tables' statistics
// as they are, sequential scans allowed: the plan a server would run on these rows, for reads
// whose plan must not depend on how the rows are spread.
func ExplainOnStatistics(ctx context.Context, store *db.Store, st db.Statement) (text, analyzed string, err error) {
	return explain(ctx, store, st, "SET LOCAL enable_seqscan = on")
}

// explain explains st after the planner setting set.
func explain(ctx context.Context, store *db.Store, st db.Statement, set string) (text, analyzed string, err error) {
	err = store.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, set+"; SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
			return err
		}
		stmt := st.Query
		if len(st.Args) > 0 {
			if _, err := tx.ExecContext(ctx, "PREPARE planned AS "+st.Query); err != nil {
				return err
			}
			defer tx.ExecContext(ctx, "DEALLOCATE planned") //nolint:errcheck // the transaction's connection is dropped if it fails
			lits := make([]string, len(st.Args))
			for i := range st.Args {
				lits[i] = st.Literal(i)
			}
			stmt = "EXECUTE planned(" + strings.Join(lits, ", ") + ")"
		}
		var lines []string
		if err := tx.NewRaw("EXPLAIN (COSTS OFF) "+stmt).Scan(ctx, &lines); err != nil {
			return err
		}
		text = strings.Join(lines, "\n")
		return tx.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+stmt).Scan(ctx, &analyzed)
	})
	return text, analyzed, err
}

// PlanNode is a node of the plan EXPLAIN (ANALYZE, FORMAT JSON) writes: what it read, and the
// rows it produced and discarded, averaged over its loops as PostgreSQL reports them.
type PlanNode struct {
	NodeType      string     `json:"Node Type"`
	Relation      string     `json:"Relation Name"`
	ActualRows    float64    `json:"Actual Rows"`
	ActualLoops   float64    `json:"Actual Loops"`
	FilterRemoved float64    `json:"Rows Removed by Filter"`
	RecheckRemove float64    `json:"Rows Removed by Index Recheck"`
	Plans         []PlanNode `json:"Plans"`
}

// ParsePlan decodes the output of EXPLAIN (ANALYZE, FORMAT JSON) of one statement: its plan and
// its execution time in ms.
func ParsePlan(js string) (PlanNode, float64, error) {
	var root []struct {
		Plan          PlanNode
		ExecutionTime float64 `json:"Execution Time"`
	}
	if err := json.Unmarshal([]byte(js), &root); err != nil {
		return PlanNode{}, 0, err
	}
	if len(root) != 1 {
		return PlanNode{}, 0, fmt.Errorf("dbtest: %d plans, want one", len(root))
	}
	return root[0].Plan, root[0].ExecutionTime, nil
}

// Touched is how many rows the node produced or discarded over all its loops.
func (n *PlanNode) Touched() float64 {
	return (n.ActualRows + n.FilterRemoved + n.RecheckRemove) * n.ActualLoops
}

// Walk calls fn on n and every node under it.
func (n *PlanNode) Walk(fn func(*PlanNode)) {
	fn(n)
	for i := range n.Plans {
		n.Plans[i].Walk(fn)
	}
}

// RowsOf is how many rows the nodes reading table touched.
func (n *PlanNode) RowsOf(table string) float64 {
	var rows float64
	n.Walk(func(m *PlanNode) {
		if m.Relation == table {
			rows += m.Touched()
		}
	})
	return rows
}
