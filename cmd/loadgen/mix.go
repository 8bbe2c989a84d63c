package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// A mix is traffic shaped like an explorer's and a wallet's: a weighted list of reads, each
// request drawing one read and then its parameters from the whole chain.
type mix struct {
	name  string
	reads []read
	chain *chainParams
	total int // sum of the weights
}

// A read is a kind of request; path draws one request of that kind.
type read struct {
	name   string
	weight int // share of the mix, in percent
	path   func(d *drawer) string
}

func newMix(name string, c *chainParams, reads ...read) *mix {
	m := &mix{name: name, reads: reads, chain: c}
	for _, r := range reads {
		m.total += r.weight
	}
	return m
}

// pick draws a read's index, each in proportion to its weight.
func (m *mix) pick(rnd *rand.Rand) int {
	n := rnd.IntN(m.total)
	for i, r := range m.reads {
		if n < r.weight {
			return i
		}
		n -= r.weight
	}
	panic("unreachable: n < total")
}

// only is the mix of one of m's reads, to measure that read alone.
func (m *mix) only(i int) *mix { return newMix(m.reads[i].name, m.chain, m.reads[i]) }

// restMix is the REST traffic of a wallet (balances, histories) and an explorer (transactions,
// blocks, a contract's page), over the paths the server serves. It has no single-transaction
// or single-block path: a transaction page's events and the burn block lookup stand for them.
func restMix(c *chainParams) *mix {
	const v1 = "/extended/v1"
	return newMix("REST mix", c,
		read{"/address/{account}/stx", 30, func(d *drawer) string {
			return v1 + "/address/" + d.account().address + "/stx"
		}},
		read{"/address/{account}/stx?until_block={height}", 5, func(d *drawer) string {
			return v1 + "/address/" + d.account().address + "/stx?until_block=" + strconv.Itoa(d.block().height)
		}},
		read{"/address/{account}/transactions_with_transfers?limit=20", 10, func(d *drawer) string {
			return v1 + "/address/" + d.account().address + "/transactions_with_transfers?limit=20"
		}},
		read{"/address/{account}/transactions_with_transfers?limit=20&offset={offset}", 5, func(d *drawer) string {
			a := d.account()
			return v1 + "/address/" + a.address + "/transactions_with_transfers?limit=20&offset=" + strconv.Itoa(d.below(a.txs))
		}},
		read{"/tx/events?address={account}", 5, func(d *drawer) string {
			return v1 + "/tx/events?address=" + d.account().address
		}},
		read{"/tx/events?address={account}&limit=50&offset={offset}", 3, func(d *drawer) string {
			a := d.account()
			return v1 + "/tx/events?address=" + a.address + "&limit=50&offset=" + strconv.Itoa(d.below(a.events))
		}},
		read{"/tx/multiple?tx_id={1 to 5 txids}", 15, func(d *drawer) string {
			ids := make([]string, 1+d.rnd.IntN(5))
			for i := range ids {
				ids[i] = d.txID()
			}
			return v1 + "/tx/multiple?tx_id=" + strings.Join(ids, "&tx_id=")
		}},
		read{"/tx/events?tx_id={txid}", 10, func(d *drawer) string {
			return v1 + "/tx/events?tx_id=" + d.txID()
		}},
		read{"/block?limit=20", 3, func(*drawer) string { return v1 + "/block?limit=20" }},
		read{"/block?limit=20&offset={offset}", 5, func(d *drawer) string {
			return v1 + "/block?limit=20&offset=" + strconv.Itoa(d.below(len(d.c.blocks)))
		}},
		read{"/block/by_burn_block_hash/0x{burn hash}", 5, func(d *drawer) string {
			return v1 + "/block/by_burn_block_hash/0x" + d.block().burnHash
		}},
		read{"/contract/{contract}/events?offset={offset}", 4, func(d *drawer) string {
			return v1 + "/contract/" + d.c.contract + "/events?offset=" + strconv.Itoa(d.below(d.c.contractEvents))
		}},
	)
}

// The GraphQL reads. The front pages are the same at every request: what varies them is the chain.
const (
	accountPageQuery = `{ account(principal: "%s") { stxBalance { balance locked } transactions(first: 20) { totalCount nodes { txId blockHeight feeRate } } } }`
	blockPageQuery   = `{ block(height: %d) { height hash burnBlock { height } transactions(first: 20) { nodes { txId feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } }`
	txQuery          = `{ transactionsByIds(ids: ["%s"]) { txId found result { ... on Transaction { txId blockHeight feeRate txStatus sender { principal } events(limit: 5) { __typename } } } } }`
	smallFrontQuery  = `{ blocksConnection(first: 5) { nodes { height hash transactions(first: 5) { nodes { txId } } } } }`
)

// graphqlMix is an explorer's GraphQL traffic: account, block and transaction pages and the
// front page, small and big.
func graphqlMix(c *chainParams) *mix {
	gql := func(query string) string { return "/graphql?query=" + url.QueryEscape(query) }
	small, big := gql(smallFrontQuery), gql(frontPageQuery)
	return newMix("GraphQL mix", c,
		read{"GraphQL account page", 35, func(d *drawer) string { return gql(fmt.Sprintf(accountPageQuery, d.account().address)) }},
		read{"GraphQL block page by height", 25, func(d *drawer) string { return gql(fmt.Sprintf(blockPageQuery, d.block().height)) }},
		read{"GraphQL transaction by id", 20, func(d *drawer) string { return gql(fmt.Sprintf(txQuery, d.txID())) }},
		read{"GraphQL front page, 5 blocks × 5 txs", 10, func(*drawer) string { return small }},
		read{"GraphQL front page, 20 blocks × 20 txs with events", 10, func(*drawer) string { return big }},
	)
}

// combinedMix is both mixes at once, half the requests each.
func combinedMix(c *chainParams) *mix {
	return newMix("REST and GraphQL mix", c, append(restMix(c).reads, graphqlMix(c).reads...)...)
}

// chainParams are what the reads draw their parameters from: the whole chain.
type chainParams struct {
	accounts       []account // in the generator's order, the busy account first: the Zipf ranks
	blocks         []block   // every canonical block
	txIDs          []string  // every canonical transaction's id, 0x-prefixed
	contract       string    // the id of the chain's contract
	contractEvents int       // the events it printed
}

// account is an account of the chain and the lengths of its histories, below which its pages'
// offsets are drawn.
type account struct {
	address     string
	txs, events int
}

type block struct {
	height   int
	burnHash string // hex, without 0x
}

// loadChain reads the chain's blocks, transaction ids and history lengths from its database (the
// generator would have to sign every transaction again to tell the ids); the accounts themselves
// are the generator's.
func loadChain(ctx context.Context, dsn string, o chaingen.Options) (*chainParams, error) {
	g, err := chaingen.New(o)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	c := &chainParams{contract: g.ContractID()}
	counts := map[string][2]int{}
	rows, _ := conn.Query(ctx, `SELECT t.principal, t.tx_count_all, coalesce(e.event_count, 0)
		FROM principal_stx_totals t LEFT JOIN principal_event_counts e USING (principal)`)
	var p string
	var txs, events int
	if _, err := pgx.ForEachRow(rows, []any{&p, &txs, &events}, func() error {
		counts[p] = [2]int{txs, events}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("history lengths: %w", err)
	}
	for _, a := range g.Accounts() {
		addr := a.Address.String()
		c.accounts = append(c.accounts, account{address: addr, txs: counts[addr][0], events: counts[addr][1]})
	}
	c.contractEvents = counts[c.contract][1]
	var b block
	rows, _ = conn.Query(ctx, `SELECT block_height, encode(burn_block_hash, 'hex') FROM blocks WHERE canonical`)
	if _, err := pgx.ForEachRow(rows, []any{&b.height, &b.burnHash}, func() error {
		c.blocks = append(c.blocks, b)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("blocks: %w", err)
	}
	var id string
	rows, _ = conn.Query(ctx, `SELECT '0x' || encode(tx_id, 'hex') FROM txs WHERE canonical AND microblock_canonical`)
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		c.txIDs = append(c.txIDs, id)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("transaction ids: %w", err)
	}
	if len(c.blocks) == 0 || len(c.txIDs) == 0 {
		return nil, fmt.Errorf("the chain database %s holds no canonical blocks or transactions", dsn)
	}
	return c, nil
}

// The account popularity: P(rank k) ∝ (zipfV + k)^-zipfS. Over the chain's 10,000 accounts,
// the busiest takes 2% of the draws and the top hundred 43%, while a quarter fall beyond the
// thousandth: popular wallets and exchanges, and a long tail of accounts read now and then.
const zipfS, zipfV = 1.1, 10

// A drawer draws one worker's parameters, reproducibly for a seed and stream: accounts by
// popularity, blocks and transactions uniformly, over the whole chain each time.
type drawer struct {
	rnd  *rand.Rand
	zipf *rand.Zipf // nil without accounts
	c    *chainParams
}

// newDrawer draws from c (nil for paths without parameters).
func newDrawer(c *chainParams, seed, stream uint64) *drawer {
	d := &drawer{rnd: rand.New(rand.NewPCG(seed, stream)), c: c}
	if c != nil && len(c.accounts) > 0 {
		d.zipf = rand.NewZipf(d.rnd, zipfS, zipfV, uint64(len(c.accounts)-1))
	}
	return d
}

func (d *drawer) account() account { return d.c.accounts[d.zipf.Uint64()] }
func (d *drawer) block() block     { return d.c.blocks[d.rnd.IntN(len(d.c.blocks))] }
func (d *drawer) txID() string     { return d.c.txIDs[d.rnd.IntN(len(d.c.txIDs))] }

// below is an offset into a list of n items (0 for an empty list).
func (d *drawer) below(n int) int {
	if n <= 0 {
		return 0
	}
	return d.rnd.IntN(n)
}
