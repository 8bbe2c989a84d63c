package ingest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/chainwrite"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

// anchoredSequence is the microblock_sequence of transactions mined in an anchor block.
const anchoredSequence = math.MaxInt32

// position is where a batch of transactions was mined: an anchor block, or (with empty
// hashes and heights that the store fills in) the unconfirmed microblock stream.
type position struct {
	IndexBlockHash, BlockHash, ParentIndexBlockHash, ParentBlockHash []byte
	BlockHeight, BurnBlockHeight                                     int32
	BlockTime, BurnBlockTime, ParentBurnBlockTime                    int64
}

var txStatuses = map[string]int16{
	"success":                 db.TxStatusSuccess,
	"abort_by_response":       db.TxStatusAbortByResponse,
	"abort_by_post_condition": db.TxStatusAbortByPostCondition,
	"problematic_skipped":     db.TxStatusProblematicSkipped,
}

// buildTxs turns the node's transactions and events into rows. Only committed events of
// successful transactions are kept, renumbered 0..n-1 per transaction in the node's order.
func buildTxs(pos position, msgs []txMessage, events []eventMessage) ([]*chainwrite.TxData, error) {
	byTx := map[string][]eventMessage{}
	for _, e := range events {
		if e.Committed {
			byTx[string(e.TxID)] = append(byTx[string(e.TxID)], e)
		}
	}
	out := make([]*chainwrite.TxData, 0, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		status, ok := txStatuses[m.Status]
		if !ok {
			return nil, malformed("transaction %s: unknown status %q", db.Hex(m.TxID), m.Status)
		}
		evs := byTx[string(m.TxID)]
		if status != db.TxStatusSuccess {
			evs = nil
		}
		sort.SliceStable(evs, func(a, b int) bool { return evs[a].EventIndex < evs[b].EventIndex })
		d, err := buildTx(pos, m, status, evs)
		if err != nil {
			return nil, fmt.Errorf("transaction %s: %w", db.Hex(m.TxID), err)
		}
		if d != nil {
			out = append(out, d)
		}
	}
	return out, nil
}

func buildTx(pos position, m *txMessage, status int16, evs []eventMessage) (*chainwrite.TxData, error) {
	mbHash, mbSeq, err := microblockOf(m)
	if err != nil {
		return nil, err
	}
	var decoded *tx.Transaction
	var sender string
	synthetic := isSynthetic(m.RawTx)
	if synthetic {
		// A Bitcoin-originated operation: the node sends no bytes, so the transaction is
		// rebuilt from its events as the reference does.
		if decoded, sender, err = synthesize(m, evs, pos.BurnBlockHeight); err != nil || decoded == nil {
			return nil, err
		}
	} else if decoded, err = tx.Decode(m.RawTx); err != nil {
		return nil, malformed("undecodable raw_tx: %v", err)
	}
	fields := txFields(m.RawTx, decoded)
	if synthetic {
		fields.RawTx, fields.SenderAddress = decoded.Encode(), sender
	}
	row := &db.Tx{
		TxID: m.TxID, IndexBlockHash: pos.IndexBlockHash, MicroblockHash: mbHash, TxIndex: m.TxIndex,
		Status: status, RawResult: m.RawResult, VMError: cleanVMError(m.VMError),
		Canonical: true, MicroblockCanonical: true, MicroblockSequence: mbSeq,
		BlockHash: pos.BlockHash, BlockHeight: pos.BlockHeight, BlockTime: pos.BlockTime,
		ParentIndexBlockHash: pos.ParentIndexBlockHash, ParentBlockHash: pos.ParentBlockHash,
		BurnBlockHeight: pos.BurnBlockHeight, BurnBlockTime: pos.BurnBlockTime, ParentBurnBlockTime: pos.ParentBurnBlockTime,
		CoinbaseAltRecipient: coinbaseRecipient(decoded), EventCount: int32(len(evs)), TxFields: fields,
		ExecutionCost: db.ExecutionCost(m.ExecutionCost),
	}
	if row.RawResult == nil {
		row.RawResult = []byte{}
	}
	d := &chainwrite.TxData{Tx: row}
	if err := addEvents(d, evs); err != nil {
		return nil, err
	}
	row.EventKinds = d.EventKinds()
	if sc, ok := decoded.Payload.(*tx.SmartContract); ok && status == db.TxStatusSuccess {
		d.SmartContracts = append(d.SmartContracts, smartContractRow(row, sc, m))
	}
	d.Principals = principalRoles(d)
	return d, nil
}

// isSynthetic says whether raw is the placeholder of a Bitcoin-originated operation, which the
// node sends without transaction bytes.
func isSynthetic(raw []byte) bool { return len(raw) == 1 && raw[0] == 0 }

// rawChainID is the chain id of a transaction tx.Decode accepted: the u32 after the version
// byte.
func rawChainID(raw []byte) uint32 { return binary.BigEndian.Uint32(raw[1:5]) }

// microblockOf reads the microblock fields, which are all null (anchored) or all set.
func microblockOf(m *txMessage) ([]byte, int32, error) {
	switch {
	case m.MicroblockHash == nil && m.MicroblockSequence == nil && m.MicroblockParentHash == nil:
		return []byte{}, anchoredSequence, nil
	case m.MicroblockHash != nil && m.MicroblockSequence != nil && m.MicroblockParentHash != nil:
		return m.MicroblockHash, *m.MicroblockSequence, nil
	}
	return nil, 0, malformed("microblock_hash, microblock_sequence and microblock_parent_hash must be all set or all null")
}

// cleanVMError drops NUL bytes, which PostgreSQL text cannot hold (the reference does too).
func cleanVMError(s *string) *string {
	if s == nil {
		return nil
	}
	v := strings.ReplaceAll(*s, "\x00", "")
	return &v
}

// txFields derives the columns the API reads from a transaction's bytes.
func txFields(raw []byte, t *tx.Transaction) db.TxFields {
	f := db.TxFields{
		RawTx:             raw,
		TypeID:            int16(t.Payload.Type()),
		Nonce:             strconv.FormatUint(t.Nonce(), 10),
		FeeRate:           strconv.FormatUint(t.FeeRate(), 10),
		SenderAddress:     t.SenderAddress(),
		AnchorMode:        int16(t.AnchorMode),
		PostConditionMode: int16(t.PostConditionMode),
	}
	if addr, ok := t.SponsorAddress(); ok {
		n, _ := t.SponsorNonce()
		f.Sponsored, f.SponsorAddress, f.SponsorNonce = true, &addr, ptr(strconv.FormatUint(n, 10))
	}
	switch p := t.Payload.(type) {
	case *tx.TokenTransfer:
		f.TokenTransferRecipientAddress = ptr(p.Recipient.String())
		f.TokenTransferAmount = ptr(strconv.FormatUint(p.Amount, 10))
	case *tx.SmartContract:
		f.SmartContractContractID = ptr(f.SenderAddress + "." + p.Name)
	case *tx.ContractCall:
		f.ContractCallContractID = ptr(p.Contract.String())
		f.ContractCallFunctionName = ptr(p.FunctionName)
	}
	return f
}

func coinbaseRecipient(t *tx.Transaction) *string {
	if c, ok := t.Payload.(*tx.Coinbase); ok && c.Recipient != nil {
		return ptr(c.Recipient.String())
	}
	return nil
}

func smartContractRow(row *db.Tx, sc *tx.SmartContract, m *txMessage) *db.SmartContract {
	var version *int16
	if sc.ClarityVersion > 0 {
		version = ptr(int16(sc.ClarityVersion))
	}
	abi := m.ContractInterface
	if isNull(abi) {
		abi = m.ContractABI
	}
	if isNull(abi) {
		abi = nil
	} else if s := ""; json.Unmarshal(abi, &s) == nil {
		abi = json.RawMessage(s) // some nodes send the interface as a JSON string
	}
	return &db.SmartContract{
		ContractID: *row.SmartContractContractID, TxID: row.TxID, IndexBlockHash: row.IndexBlockHash,
		MicroblockHash: row.MicroblockHash, BlockHeight: row.BlockHeight, Canonical: true, MicroblockCanonical: true,
		ClarityVersion: version, SourceCode: string(sc.Code), ABI: abi,
	}
}

func isNull(m json.RawMessage) bool { return len(m) == 0 || string(m) == "null" }

// addEvents turns the transaction's committed events into rows; event_index is the position
// in the transaction's event list.
func addEvents(d *chainwrite.TxData, evs []eventMessage) error {
	t := d.Tx
	for i, e := range evs {
		pos := db.EventPosition{
			TxID: t.TxID, IndexBlockHash: t.IndexBlockHash, MicroblockHash: t.MicroblockHash, EventIndex: int32(i),
			TxIndex: t.TxIndex, BlockHeight: t.BlockHeight, MicroblockSequence: t.MicroblockSequence,
			Canonical: true, MicroblockCanonical: true,
		}
		if err := addEvent(d, pos, &e); err != nil {
			return fmt.Errorf("event %d (%s): %w", e.EventIndex, e.Type, err)
		}
	}
	return nil
}

func addEvent(d *chainwrite.TxData, pos db.EventPosition, e *eventMessage) error {
	stx := func(kind int16, a *assetEvent) {
		d.StxEvents = append(d.StxEvents, &db.StxEvent{EventPosition: pos, AssetEventTypeID: kind,
			Sender: a.Sender, Recipient: a.Recipient, Amount: a.Amount.orZero(), Memo: a.Memo})
	}
	ft := func(kind int16, a *assetEvent) {
		d.FtEvents = append(d.FtEvents, &db.FtEvent{EventPosition: pos, AssetEventTypeID: kind,
			AssetIdentifier: a.AssetIdentifier, Sender: a.Sender, Recipient: a.Recipient, Amount: a.Amount.orZero()})
	}
	nft := func(kind int16, a *assetEvent) {
		d.NftEvents = append(d.NftEvents, &db.NftEvent{EventPosition: pos, AssetEventTypeID: kind,
			AssetIdentifier: a.AssetIdentifier, Sender: a.Sender, Recipient: a.Recipient, Value: nonNil(a.RawValue)})
	}
	switch {
	case e.ContractEvent != nil:
		c := e.ContractEvent
		d.ContractLogs = append(d.ContractLogs, &db.ContractLog{EventPosition: pos,
			ContractIdentifier: c.ContractIdentifier, Topic: c.Topic, Value: nonNil(c.RawValue)})
		if p := decodePoxEvent(c.ContractIdentifier, c.Topic, c.RawValue); p != nil {
			p.EventPosition = pos
			d.PoxEvents = append(d.PoxEvents, p)
		}
	case e.StxTransferEvent != nil:
		stx(db.AssetEventTransfer, e.StxTransferEvent)
	case e.StxMintEvent != nil:
		stx(db.AssetEventMint, e.StxMintEvent)
	case e.StxBurnEvent != nil:
		stx(db.AssetEventBurn, e.StxBurnEvent)
	case e.StxLockEvent != nil:
		l := e.StxLockEvent
		unlock, err := strconv.ParseInt(l.UnlockHeight.orZero(), 10, 32)
		if err != nil {
			return malformed("unlock_height %q: %v", l.UnlockHeight, err)
		}
		d.StxLockEvents = append(d.StxLockEvents, &db.StxLockEvent{EventPosition: pos,
			LockedAmount: l.LockedAmount.orZero(), UnlockHeight: int32(unlock), LockedAddress: l.LockedAddress,
			ContractName: poxContractName(l.ContractIdentifier)})
	case e.FtTransferEvent != nil:
		ft(db.AssetEventTransfer, e.FtTransferEvent)
	case e.FtMintEvent != nil:
		ft(db.AssetEventMint, e.FtMintEvent)
	case e.FtBurnEvent != nil:
		ft(db.AssetEventBurn, e.FtBurnEvent)
	case e.NftTransferEvent != nil:
		nft(db.AssetEventTransfer, e.NftTransferEvent)
	case e.NftMintEvent != nil:
		nft(db.AssetEventMint, e.NftMintEvent)
	case e.NftBurnEvent != nil:
		nft(db.AssetEventBurn, e.NftBurnEvent)
	default:
		return malformed("unknown event type %q", e.Type)
	}
	return nil
}

// poxContractName is the contract name of a lock event's PoX contract ("pox" before 2.1,
// when the node did not name it).
func poxContractName(contractID string) string {
	if _, name, ok := strings.Cut(contractID, "."); ok {
		return name
	}
	return "pox"
}

func ptr[T any](v T) *T { return &v }

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
