// Package resolvers implements the GraphQL schema (schema.graphql) over the db Store, one file
// per domain. Relations go through the per-request loaders.
package resolvers

import (
	"github.com/99designs/gqlgen/graphql"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/notices"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/graph"
)

// Resolver is the root resolver; it holds the dependencies every field needs.
type Resolver struct {
	Store *db.Store
	// MaxPageSize bounds first/last of connections (DefaultMaxPageSize when 0).
	MaxPageSize int
	// Events feeds subscriptions with what ingestion commits (nil: subscriptions report unavailable).
	Events *notices.Listener
	// Replication is the primary and replica pair when reads come from a replica (nil: the
	// store is the primary).
	Replication *db.Replication
	// Faucet runs the testnet faucet mutations (nil: they answer 403).
	Faucet *faucet.Service

	tips chainTips
}

// NewExecutableSchema builds the executable schema that /graphql and the REST adapter both run.
func NewExecutableSchema(r *Resolver) graphql.ExecutableSchema {
	return graph.NewExecutableSchema(graph.Config{Resolvers: r})
}

func (r *Resolver) Query() graph.QueryResolver           { return queryResolver{r} }
func (r *Resolver) Block() graph.BlockResolver           { return blockResolver{r} }
func (r *Resolver) Brc20Token() graph.Brc20TokenResolver { return brc20TokenResolver{r} }

type queryResolver struct{ *Resolver }

// Transaction and Account fields are written by several domains (resolvers/transaction.go,
// account.go, block.go, connection.go…), so their resolver types are declared here once.
func (r *Resolver) Transaction() graph.TransactionResolver { return transactionResolver{r} }
func (r *Resolver) Account() graph.AccountResolver         { return accountResolver{r} }

type transactionResolver struct{ *Resolver }
type accountResolver struct{ *Resolver }

// invalid is the error for bad arguments, in the shared vocabulary.
func invalid(format string, args ...any) error {
	return stxgraph.Errorf(stxgraph.EINVALID, format, args...)
}
