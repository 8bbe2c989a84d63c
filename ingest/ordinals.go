package ingest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/brc20"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/brc20store"
)

// PathOrdinals is where an ordinals indexer posts chainhook inscription_feed payloads.
const PathOrdinals = "/chainhook/ordinals"

// OrdinalsPayload is a decoded chainhook inscription_feed payload: blocks to roll back, then
// blocks to apply. Only the raw inscription reveals and moves are read; a precomputed
// brc20_operation in the payload is ignored, as the rules are applied here.
type OrdinalsPayload struct {
	Rollback []brc20.Block
	Apply    []brc20.Block
}

// OrdinalsResult counts what applying a payload did.
type OrdinalsResult struct {
	Applied, RolledBack, Skipped int // blocks
	Operations                   int // BRC-20 operations written by applied blocks
}

type chainhookPayload struct {
	Apply    []chainhookBlock `json:"apply"`
	Rollback []chainhookBlock `json:"rollback"`
}

type chainhookBlock struct {
	BlockIdentifier *struct {
		Index *int64 `json:"index"`
		Hash  string `json:"hash"`
	} `json:"block_identifier"`
	Timestamp    int64 `json:"timestamp"`
	Transactions []struct {
		TransactionIdentifier struct {
			Hash string `json:"hash"`
		} `json:"transaction_identifier"`
		Metadata struct {
			OrdinalOperations []struct {
				InscriptionRevealed    *chainhookReveal   `json:"inscription_revealed"`
				InscriptionTransferred *chainhookTransfer `json:"inscription_transferred"`
			} `json:"ordinal_operations"`
			Index *int32 `json:"index"`
		} `json:"metadata"`
	} `json:"transactions"`
}

type chainhookReveal struct {
	ContentBytes            string            `json:"content_bytes"`
	ContentType             string            `json:"content_type"`
	InscriptionNumber       inscriptionNumber `json:"inscription_number"`
	InscriptionID           string            `json:"inscription_id"`
	InscriberAddress        *string           `json:"inscriber_address"`
	Parent                  *string           `json:"parent"`
	Parents                 []string          `json:"parents"`
	OrdinalNumber           *int64            `json:"ordinal_number"`
	SatpointPostInscription string            `json:"satpoint_post_inscription"`
}

type chainhookTransfer struct {
	Destination struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"destination"`
	OrdinalNumber        *int64 `json:"ordinal_number"`
	SatpointPostTransfer string `json:"satpoint_post_transfer"`
}

// inscriptionNumber reads {"jubilee":…, "classic":…}, or a plain number as older payloads
// carried (the same for both).
type inscriptionNumber struct {
	Jubilee, Classic int64
	set              bool
}

func (n *inscriptionNumber) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
		var v struct {
			Jubilee *int64 `json:"jubilee"`
			Classic *int64 `json:"classic"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		if v.Jubilee == nil || v.Classic == nil {
			return fmt.Errorf("inscription_number needs jubilee and classic")
		}
		n.Jubilee, n.Classic, n.set = *v.Jubilee, *v.Classic, true
		return nil
	}
	if err := json.Unmarshal(b, &n.Jubilee); err != nil {
		return err
	}
	n.Classic, n.set = n.Jubilee, true
	return nil
}

// DecodeOrdinals decodes and checks a payload; anything malformed is an EINVALID error.
func DecodeOrdinals(body []byte) (*OrdinalsPayload, error) {
	var p chainhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "inscription payload: %v", err)
	}
	if p.Apply == nil && p.Rollback == nil {
		return nil, stxgraph.Errorf(stxgraph.EINVALID, "inscription payload: no apply or rollback blocks")
	}
	out := &OrdinalsPayload{}
	for _, list := range []struct {
		in  []chainhookBlock
		out *[]brc20.Block
	}{{p.Rollback, &out.Rollback}, {p.Apply, &out.Apply}} {
		for i, cb := range list.in {
			b, err := decodeOrdinalsBlock(cb)
			if err != nil {
				return nil, stxgraph.Errorf(stxgraph.EINVALID, "inscription payload block %d: %v", i, err)
			}
			*list.out = append(*list.out, b)
		}
	}
	return out, nil
}

func decodeOrdinalsBlock(cb chainhookBlock) (brc20.Block, error) {
	id := cb.BlockIdentifier
	if id == nil || id.Index == nil || *id.Index < 0 || *id.Index > 1<<31-1 {
		return brc20.Block{}, fmt.Errorf("block_identifier with an index is required")
	}
	hash, err := ordinalsHash(id.Hash)
	if err != nil {
		return brc20.Block{}, fmt.Errorf("block hash: %v", err)
	}
	b := brc20.Block{Height: int32(*id.Index), Hash: hash, Timestamp: cb.Timestamp}
	for i, ct := range cb.Transactions {
		txid, err := ordinalsHash(ct.TransactionIdentifier.Hash)
		if err != nil {
			return b, fmt.Errorf("transaction %d: txid: %v", i, err)
		}
		tx := brc20.Tx{ID: txid, Index: int32(i)}
		if ct.Metadata.Index != nil {
			tx.Index = *ct.Metadata.Index
		}
		for j, op := range ct.Metadata.OrdinalOperations {
			switch {
			case op.InscriptionRevealed != nil:
				rv, err := decodeReveal(op.InscriptionRevealed)
				if err != nil {
					return b, fmt.Errorf("transaction %s operation %d: %v", txid, j, err)
				}
				tx.Reveals = append(tx.Reveals, rv)
			case op.InscriptionTransferred != nil:
				mv, err := decodeMove(op.InscriptionTransferred)
				if err != nil {
					return b, fmt.Errorf("transaction %s operation %d: %v", txid, j, err)
				}
				tx.Moves = append(tx.Moves, mv)
			default:
				return b, fmt.Errorf("transaction %s operation %d: neither inscription_revealed nor inscription_transferred", txid, j)
			}
		}
		if len(tx.Reveals) > 0 || len(tx.Moves) > 0 {
			b.Txs = append(b.Txs, tx)
		}
	}
	return b, nil
}

func decodeReveal(r *chainhookReveal) (brc20.Reveal, error) {
	if r.InscriptionID == "" || !r.InscriptionNumber.set || r.OrdinalNumber == nil {
		return brc20.Reveal{}, fmt.Errorf("inscription_revealed needs inscription_id, inscription_number and ordinal_number")
	}
	content, err := hex.DecodeString(strings.TrimPrefix(r.ContentBytes, "0x"))
	if err != nil {
		return brc20.Reveal{}, fmt.Errorf("content_bytes: %v", err)
	}
	rv := brc20.Reveal{InscriptionID: r.InscriptionID, Number: r.InscriptionNumber.Jubilee, ClassicNumber: r.InscriptionNumber.Classic,
		ContentType: r.ContentType, Content: content, Sat: *r.OrdinalNumber, Location: r.SatpointPostInscription, Parents: r.Parents}
	if r.InscriberAddress != nil {
		rv.Address = *r.InscriberAddress
	}
	if r.Parent != nil && *r.Parent != "" {
		rv.Parents = append(rv.Parents, *r.Parent)
	}
	if hasNUL(append([]string{rv.InscriptionID, rv.Location, rv.Address}, rv.Parents...)...) {
		return brc20.Reveal{}, fmt.Errorf("a NUL character in a string")
	}
	return rv, nil
}

func decodeMove(t *chainhookTransfer) (brc20.Move, error) {
	if t.OrdinalNumber == nil {
		return brc20.Move{}, fmt.Errorf("inscription_transferred needs ordinal_number")
	}
	if hasNUL(t.Destination.Value, t.SatpointPostTransfer) {
		return brc20.Move{}, fmt.Errorf("a NUL character in a string")
	}
	mv := brc20.Move{Sat: *t.OrdinalNumber, Location: t.SatpointPostTransfer}
	switch t.Destination.Type {
	case "transferred":
		if t.Destination.Value == "" {
			return mv, fmt.Errorf("transferred destination without an address")
		}
		mv.Destination, mv.Address = brc20.Transferred, t.Destination.Value
	case "spent_in_fees":
		mv.Destination = brc20.SpentInFees
	case "burnt":
		mv.Destination = brc20.Burnt
	default:
		return mv, fmt.Errorf("unknown destination type %q", t.Destination.Type)
	}
	return mv, nil
}

// hasNUL reports a NUL character, which text columns cannot store, in any of the strings.
func hasNUL(ss ...string) bool {
	for _, s := range ss {
		if strings.ContainsRune(s, 0) {
			return true
		}
	}
	return false
}

// ordinalsHash strips the 0x of a hash or txid and checks it is 32 bytes of hex, lower-cased.
func ordinalsHash(s string) (string, error) {
	s = strings.ToLower(strings.TrimPrefix(s, "0x"))
	if b, err := hex.DecodeString(s); err != nil || len(b) != 32 {
		return "", fmt.Errorf("%q is not a 32-byte hex hash", s)
	}
	return s, nil
}

// ApplyOrdinals applies a payload in one database transaction: first its rollback blocks, from
// the highest, then its apply blocks, from the lowest. Blocks already applied (at or below the
// tip) and rollbacks of blocks not applied are skipped, so a payload can be replayed safely.
// Rolling back a block that has applied blocks above it is refused as EINVALID. Heights may
// jump: a feed only carries the blocks with inscription activity.
func ApplyOrdinals(ctx context.Context, store *db.Store, p *OrdinalsPayload) (OrdinalsResult, error) {
	var res OrdinalsResult
	rollback := append([]brc20.Block(nil), p.Rollback...)
	sort.SliceStable(rollback, func(i, j int) bool { return rollback[i].Height > rollback[j].Height })
	apply := append([]brc20.Block(nil), p.Apply...)
	sort.SliceStable(apply, func(i, j int) bool { return apply[i].Height < apply[j].Height })
	err := brc20store.Ingest(ctx, store, func(ctx context.Context, tx *brc20store.Tx) error {
		res = OrdinalsResult{}
		for _, b := range rollback {
			stored, err := tx.BlockHash(ctx, b.Height)
			if err != nil {
				return err
			}
			if stored != b.Hash {
				res.Skipped++ // never applied, or already rolled back
				continue
			}
			tip, _, _, err := tx.Tip(ctx)
			if err != nil {
				return err
			}
			if tip != b.Height {
				return stxgraph.Errorf(stxgraph.EINVALID, "cannot roll back block %d below the applied tip %d", b.Height, tip)
			}
			if err := tx.RollbackBlock(ctx, b.Height, b.Hash); err != nil {
				return err
			}
			res.RolledBack++
		}
		tip, tipHash, ok, err := tx.Tip(ctx)
		if err != nil {
			return err
		}
		for _, b := range apply {
			if ok && b.Height <= tip {
				if b.Height == tip && b.Hash != tipHash {
					slog.Warn("skipping an inscription block at the applied height with another hash; roll the applied one back first",
						"height", b.Height, "hash", b.Hash, "applied", tipHash)
				}
				res.Skipped++
				continue
			}
			ch, err := brc20.Process(ctx, tx, b)
			if err != nil {
				return err
			}
			if err := tx.ApplyBlock(ctx, ch); err != nil {
				return err
			}
			tip, tipHash, ok = b.Height, b.Hash, true
			res.Applied++
			res.Operations += len(ch.Operations)
		}
		return nil
	})
	return res, err
}
