package brc20

import (
	"context"
	"math/big"
	"sort"
)

// State is the BRC-20 state as of the end of the previous block. Absent entries are simply left
// out of the answers.
type State interface {
	// Tokens returns the deployed tokens among the (lower-case) tickers.
	Tokens(ctx context.Context, tickers []string) (map[string]*Token, error)
	// Balances returns the existing balances among the keys.
	Balances(ctx context.Context, keys []BalanceKey) (map[BalanceKey]Balance, error)
	// Transferables returns the unsent transfer inscriptions on the sats.
	Transferables(ctx context.Context, sats []int64) ([]Transferable, error)
}

// Changes are the writes that apply one block.
type Changes struct {
	Height    int32
	Hash      string
	Timestamp int64 // seconds
	// Operations in the order they took effect; EventIndex numbers them from 0.
	Operations []Operation
	// Deployed are the tokens deployed in the block, Updated the earlier tokens whose minted
	// supply, operation count or holder count changed; both as they stand after the block.
	Deployed, Updated []*Token
	// Balances are the balances that changed, as they stand after the block; BalanceKeys lists
	// their keys in the order they first changed.
	Balances    map[BalanceKey]Balance
	BalanceKeys []BalanceKey
	// NewTransferables are transfer inscriptions of the block that are still unsent after it;
	// Sent are the inscription ids of earlier blocks' transfer inscriptions sent in it.
	NewTransferables []Transferable
	Sent             []string
}

// Process applies the rules to one block's inscription activity against the state before it.
// Within the block, operations take effect in transaction order, and inside a transaction the
// reveals before the moves of older inscriptions (as Hiro orders them); every balance check
// sees the effect of the operations before it.
func Process(ctx context.Context, st State, b Block) (*Changes, error) {
	ch := &Changes{Height: b.Height, Hash: b.Hash, Timestamp: b.Timestamp, Balances: map[BalanceKey]Balance{}}
	if b.Height < ActivationHeight {
		return ch, nil
	}
	txs := append([]Tx(nil), b.Txs...)
	sort.SliceStable(txs, func(i, j int) bool { return txs[i].Index < txs[j].Index })
	// Parse first, so that the state can be read in three batches.
	n := parseBlock(txs)
	r := &blockLedger{block: b, ch: ch, tokens: map[string]*Token{}, deployed: map[string]bool{}, touched: map[string]bool{},
		balances: map[BalanceKey]Balance{}, unsent: map[int64][]*Transferable{}, fresh: map[string]bool{}}
	if err := r.load(ctx, st, txs, n); err != nil {
		return nil, err
	}
	for i, tx := range txs {
		for j, rv := range tx.Reveals {
			if op := n.parsed[i][j]; op != nil {
				r.reveal(tx, rv, op)
			}
		}
		for _, mv := range tx.Moves {
			r.move(tx, mv)
		}
	}
	r.finish()
	return ch, nil
}

// blockNeeds is what a block's operations read from the state.
type blockNeeds struct {
	parsed     [][]*Op // by transaction and reveal; nil where the reveal is no operation
	tickers    map[string]bool
	keys       map[BalanceKey]bool
	satTickers map[int64][]BalanceKey // ticker and sender of transfer inscriptions by sat
	sats       []int64                // sats the block moves, each once
}

// parseBlock parses the block's reveals and lists the state they and its moves touch.
func parseBlock(txs []Tx) *blockNeeds {
	n := &blockNeeds{parsed: make([][]*Op, len(txs)), tickers: map[string]bool{}, keys: map[BalanceKey]bool{},
		satTickers: map[int64][]BalanceKey{}}
	satSeen := map[int64]bool{}
	for i, tx := range txs {
		n.parsed[i] = make([]*Op, len(tx.Reveals))
		for j, rv := range tx.Reveals {
			if !eligible(rv) {
				continue
			}
			op, ok := Parse(rv.ContentType, rv.Content)
			if !ok {
				continue
			}
			n.parsed[i][j] = &op
			n.tickers[op.Ticker] = true
			if op.Kind != Deploy {
				n.keys[BalanceKey{op.Ticker, rv.Address}] = true
			}
			if op.Kind == Transfer {
				n.satTickers[rv.Sat] = append(n.satTickers[rv.Sat], BalanceKey{op.Ticker, rv.Address})
			}
		}
		for _, mv := range tx.Moves {
			if !satSeen[mv.Sat] {
				satSeen[mv.Sat] = true
				n.sats = append(n.sats, mv.Sat)
			}
		}
	}
	return n
}

// load reads the state the block needs: the unsent transfer inscriptions on the sats it moves
// first, since their tickers and senders, and the receivers of the moves, add to the tokens and
// balances read next.
func (r *blockLedger) load(ctx context.Context, st State, txs []Tx, n *blockNeeds) error {
	if len(n.sats) > 0 {
		ts, err := st.Transferables(ctx, n.sats)
		if err != nil {
			return err
		}
		loaded := map[string]bool{}
		for i := range ts {
			t := ts[i]
			if loaded[t.InscriptionID] {
				continue
			}
			loaded[t.InscriptionID] = true
			r.unsent[t.Sat] = append(r.unsent[t.Sat], &t)
			n.tickers[t.Ticker] = true
			n.keys[BalanceKey{t.Ticker, t.Address}] = true
			n.satTickers[t.Sat] = append(n.satTickers[t.Sat], BalanceKey{t.Ticker, t.Address})
		}
	}
	for _, tx := range txs {
		for _, mv := range tx.Moves {
			for _, k := range n.satTickers[mv.Sat] {
				n.keys[BalanceKey{k.Ticker, receiver(mv, k.Address)}] = true
			}
		}
	}
	if len(n.tickers) > 0 {
		tokens, err := st.Tokens(ctx, sortedKeys(n.tickers))
		if err != nil {
			return err
		}
		r.tokens = tokens
	}
	if len(n.keys) > 0 {
		ks := make([]BalanceKey, 0, len(n.keys))
		for k := range n.keys {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool {
			return ks[i].Ticker < ks[j].Ticker || ks[i].Ticker == ks[j].Ticker && ks[i].Address < ks[j].Address
		})
		bs, err := st.Balances(ctx, ks)
		if err != nil {
			return err
		}
		r.balances = bs
	}
	return nil
}

// eligible tells whether a reveal can be an operation at all. Cursed inscriptions never count,
// even once the Jubilee gave them positive numbers (Hiro checks the classic number). A reveal
// whose output has no address (spent as fee, OP_RETURN, a bare script) is ignored, as Hiro does;
// other indexers credit the script.
func eligible(rv Reveal) bool {
	return rv.Address != "" && rv.ClassicNumber >= 0
}

// receiver is who a send of a transfer inscription credits: the new owner, the sender again when
// the inscription went to fees, and for a burn (no address) the empty address, which Hiro counts
// like any holder.
func receiver(mv Move, sender string) string {
	switch mv.Destination {
	case SpentInFees:
		return sender
	case Burnt:
		return ""
	}
	return mv.Address
}

// blockLedger is the state one block is processed against, as its operations leave it: the
// tokens, balances and unsent transfer inscriptions it reads (loaded once, then kept current),
// and the Changes it builds.
type blockLedger struct {
	block    Block
	ch       *Changes
	tokens   map[string]*Token
	deployed map[string]bool // tickers deployed in this block
	touched  map[string]bool // tickers whose token row changed
	balances map[BalanceKey]Balance
	unsent   map[int64][]*Transferable
	fresh    map[string]bool // transfer inscriptions of this block
}

func (r *blockLedger) reveal(tx Tx, rv Reveal, op *Op) {
	tok := r.tokens[op.Ticker]
	switch op.Kind {
	case Deploy:
		// The first deploy of a ticker, in any letter case, wins.
		if tok != nil || op.SelfMint && r.block.Height < SelfMintActivationHeight {
			return
		}
		tok = &Token{Ticker: op.Ticker, DisplayTicker: op.DisplayTick, InscriptionID: rv.InscriptionID,
			InscriptionNumber: rv.Number, BlockHeight: r.block.Height, BlockHash: r.block.Hash, TxID: tx.ID,
			TxIndex: tx.Index, Address: rv.Address, Max: op.Max, Limit: op.Limit, Decimals: op.Decimals,
			SelfMint: op.SelfMint, Minted: new(big.Int), TxCount: 1, DeployTimestamp: r.block.Timestamp * 1000}
		r.tokens[op.Ticker] = tok
		r.deployed[op.Ticker] = true
		r.emit(OpDeploy, tx, rv.InscriptionID, rv.Number, rv.Sat, rv.Location, op.Ticker, rv.Address, nil, op.Max)
	case Mint:
		if tok == nil {
			return // not deployed (yet): a mint before the deploy in the same block is invalid too
		}
		// A 5-byte ticker is a self-mint token: only children of its deploy inscription mint it.
		if len(op.Ticker) == 5 && !contains(rv.Parents, tok.InscriptionID) {
			return
		}
		amt, ok := r.amount(op.Amount, tok)
		if !ok || amt.Cmp(tok.Limit) > 0 {
			return
		}
		remaining := new(big.Int).Sub(tok.Max, tok.Minted)
		if remaining.Sign() <= 0 {
			return
		}
		if amt.Cmp(remaining) > 0 {
			amt = remaining // the last mint gets what is left
		}
		tok.Minted = new(big.Int).Add(tok.Minted, amt)
		tok.TxCount++
		r.touched[tok.Ticker] = true
		r.adjust(BalanceKey{tok.Ticker, rv.Address}, amt, nil)
		r.emit(OpMint, tx, rv.InscriptionID, rv.Number, rv.Sat, rv.Location, tok.Ticker, rv.Address, nil, amt)
	case Transfer:
		if tok == nil {
			return
		}
		amt, ok := r.amount(op.Amount, tok)
		if !ok {
			return
		}
		key := BalanceKey{tok.Ticker, rv.Address}
		if r.balance(key).Avail.Cmp(amt) < 0 {
			return // checked once, at the reveal: the inscription stays invalid forever
		}
		tok.TxCount++
		r.touched[tok.Ticker] = true
		r.adjust(key, new(big.Int).Neg(amt), amt)
		t := &Transferable{InscriptionID: rv.InscriptionID, InscriptionNumber: rv.Number, Sat: rv.Sat,
			Ticker: tok.Ticker, Address: rv.Address, Amount: amt, BlockHeight: r.block.Height, TxIndex: tx.Index}
		r.unsent[rv.Sat] = append(r.unsent[rv.Sat], t)
		r.fresh[rv.InscriptionID] = true
		r.emit(OpTransfer, tx, rv.InscriptionID, rv.Number, rv.Sat, rv.Location, tok.Ticker, rv.Address, nil, amt)
	}
}

// move settles the first move of unsent transfer inscriptions on the sat; later moves of a sent
// inscription find nothing here and do nothing.
func (r *blockLedger) move(tx Tx, mv Move) {
	ts := r.unsent[mv.Sat]
	if len(ts) == 0 {
		return
	}
	delete(r.unsent, mv.Sat)
	sort.SliceStable(ts, func(i, j int) bool {
		return ts[i].BlockHeight < ts[j].BlockHeight || ts[i].BlockHeight == ts[j].BlockHeight && ts[i].TxIndex < ts[j].TxIndex
	})
	for _, t := range ts {
		tok := r.tokens[t.Ticker]
		if tok == nil {
			continue // cannot happen with consistent state
		}
		to := receiver(mv, t.Address)
		r.adjust(BalanceKey{t.Ticker, t.Address}, nil, new(big.Int).Neg(t.Amount))
		r.adjust(BalanceKey{t.Ticker, to}, t.Amount, nil)
		tok.TxCount++
		r.touched[tok.Ticker] = true
		if r.fresh[t.InscriptionID] {
			delete(r.fresh, t.InscriptionID)
		} else {
			r.ch.Sent = append(r.ch.Sent, t.InscriptionID)
		}
		toCopy := to
		r.emit(OpTransferSend, tx, t.InscriptionID, t.InscriptionNumber, t.Sat, mv.Location, t.Ticker, t.Address, &toCopy, t.Amount)
		r.emit(OpTransferReceive, tx, t.InscriptionID, t.InscriptionNumber, t.Sat, mv.Location, t.Ticker, to, nil, t.Amount)
	}
}

// amount scales a mint or transfer amount to the token, failing when it has more fractional
// digits than the token's decimals.
func (r *blockLedger) amount(s string, tok *Token) (*big.Int, bool) {
	if _, ok := numeric(s, tok.Decimals); !ok {
		return nil, false
	}
	return Scale(s, tok.Decimals), true
}

func (r *blockLedger) balance(k BalanceKey) Balance {
	b, ok := r.balances[k]
	if !ok || b.Avail == nil {
		return Balance{Avail: new(big.Int), Trans: new(big.Int)}
	}
	return b
}

// adjust changes a balance and keeps the token's holder count (positive totals) in step.
func (r *blockLedger) adjust(k BalanceKey, dAvail, dTrans *big.Int) {
	b := r.balance(k)
	before := b.Total().Sign() > 0
	nb := Balance{Avail: new(big.Int).Set(b.Avail), Trans: new(big.Int).Set(b.Trans)}
	if dAvail != nil {
		nb.Avail.Add(nb.Avail, dAvail)
	}
	if dTrans != nil {
		nb.Trans.Add(nb.Trans, dTrans)
	}
	r.balances[k] = nb
	if _, seen := r.ch.Balances[k]; !seen {
		r.ch.BalanceKeys = append(r.ch.BalanceKeys, k)
	}
	r.ch.Balances[k] = nb
	if after := nb.Total().Sign() > 0; after != before {
		tok := r.tokens[k.Ticker]
		if after {
			tok.Holders++
		} else {
			tok.Holders--
		}
		r.touched[k.Ticker] = true
	}
}

func (r *blockLedger) emit(kind string, tx Tx, id string, number, sat int64, location, ticker, address string, to *string, amt *big.Int) {
	r.ch.Operations = append(r.ch.Operations, Operation{Kind: kind, InscriptionID: id, InscriptionNumber: number, Sat: sat,
		Ticker: ticker, BlockHeight: r.block.Height, BlockHash: r.block.Hash, TxID: tx.ID, TxIndex: tx.Index,
		EventIndex: int32(len(r.ch.Operations)), Location: location, Address: address, ToAddress: to,
		Amount: new(big.Int).Set(amt), Timestamp: r.block.Timestamp * 1000})
}

func (r *blockLedger) finish() {
	for _, t := range sortedKeys(r.deployed) {
		r.ch.Deployed = append(r.ch.Deployed, r.tokens[t])
	}
	for _, t := range sortedKeys(r.touched) {
		if !r.deployed[t] {
			r.ch.Updated = append(r.ch.Updated, r.tokens[t])
		}
	}
	// Transfer inscriptions of this block still unsent, in the order they were inscribed.
	for _, op := range r.ch.Operations {
		if op.Kind == OpTransfer && r.fresh[op.InscriptionID] {
			for _, t := range r.unsent[op.Sat] {
				if t.InscriptionID == op.InscriptionID {
					r.ch.NewTransferables = append(r.ch.NewTransferables, *t)
				}
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
