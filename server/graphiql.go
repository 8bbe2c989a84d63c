package server

import (
	"net/http"
	"net/url"

	"github.com/99designs/gqlgen/graphql/playground"
)

// exampleQuery is what GraphiQL opens with: one request that walks blocks, their transactions and
// their burn blocks, paged by cursor.
const exampleQuery = `# stxgraph: the Stacks chain as one graph. Nested lists are batched: this query runs a
# handful of SQL statements however many blocks and transactions it returns.
query LatestBlocks {
  chainTip { blockHeight burnBlockHeight }
  blocksConnection(first: 5) {
    totalCount
    pageInfo { hasNextPage endCursor }   # pass endCursor as "after" for the next page
    nodes {
      height
      hash
      burnBlock { height hash }
      microblocks { hash sequence }
      transactions(first: 10) {
        totalCount
        nodes { txId txIndex microblock { hash } }
      }
    }
  }
}

# Live updates over WebSocket (graphql-transport-ws), e.g.:
#   subscription { blocks { height hash transactions { totalCount } } }
#   subscription { addressTransactions(principal: "ST…") { txId blockHeight } }
#   subscription { mempoolTransactions { txId senderAddress feeRate } }
`

// graphiql serves GraphiQL (queries over HTTP, subscriptions over WebSocket on /graphql). The
// editor state lives in the URL, so a visit without one starts from exampleQuery and any query
// can be shared as a link.
func graphiql() http.Handler {
	page := playground.Handler("stxgraph GraphiQL", "/graphql", playground.WithGraphiqlPersistStateInURL(true))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("query") == "" {
			http.Redirect(w, r, "/graphiql?query="+url.QueryEscape(exampleQuery), http.StatusFound)
			return
		}
		page(w, r)
	})
}
