package brc20

import (
	"context"
	"fmt"
	"testing"
)

// memState is the state kept in memory, updated with each block's Changes as storage would be.
type memState struct {
	tokens        map[string]*Token
	balances      map[BalanceKey]Balance
	transferables map[string]Transferable
	ops           []Operation
}

func newMemState() *memState {
	return &memState{tokens: map[string]*Token{}, balances: map[BalanceKey]Balance{}, transferables: map[string]Transferable{}}
}

func (m *memState) Tokens(_ context.Context, tickers []string) (map[string]*Token, error) {
	out := map[string]*Token{}
	for _, t := range tickers {
		if tok, ok := m.tokens[t]; ok {
			c := *tok
			out[t] = &c
		}
	}
	return out, nil
}

func (m *memState) Balances(_ context.Context, keys []BalanceKey) (map[BalanceKey]Balance, error) {
	out := map[BalanceKey]Balance{}
	for _, k := range keys {
		if b, ok := m.balances[k]; ok {
			out[k] = b
		}
	}
	return out, nil
}

func (m *memState) Transferables(_ context.Context, sats []int64) ([]Transferable, error) {
	var out []Transferable
	for _, s := range sats {
		for _, t := range m.transferables {
			if t.Sat == s {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

func (m *memState) apply(t *testing.T, b Block) *Changes {
	t.Helper()
	ch, err := Process(context.Background(), m, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range append(ch.Deployed, ch.Updated...) {
		m.tokens[tok.Ticker] = tok
	}
	for k, b := range ch.Balances {
		m.balances[k] = b
	}
	for _, id := range ch.Sent {
		if _, ok := m.transferables[id]; !ok {
			t.Fatalf("sent %s is not a stored transferable", id)
		}
		delete(m.transferables, id)
	}
	for _, tr := range ch.NewTransferables {
		m.transferables[tr.InscriptionID] = tr
	}
	m.ops = append(m.ops, ch.Operations...)
	return ch
}

// balance returns "avail/trans" in whole units of the token's scale.
func (m *memState) balance(ticker, addr string) string {
	b, ok := m.balances[BalanceKey{ticker, addr}]
	if !ok {
		return "none"
	}
	return b.Avail.String() + "/" + b.Trans.String()
}

func (m *memState) token(t *testing.T, ticker string) *Token {
	t.Helper()
	tok := m.tokens[ticker]
	if tok == nil {
		t.Fatalf("token %s not deployed", ticker)
	}
	return tok
}

// chain builds blocks of test inscriptions.
type chain struct {
	height int32
	n      int
	txs    []Tx
}

func (c *chain) next() string { c.n++; return fmt.Sprintf("%064x", c.n) }

// reveal adds a transaction revealing body (text/plain) to addr; it returns the inscription's sat.
func (c *chain) reveal(addr, body string, opts ...func(*Reveal)) int64 {
	txid := c.next()
	rv := Reveal{InscriptionID: txid + "i0", Number: int64(c.n), ClassicNumber: int64(c.n), ContentType: "text/plain",
		Content: []byte(body), Address: addr, Sat: int64(c.n) * 1000, Location: txid + ":0:0"}
	for _, o := range opts {
		o(&rv)
	}
	c.txs = append(c.txs, Tx{ID: txid, Index: int32(len(c.txs)), Reveals: []Reveal{rv}})
	return rv.Sat
}

// move adds a transaction moving the sat.
func (c *chain) move(sat int64, d Destination, to string) {
	txid := c.next()
	c.txs = append(c.txs, Tx{ID: txid, Index: int32(len(c.txs)), Moves: []Move{{Sat: sat, Destination: d, Address: to, Location: txid + ":0:0"}}})
}

func (c *chain) block() Block {
	b := Block{Height: c.height, Hash: fmt.Sprintf("%064x", 1<<20+c.height), Timestamp: 1678248991, Txs: c.txs}
	c.txs = nil
	c.height++
	return b
}

func deploy(tick, max, lim, dec string) string {
	return fmt.Sprintf(`{"p":"brc-20","op":"deploy","tick":%q,"max":%q,"lim":%q,"dec":%q}`, tick, max, lim, dec)
}
func mint(tick, amt string) string {
	return fmt.Sprintf(`{"p":"brc-20","op":"mint","tick":%q,"amt":%q}`, tick, amt)
}
func transfer(tick, amt string) string {
	return fmt.Sprintf(`{"p":"brc-20","op":"transfer","tick":%q,"amt":%q}`, tick, amt)
}

func TestActivationHeight(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight - 1}
	c.reveal("A", deploy("ordi", "100", "10", "0"))
	if ch := m.apply(t, c.block()); len(ch.Operations) != 0 || len(m.tokens) != 0 {
		t.Fatalf("deploy before activation took effect: %+v", ch.Operations)
	}
	c.reveal("A", deploy("ordi", "100", "10", "0"))
	m.apply(t, c.block())
	if tok := m.token(t, "ordi"); tok.BlockHeight != ActivationHeight || tok.TxCount != 1 || tok.DeployTimestamp != 1678248991000 {
		t.Fatalf("token %+v", tok)
	}
}

func TestDeployRules(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("", deploy("ordi", "1", "1", "0"))                                         // no address: ignored
	c.reveal("A", deploy("ordi", "2", "1", "0"), cursed)                                // cursed: ignored
	c.reveal("A", deploy("ordi", "3", "1", "0"), vindicated)                            // cursed before the Jubilee: ignored
	c.reveal("B", deploy("ORDI", "21000000", "1000", "18"))                             // first valid deploy wins
	c.reveal("C", deploy("ordi", "5", "1", "0"))                                        // later deploy ignored
	c.reveal("C", deploy("Ordi", "5", "1", "0"))                                        // in any case
	c.reveal("D", `{"p":"brc-20","op":"deploy","tick":"meme","max":"99999","lim":"1"}`) // dec defaults to 18
	ch := m.apply(t, c.block())
	if len(ch.Operations) != 2 || ch.Operations[0].Kind != OpDeploy || ch.Operations[1].EventIndex != 1 {
		t.Fatalf("operations %+v", ch.Operations)
	}
	tok := m.token(t, "ordi")
	if tok.DisplayTicker != "ORDI" || tok.Address != "B" || tok.Max.Cmp(Scale("21000000", 18)) != 0 || tok.Limit.Cmp(Scale("1000", 18)) != 0 || tok.Decimals != 18 || tok.TxIndex != 3 {
		t.Fatalf("ordi %+v", tok)
	}
	if meme := m.token(t, "meme"); meme.Decimals != 18 || meme.Limit.Cmp(Scale("1", 18)) != 0 {
		t.Fatalf("meme %+v", meme)
	}
}

func cursed(r *Reveal)     { r.Number, r.ClassicNumber = -5, -5 }
func vindicated(r *Reveal) { r.Number, r.ClassicNumber = 70000000, -5 }

func TestMintRules(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("A", mint("abcd", "1"))               // before the deploy, same block: invalid
	c.reveal("A", deploy("abcd", "25", "10", "1")) // max 25, lim 10, 1 decimal
	c.reveal("A", mint("ABCD", "10"))              // case-insensitive
	c.reveal("B", mint("abcd", "10.1"))            // above the limit
	c.reveal("B", mint("abcd", "1.25"))            // more decimals than the token's
	c.reveal("B", mint("abcd", "9.5"))
	c.reveal("C", mint("abcd", "10")) // only 5.5 left: truncated
	c.reveal("C", mint("abcd", "1"))  // nothing left
	c.reveal("D", mint("zzzz", "1"))  // unknown token
	ch := m.apply(t, c.block())
	tok := m.token(t, "abcd")
	if tok.Minted.String() != "250" || tok.TxCount != 4 || tok.Holders != 3 {
		t.Fatalf("token minted %s tx_count %d holders %d", tok.Minted, tok.TxCount, tok.Holders)
	}
	for addr, want := range map[string]string{"A": "100/0", "B": "95/0", "C": "55/0", "D": "none"} {
		if got := m.balance("abcd", addr); got != want {
			t.Errorf("balance %s = %s, want %s", addr, got, want)
		}
	}
	if n := len(ch.Operations); n != 4 || ch.Operations[3].Amount.String() != "55" {
		t.Fatalf("operations %d, last %+v", n, ch.Operations[n-1])
	}
	// Moving a mint inscription later does nothing.
	c.move(ch.Operations[1].Sat, Transferred, "E")
	if ch := m.apply(t, c.block()); len(ch.Operations) != 0 {
		t.Fatalf("moving a mint made operations %+v", ch.Operations)
	}
}

func TestSelfMint(t *testing.T) {
	m := newMemState()
	selfDeploy := `{"p":"brc-20","op":"deploy","tick":"$pepe","max":"0","lim":"5","dec":"0","self_mint":"true"}`
	c := &chain{height: SelfMintActivationHeight - 1}
	c.reveal("A", selfDeploy)
	m.apply(t, c.block())
	if len(m.tokens) != 0 {
		t.Fatal("self-mint deploy before its activation took effect")
	}
	c.reveal("A", selfDeploy)
	m.apply(t, c.block())
	tok := m.token(t, "$pepe")
	if !tok.SelfMint || tok.Max.String() != "18446744073709551615" {
		t.Fatalf("token %+v", tok)
	}
	c.reveal("B", mint("$pepe", "5"))                                                // no parent
	c.reveal("B", mint("$pepe", "5"), func(r *Reveal) { r.Parents = []string{"x"} }) // wrong parent
	c.reveal("B", mint("$PEPE", "5"), func(r *Reveal) { r.Parents = []string{"y", tok.InscriptionID} })
	m.apply(t, c.block())
	if got := m.balance("$pepe", "B"); got != "5/0" {
		t.Fatalf("self-mint balance %s", got)
	}
}

func TestTransfers(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("A", deploy("ordi", "1000", "100", "0"))
	c.reveal("A", mint("ordi", "100"))
	c.reveal("A", transfer("ordi", "101"))         // more than available: invalid forever
	tSelf := c.reveal("A", transfer("ordi", "10")) // sees the mint of this block
	tFee := c.reveal("A", transfer("ordi", "20"))
	tBurn := c.reveal("A", transfer("ordi", "30"))
	tSend := c.reveal("A", transfer("ORDI", "40"))
	c.reveal("A", transfer("ordi", "1"))   // only 0 available now
	c.reveal("A", transfer("ordi", "0.5")) // decimals above the token's 0
	ch := m.apply(t, c.block())
	if got := m.balance("ordi", "A"); got != "0/100" {
		t.Fatalf("after inscribing transfers A = %s", got)
	}
	if len(ch.NewTransferables) != 4 || len(m.transferables) != 4 {
		t.Fatalf("transferables %d", len(ch.NewTransferables))
	}

	c.move(tSelf, Transferred, "A") // to self: back to available
	c.move(tFee, SpentInFees, "")   // spent as fee: back to the sender
	c.move(tBurn, Burnt, "")        // burnt: lands on the empty address
	c.move(tSend, Transferred, "B")
	c.move(tSend, Transferred, "C") // second move: nothing
	ch = m.apply(t, c.block())
	for addr, want := range map[string]string{"A": "30/0", "B": "40/0", "": "30/0", "C": "none"} {
		if got := m.balance("ordi", addr); got != want {
			t.Errorf("balance %q = %s, want %s", addr, got, want)
		}
	}
	if len(m.transferables) != 0 || len(ch.Sent) != 4 {
		t.Fatalf("transferables left %d, sent %v", len(m.transferables), ch.Sent)
	}
	tok := m.token(t, "ordi")
	// deploy + mint + 4 inscribed transfers + 4 sends
	if tok.TxCount != 10 || tok.Holders != 3 || tok.Minted.String() != "100" {
		t.Fatalf("token tx_count %d holders %d minted %s", tok.TxCount, tok.Holders, tok.Minted)
	}
	var kinds []string
	for _, op := range ch.Operations {
		kinds = append(kinds, op.Kind)
	}
	if len(ch.Operations) != 8 || ch.Operations[4].Kind != OpTransferSend || *ch.Operations[4].ToAddress != "" || ch.Operations[5].Address != "" ||
		*ch.Operations[2].ToAddress != "A" || ch.Operations[7].Address != "B" {
		t.Fatalf("operations %v", kinds)
	}
}

func TestTransferInscribedAndSentInOneBlock(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("A", deploy("ordi", "1000", "100", "0"))
	c.reveal("A", mint("ordi", "100"))
	s := c.reveal("A", transfer("ordi", "60"))
	c.move(s, Transferred, "B")
	c.reveal("A", transfer("ordi", "50")) // 40 left: invalid
	c.reveal("B", transfer("ordi", "60")) // B already received 60
	ch := m.apply(t, c.block())
	if got := m.balance("ordi", "B"); got != "0/60" {
		t.Fatalf("B = %s", got)
	}
	if len(ch.NewTransferables) != 1 || ch.NewTransferables[0].Address != "B" || len(ch.Sent) != 0 {
		t.Fatalf("new transferables %+v sent %v", ch.NewTransferables, ch.Sent)
	}
}

func TestRevealsBeforeMovesInATransaction(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("A", deploy("ordi", "1000", "100", "0"))
	c.reveal("A", mint("ordi", "100"))
	s := c.reveal("A", transfer("ordi", "100"))
	m.apply(t, c.block())
	// One transaction sends the transfer to B and reveals B's transfer of the amount: the reveal
	// comes first and finds no balance.
	txid := c.next()
	c.txs = []Tx{{ID: txid, Index: 0,
		Moves:   []Move{{Sat: s, Destination: Transferred, Address: "B", Location: txid + ":0:0"}},
		Reveals: []Reveal{{InscriptionID: txid + "i0", Number: 99, ClassicNumber: 99, ContentType: "text/plain", Content: []byte(transfer("ordi", "100")), Address: "B", Sat: 99}}}}
	m.apply(t, c.block())
	if got := m.balance("ordi", "B"); got != "100/0" {
		t.Fatalf("B = %s", got)
	}
}

func TestHoldersFollowPositiveTotals(t *testing.T) {
	m := newMemState()
	c := &chain{height: ActivationHeight}
	c.reveal("A", deploy("ordi", "1000", "100", "0"))
	c.reveal("A", mint("ordi", "100"))
	s := c.reveal("A", transfer("ordi", "100")) // total unchanged: still a holder
	m.apply(t, c.block())
	if h := m.token(t, "ordi").Holders; h != 1 {
		t.Fatalf("holders %d", h)
	}
	c.move(s, Transferred, "B")
	m.apply(t, c.block())
	if h := m.token(t, "ordi").Holders; h != 1 || m.balance("ordi", "A") != "0/0" {
		t.Fatalf("holders %d, A %s", h, m.balance("ordi", "A"))
	}
}
