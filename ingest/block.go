package ingest

import (
	"encoding/binary"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// blockData turns a /new_block message into the rows it writes.
func blockData(m *blockMessage) (*chainwrite.BlockData, error) {
	if len(m.IndexBlockHash) == 0 || len(m.BlockHash) == 0 {
		return nil, malformed("block without block_hash or index_block_hash")
	}
	blockTime := m.BurnBlockTime
	if m.BlockTime != nil {
		blockTime = *m.BlockTime
	}
	pos := position{
		IndexBlockHash: m.IndexBlockHash, BlockHash: m.BlockHash, ParentIndexBlockHash: nonNil(m.ParentIndexBlockHash),
		ParentBlockHash: nonNil(m.ParentBlockHash), BlockHeight: m.BlockHeight, BurnBlockHeight: m.BurnBlockHeight,
		BlockTime: blockTime, BurnBlockTime: m.BurnBlockTime, ParentBurnBlockTime: m.ParentBurnBlockTimestamp,
	}
	txs, err := buildTxs(pos, m.Transactions, m.Events)
	if err != nil {
		return nil, err
	}
	b := &db.Block{
		IndexBlockHash: m.IndexBlockHash, BlockHash: m.BlockHash, BlockHeight: m.BlockHeight,
		ParentIndexBlockHash: pos.ParentIndexBlockHash, ParentBlockHash: pos.ParentBlockHash,
		ParentMicroblockHash: nonNil(m.ParentMicroblock), ParentMicroblockSequence: m.ParentMicroblockSequence,
		BurnBlockHash: nonNil(m.BurnBlockHash), BurnBlockHeight: m.BurnBlockHeight, BurnBlockTime: m.BurnBlockTime,
		ParentBurnBlockHash: nonNil(m.ParentBurnBlockHash), ParentBurnBlockHeight: m.ParentBurnBlockHeight,
		ParentBurnBlockTime: m.ParentBurnBlockTimestamp, BlockTime: blockTime, MinerTxid: nonNil(m.MinerTxid),
		TenureHeight: m.TenureHeight, ConsensusHash: m.ConsensusHash, TxCount: int32(len(m.Transactions)),
		Canonical: true,
	}
	if m.SignerBitvec != nil {
		bits, err := signerBitvec(*m.SignerBitvec)
		if err != nil {
			return nil, err
		}
		b.SignerBitvec = &bits
	}
	for _, s := range m.SignerSignature {
		var h hexBytes
		if err := h.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
			return nil, malformed("signer_signature: %v", err)
		}
		b.SignerSignatures = append(b.SignerSignatures, h)
	}
	for _, t := range m.Transactions {
		if len(t.RawTx) != 1 {
			b.TxTotalSize += int32(len(t.RawTx))
		}
	}
	b.ExecutionCost = blockCost(m, txs)
	d := &chainwrite.BlockData{
		Block: b, Txs: txs,
		Microblocks:      microblocksOf(m.Transactions, pos.ParentIndexBlockHash, m.ParentBurnBlockHash, m.ParentBurnBlockHeight, m.ParentBurnBlockTimestamp),
		PoxUnlockHeights: [4]*int32{m.PoxV1UnlockHeight, m.PoxV2UnlockHeight, m.PoxV3UnlockHeight, m.PoxV4UnlockHeight},
	}
	if d.PoxSet, err = poxSet(m); err != nil {
		return nil, err
	}
	for _, mb := range d.Microblocks {
		mb.IndexBlockHash, mb.BlockHash, mb.BlockHeight = b.IndexBlockHash, b.BlockHash, b.BlockHeight
		mb.ParentBlockHeight, mb.ParentBlockHash = b.BlockHeight-1, b.ParentBlockHash
	}
	for i, r := range m.MaturedMinerRewards {
		miner := r.MinerAddress
		if miner == nil { // pre-2.1 nodes: the recipient is the miner
			miner = ptr(r.Recipient)
		}
		d.MinerRewards = append(d.MinerRewards, &db.MinerReward{
			IndexBlockHash: b.IndexBlockHash, BlockHash: nonNil(r.FromStacksBlockHash), FromIndexBlockHash: nonNil(r.FromIndexConsensusHash),
			MatureBlockHeight: b.BlockHeight, Canonical: true, Recipient: r.Recipient, MinerAddress: miner,
			CoinbaseAmount: r.CoinbaseAmount.orZero(), TxFeesAnchored: r.TxFeesAnchored.orZero(),
			TxFeesStreamedConfirmed: r.TxFeesStreamedConfirmed.orZero(), TxFeesStreamedProduced: r.TxFeesStreamedProduced.orZero(),
			RewardIndex: int16(i),
		})
	}
	return d, nil
}

// blockCost is the node's anchored_cost, or the sum of the transactions' costs for nodes that
// do not send it.
func blockCost(m *blockMessage, txs []*chainwrite.TxData) db.ExecutionCost {
	if m.AnchoredCost != nil {
		return db.ExecutionCost(*m.AnchoredCost)
	}
	var c db.ExecutionCost
	for _, t := range txs {
		e := t.Tx.ExecutionCost
		c.ReadCount += e.ReadCount
		c.ReadLength += e.ReadLength
		c.Runtime += e.Runtime
		c.WriteCount += e.WriteCount
		c.WriteLength += e.WriteLength
	}
	return c
}

// signerBitvec renders the node's serialized bit vector (u16 bit count, u32 byte count, bytes,
// least significant bit first) as a string of '0' and '1'.
func signerBitvec(s string) (string, error) {
	var raw hexBytes
	if err := raw.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil {
		return "", malformed("signer_bitvec: %v", err)
	}
	if len(raw) < 6 {
		return "", malformed("signer_bitvec is too short")
	}
	n := int(binary.BigEndian.Uint16(raw))
	data := raw[6:]
	if len(data)*8 < n {
		return "", malformed("signer_bitvec holds fewer than %d bits", n)
	}
	var out strings.Builder
	for i := range n {
		if data[i/8]&(1<<(i%8)) != 0 {
			out.WriteByte('1')
		} else {
			out.WriteByte('0')
		}
	}
	return out.String(), nil
}

func c32Address(version byte, hash []byte) string {
	var a c32.Address
	a.Version = version
	copy(a.Hash160[:], hash)
	return a.String()
}
