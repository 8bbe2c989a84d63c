package server

import (
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
)

// assets are the bundled front-end files (GraphiQL with React, graphql-ws and the explorer
// plugin; Swagger UI), built by `make graphiql` from the versions pinned in
// graphiql/package.json. They are embedded so that the pages work with no other host reachable.
//
//go:embed graphiql/dist
var assets embed.FS

// assetPrefix is where the bundled files are served.
const assetPrefix = "/assets/"

// Example is one GraphiQL tab the page opens with.
type Example struct {
	Name  string `json:"name"`
	Query string `json:"query"`
	// Variables is a JSON object, empty when the operation takes none.
	Variables string `json:"variables,omitempty"`
}

// examples are the tabs GraphiQL opens with; the first is the one shown.
var examples = []Example{
	{Name: "Latest blocks", Query: exampleQuery},
	{Name: "Account", Query: accountExample, Variables: `{"principal": "ST000000000000000000002AMW42H"}`},
	{Name: "Block explorer", Query: blockExplorerExample, Variables: `{"height": 2}`},
	{Name: "Live blocks", Query: liveExample},
}

// exampleQuery walks blocks, their transactions and their burn blocks, paged by cursor.
const exampleQuery = `# stxgraph: the Stacks chain as one graph. Nested lists are batched: this query runs a
# handful of SQL statements however many blocks and transactions it returns.
# More examples are in the other tabs; the explorer (first icon on the left) builds queries by clicking.
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

# Live updates over WebSocket (graphql-transport-ws); every item has a position to resume after
# (after: "…"), e.g.:
#   subscription { blocks { position block { height hash transactions { totalCount } } reorg { rolledBack { height } } } }
#   subscription { addressTransactions(principal: "ST…") { position transaction { txId blockHeight } } }
#   subscription { mempoolTransactions { position transaction { txId senderAddress feeRate } droppedTxId } }
`

// accountExample is what a wallet or an explorer's address page reads, in one request.
const accountExample = `# An account page: balance, nonces, recent transactions with their transfers, pending
# transactions and events. Set "principal" in Variables to any address or contract id.
query AccountPage($principal: String!) {
  account(principal: $principal) {
    principal
    stxBalance { balance estimatedBalance totalSent totalReceived totalFeesSent }
    nonces { possibleNextNonce lastExecutedTxNonce lastMempoolTxNonce detectedMissingNonces }
    latestTxId
    transactionsWithTransfers(limit: 5) {
      total
      results {
        tx { txId txType txStatus blockHeight feeRate }
        stxSent
        stxReceived
        stxTransfers { amount sender recipient }
      }
    }
  }
  mempool(address: $principal, first: 5) {
    nodes { txId nonce feeRate receiptTime }
  }
}
`

// blockExplorerExample is a block page: the block, its neighbours and its transactions.
const blockExplorerExample = `# A block explorer page: one block by height (or hash), its burn block, parent, microblocks
# and transactions with their payloads and events. Set "height" in Variables.
query BlockPage($height: Int!) {
  block(height: $height) {
    height hash indexBlockHash canonical blockTimeIso txCount
    burnBlock { height hash }
    parent { height hash }
    microblocks { hash sequence }
    executionCost { runtime readCount writeCount }
    transactions(first: 20) {
      nodes {
        txId txIndex txType txStatus feeRate
        sender { principal }
        tokenTransfer { recipientAddress amount memo }
        contractCall { contractId functionName functionArgs { repr } }
        smartContract { contractId }
        events(limit: 5) {
          ... on StxAssetEvent { eventIndex asset { assetEventType amount sender recipient } }
          ... on SmartContractLogEvent { eventIndex contractLog { topic value { repr } } }
        }
      }
    }
  }
}
`

// liveExample streams blocks as ingestion stores them, over graphql-ws.
const liveExample = `# A live subscription over WebSocket: each new block as the node sends it, and each
# reorganisation. Press run and leave the tab open; a new result replaces the last one as blocks
# arrive. To resume after a dropped connection, pass the last position: blocks(after: "…").
subscription LiveBlocks {
  blocks {
    position
    block {
      height hash canonical
      burnBlock { height }
      transactions(first: 5) { totalCount nodes { txId txType } }
    }
    reorg { rolledBack { height indexBlockHash } restored { height indexBlockHash } }
  }
}
`

var pages = template.Must(template.New("graphiql").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stxgraph GraphiQL</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="` + assetPrefix + `graphiql.css">
<style>body{margin:0;height:100vh;overflow:hidden}#graphiql{height:100vh}</style>
</head><body>
<div id="graphiql" data-endpoint="/graphql">Loading…</div>
<script id="graphiql-examples" type="application/json">{{.}}</script>
<script src="` + assetPrefix + `graphiql.js"></script>
</body></html>`))

var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stxgraph REST API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="` + assetPrefix + `swagger-ui.css">
</head><body>
<div id="swagger-ui" data-spec="{{.}}"></div>
<script src="` + assetPrefix + `swagger-ui-bundle.js"></script>
<script src="` + assetPrefix + `docs.js"></script>
</body></html>`))

// openAPIPath is where the REST adapter serves its OpenAPI document.
const openAPIPath = "/extended/v1/openapi.json"

// graphiql serves the GraphiQL page: queries over HTTP and subscriptions over WebSocket on
// /graphql, the examples as tabs, and ?query=… (a shared link) as the first tab.
func graphiql(principal string) http.Handler {
	tabs := slices.Clone(examples)
	if principal != "" {
		for i, e := range tabs {
			if e.Query == accountExample {
				v, _ := json.Marshal(map[string]string{"principal": principal})
				tabs[i].Variables = string(v)
			}
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		pages.Execute(w, tabs) //nolint:errcheck // client gone
	})
}

// restDocs serves the REST reference rendered from the OpenAPI document.
func restDocs(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	docsPage.Execute(w, openAPIPath) //nolint:errcheck // client gone
}

// assetHandler serves the embedded files of dir at prefix. The files change only with the
// binary.
func assetHandler(files embed.FS, dir, prefix string) http.Handler {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	serve := http.StripPrefix(prefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		serve.ServeHTTP(w, r)
	})
}
