package server

import (
	"database/sql"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/stxgraph/stxgraph/db"
)

// explorerAssets are the explorer pages' script and style, built by `make explorer` from the
// versions pinned in explorer/package.json; embedded, so that the pages need no other host.
//
//go:embed explorer/dist
var explorerAssets embed.FS

// explorerPrefix is where the explorer pages are served; explorerAssetPrefix their files.
const (
	explorerPrefix      = "/explorer/"
	explorerAssetPrefix = explorerPrefix + "assets/"
)

// explorerHeader is the bar every explorer page and the start page share: the name, the pages and
// the search box (which the explorer answers; without a script, /explorer/?q=… does).
const explorerHeader = `<header class="top"><div class="inner">
<a class="brand" href="/"><span class="logo"></span>stxgraph <small>explorer</small></a>
<nav><a href="/explorer/" data-nav>Chain</a><a href="/explorer/brc20" data-nav>BRC-20</a><a href="/graphiql">GraphiQL</a><a href="/docs">REST API</a></nav>
<form id="search" role="search" action="/explorer/" method="get"><input name="q" aria-label="Search" autocomplete="off"
 placeholder="Transaction id, block hash or height, address, BRC-20 ticker"><button>Search</button></form>
</div></header>`

// explorerHead opens the explorer's and the start page's documents with their stylesheet.
const explorerHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="` + explorerAssetPrefix + `explorer.css">`

// explorerShell is the one document of every explorer path: the script reads the path and
// renders the page.
const explorerShell = explorerHead + `
<title>stxgraph explorer</title>
</head><body>` + explorerHeader + `
<main id="page"><p class="muted">Loading…</p></main>
<script src="` + explorerAssetPrefix + `explorer.js"></script>
</body></html>`

func explorer(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(explorerShell)) //nolint:errcheck // client gone
}

// startPage shows the chain tip and the service's status at a glance, and links every page.
var startPage = template.Must(template.New("start").Parse(explorerHead + `
<title>stxgraph</title>
</head><body class="start">` + explorerHeader + `
<main>
<div class="page-head"><h1>stxgraph<span class="sub">the Stacks blockchain, indexed into PostgreSQL and served GraphQL-first</span></h1></div>
<div class="stats" id="status">
<div class="stat"><div class="label">Status</div><div class="value">{{if .Err}}<span class="badge bad">{{.Err}}</span>{{else if .Tip}}<span class="badge ok">ready</span>{{else}}<span class="badge warn">waiting for the first block</span>{{end}}</div></div>
{{with .Tip}}<div class="stat"><div class="label">Chain tip</div><div class="value" id="tip-height"><a href="/explorer/block/{{.Hash}}">{{.Height}}</a></div><div class="muted mono">{{.Hash}}</div></div>
<div class="stat"><div class="label">Burn block height</div><div class="value">{{.BurnHeight}}</div></div>
<div class="stat"><div class="label">Microblocks on the tip</div><div class="value">{{if .Microblock}}{{.Microblock}}{{else}}none{{end}}</div></div>
<div class="stat"><div class="label">Mempool updated</div><div class="value">{{.MempoolUpdated}}</div><div class="muted">{{.MempoolUpdatedDay}}</div></div>{{end}}
</div>
<ul class="links">
<li><a href="/explorer/">Explorer</a><p>The newest blocks and pending transactions, live; blocks, transactions, accounts and BRC-20 tokens, each page one or two GraphQL queries you can copy.</p></li>
<li><a href="/graphiql">GraphiQL</a><p>Explore the GraphQL API (POST/GET <code>/graphql</code>, subscriptions over WebSocket).</p></li>
<li><a href="/docs">REST API reference</a><p>The Stacks Blockchain API paths (<code>/extended/…</code>), rendered from <a href="/extended/v1/openapi.json">their OpenAPI document</a>.</p></li>
<li><a href="/extended">/extended</a><p>Status and chain tip as JSON.</p></li>
<li><a href="/metrics">/metrics</a><p>Prometheus metrics.</p></li>
</ul>
</main></body></html>`))

// startTip is the chain tip as the start page shows it.
type startTip struct {
	Height, BurnHeight int32
	Hash               string
	Microblock         string
	MempoolUpdated     string // the time of day, UTC
	MempoolUpdatedDay  string
}

// start serves the start page with the chain tip read from store.
func start(store *db.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var data struct {
			Tip *startTip
			Err string
		}
		tip, err := store.ChainTip(r.Context())
		switch {
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			slog.WarnContext(r.Context(), "start page: chain tip", "err", err)
			data.Err = "database unavailable"
		case err == nil && tip.BlockHeight > 0:
			data.Tip = &startTip{Height: tip.BlockHeight, BurnHeight: tip.BurnBlockHeight, Hash: db.Hex(tip.BlockHash)}
			if tip.MicroblockSequence != nil {
				data.Tip.Microblock = "sequence " + strconv.Itoa(int(*tip.MicroblockSequence))
			}
			if !tip.MempoolUpdatedAt.IsZero() {
				at := tip.MempoolUpdatedAt.UTC()
				data.Tip.MempoolUpdated, data.Tip.MempoolUpdatedDay = at.Format(time.TimeOnly)+" UTC", at.Format(time.DateOnly)
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		startPage.Execute(w, data) //nolint:errcheck // client gone
	}
}
