package rest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"

	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/respcache"
	"github.com/stxgraph/stxgraph/stacks/c32"
)

// The reference's v2 address, contract status and mempool fee paths.
func v2AddressRoutes() []route {
	return []route{
		{path: "/extended/v2/addresses/{address}/transactions", reads: respcache.Chain | respcache.Mempool, parse: v2AddressTxsParams},
		{
			path: "/extended/v2/addresses/{address}/transactions/{tx_id}/events", op: "V2AddressTransactionEvents", tagOp: "ChainTipTag",
			reads: respcache.Chain, params: v2AddressEventsParams, etag: chainTipETag, body: v2AddressEventsBody,
		},
		{
			path: "/extended/v2/addresses/{principal}/balances/stx", op: "V2PrincipalStxBalance", tagOp: "V2PrincipalStxBalanceTag",
			reads: respcache.Chain | respcache.Mempool, params: v2StxBalanceParams, etag: v2StxBalanceETag, body: v2StxBalanceBody,
		},
		{
			path: "/extended/v2/smart-contracts/status", op: "V2ContractStatuses", tagOp: "ChainTipTag",
			reads: respcache.Chain | respcache.Mempool, params: v2ContractStatusParams, etag: chainTipETag, body: v2ContractStatusBody,
		},
		{
			path: "/extended/v2/mempool/fees", op: "V2MempoolFees", tagOp: "MempoolTag", reads: respcache.Mempool,
			params: func(*http.Request) (map[string]any, error) { return map[string]any{}, nil },
			etag:   func(d json.RawMessage) string { return decodeTag[mempoolTag](d, "tip").etag() },
			body:   v2MempoolFeesBody,
		},
	}
}

// v2Address reads the address path parameter (a standard or contract principal).
func v2Address(r *http.Request) (string, error) {
	a := mux.Vars(r)["address"]
	if !principalPrefix.MatchString(a) {
		return "", principalSchemaError("params/address")
	}
	return a, nil
}

func v2AddressEventsParams(r *http.Request) (map[string]any, error) {
	a, err := v2Address(r)
	if err != nil {
		return nil, err
	}
	id := mux.Vars(r)["tx_id"]
	if !txIDPattern.MatchString(id) {
		return nil, schemaError(`params/tx_id must match pattern "^(0x)?[a-fA-F0-9]{64}$"`)
	}
	txID, err := hexInput(id)
	if err != nil {
		return nil, err
	}
	q := query(r.URL.Query())
	vars := map[string]any{"principal": a, "valid": c32.ValidPrincipalLenient(a), "txId": "0x" + hex.EncodeToString(txID)}
	if vars["limit"], err = q.limit("limit", txLimit, resolvers.MaxAccountTxsPage); err != nil {
		return nil, err
	}
	if vars["offset"], err = q.offset("offset"); err != nil {
		return nil, err
	}
	return vars, nil
}

// assetEvent is an asset event of the address events page as the operation returns it.
type assetEvent struct {
	Asset           string        `json:"asset"`
	EventIndex      int           `json:"eventIndex"`
	Type            string        `json:"type"`
	Amount          *string       `json:"amount"`
	AssetIdentifier *string       `json:"assetIdentifier"`
	Value           *clarityValue `json:"value"`
	Sender          *string       `json:"sender"`
	Recipient       *string       `json:"recipient"`
}

// clarityValue is a Clarity value as the reference renders it.
type clarityValue struct {
	Hex  string `json:"hex"`
	Repr string `json:"repr"`
}

// The reference's shapes of an address event, per asset class, in its key order; a missing
// sender (mint) or recipient (burn) is left out.
type (
	stxEventData struct {
		Type      string  `json:"type"`
		Amount    string  `json:"amount"`
		Sender    *string `json:"sender,omitempty"`
		Recipient *string `json:"recipient,omitempty"`
	}
	ftEventData struct {
		Type            string  `json:"type"`
		Amount          string  `json:"amount"`
		AssetIdentifier string  `json:"asset_identifier"`
		Sender          *string `json:"sender,omitempty"`
		Recipient       *string `json:"recipient,omitempty"`
	}
	nftEventData struct {
		Type            string        `json:"type"`
		AssetIdentifier string        `json:"asset_identifier"`
		Value           *clarityValue `json:"value"`
		Sender          *string       `json:"sender,omitempty"`
		Recipient       *string       `json:"recipient,omitempty"`
	}
	addressEvent struct {
		Type       string `json:"type"`
		EventIndex int    `json:"event_index"`
		Data       any    `json:"data"`
	}
)

func (e assetEvent) render() addressEvent {
	out := addressEvent{Type: e.Asset, EventIndex: e.EventIndex}
	switch e.Asset {
	case "stx":
		out.Data = stxEventData{Type: e.Type, Amount: deref(e.Amount), Sender: e.Sender, Recipient: e.Recipient}
	case "ft":
		out.Data = ftEventData{Type: e.Type, Amount: deref(e.Amount), AssetIdentifier: deref(e.AssetIdentifier), Sender: e.Sender, Recipient: e.Recipient}
	default:
		out.Data = nftEventData{Type: e.Type, AssetIdentifier: deref(e.AssetIdentifier), Value: e.Value, Sender: e.Sender, Recipient: e.Recipient}
	}
	return out
}

func v2AddressEventsBody(vars map[string]any, data json.RawMessage) ([]byte, error) {
	if vars["valid"] == false {
		return unknownAddressEvents(vars, data)
	}
	var page struct {
		Total   int          `json:"total"`
		Results []assetEvent `json:"results"`
	}
	if err := json.Unmarshal(pick(data, "account", "page"), &page); err != nil {
		return nil, err
	}
	out := make([]addressEvent, len(page.Results))
	for i, e := range page.Results {
		out[i] = e.render()
	}
	results, err := marshal(out)
	if err != nil {
		return nil, err
	}
	return wrapPage(vars, "results", results, &page.Total), nil
}

// unknownAddressEvents answers for an address that cannot occur: an empty page when the
// transaction is mined (canonical), else not found.
func unknownAddressEvents(vars map[string]any, data json.RawMessage) ([]byte, error) {
	var lookups []struct {
		Result *struct {
			Typename string `json:"__typename"`
		} `json:"result"`
	}
	if err := json.Unmarshal(pick(data, "lookup"), &lookups); err != nil {
		return nil, err
	}
	if len(lookups) == 0 || lookups[0].Result == nil || lookups[0].Result.Typename != "Transaction" {
		return nil, stxgraph.Errorf(stxgraph.ENOTFOUND, "Transaction not found")
	}
	total := 0
	return wrapPage(vars, "results", []byte("[]"), &total), nil
}

func v2StxBalanceParams(r *http.Request) (map[string]any, error) {
	p := mux.Vars(r)["principal"]
	if !principalPrefix.MatchString(p) {
		return nil, principalSchemaError("params/principal")
	}
	include, err := query(r.URL.Query()).boolean("include_mempool")
	if err != nil {
		return nil, err
	}
	return map[string]any{"principal": p, "includeMempool": include}, nil
}

// stxBalance is the v2 STX balance in the reference's key order; the mempool figures only when
// asked for.
type stxBalance struct {
	Balance                   string  `json:"balance"`
	TotalMinerRewardsReceived string  `json:"total_miner_rewards_received"`
	LockTxID                  string  `json:"lock_tx_id"`
	Locked                    string  `json:"locked"`
	LockHeight                int     `json:"lock_height"`
	BurnchainLockHeight       int     `json:"burnchain_lock_height"`
	BurnchainUnlockHeight     int     `json:"burnchain_unlock_height"`
	EstimatedBalance          *string `json:"estimated_balance,omitempty"`
	PendingBalanceInbound     *string `json:"pending_balance_inbound,omitempty"`
	PendingBalanceOutbound    *string `json:"pending_balance_outbound,omitempty"`
}

// v2StxBalanceBody renders the balance with the pox-4 lock, dated at the tip block's burn
// height, as the reference's v2 balance reads it.
func v2StxBalanceBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	var d struct {
		TipBlock struct {
			BurnBlockHeight int `json:"burnBlockHeight"`
		} `json:"tipBlock"`
		Account struct {
			Balance struct {
				Balance                   string  `json:"balance"`
				TotalMinerRewardsReceived string  `json:"total_miner_rewards_received"`
				EstimatedBalance          *string `json:"estimated_balance"`
				PendingBalanceInbound     *string `json:"pending_balance_inbound"`
				PendingBalanceOutbound    *string `json:"pending_balance_outbound"`
			} `json:"balance"`
			Lock *struct {
				TxID                  string `json:"txId"`
				Locked                string `json:"locked"`
				BlockHeight           int    `json:"blockHeight"`
				BurnchainUnlockHeight int    `json:"burnchainUnlockHeight"`
			} `json:"lock"`
		} `json:"account"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	b := d.Account.Balance
	out := stxBalance{Balance: b.Balance, TotalMinerRewardsReceived: b.TotalMinerRewardsReceived, Locked: "0",
		EstimatedBalance: b.EstimatedBalance, PendingBalanceInbound: b.PendingBalanceInbound, PendingBalanceOutbound: b.PendingBalanceOutbound}
	if l := d.Account.Lock; l != nil {
		out.LockTxID, out.Locked, out.LockHeight = l.TxID, l.Locked, l.BlockHeight
		out.BurnchainLockHeight, out.BurnchainUnlockHeight = d.TipBlock.BurnBlockHeight, l.BurnchainUnlockHeight
	}
	return marshal(out)
}

// v2StxBalanceETag follows the principal (its transactions, pending ones and lock) when the
// mempool is asked for, else the chain tip, as the reference does.
func v2StxBalanceETag(d json.RawMessage) string {
	if len(pick(d, "account", "latestTxId")) > 0 {
		return accountTag(d).etag(true)
	}
	return chainTipETag(d)
}

// contractIDPattern is the reference's request-schema pattern for a contract id (its "." is
// any character).
var contractIDPattern = regexp.MustCompile(`^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}.[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}$`)

func v2ContractStatusParams(r *http.Request) (map[string]any, error) {
	ids := r.URL.Query()["contract_id"]
	if len(ids) == 0 {
		return nil, schemaError("querystring must have required property 'contract_id'")
	}
	for i, id := range ids {
		if !contractIDPattern.MatchString(id) {
			return nil, contractIDSchemaError(i, len(ids))
		}
	}
	return map[string]any{"ids": ids}, nil
}

// contractIDSchemaError is the reference's message for the contract id at index i of n given
// that does not match its pattern. Its schema takes a list or a single id: the list fails at
// that index, and the single id fails its pattern (one id, unwrapped) or its type (several).
func contractIDSchemaError(i, n int) error {
	single := fmt.Sprintf(`querystring/contract_id must match pattern "%s"`, contractIDPattern)
	if n > 1 {
		single = "querystring/contract_id must be string"
	}
	return schemaError(`querystring/contract_id/%d must match pattern "%s", %s, querystring/contract_id must match a schema in anyOf`,
		i, contractIDPattern, single)
}

// v2ContractStatusBody renders the statuses as an object keyed by contract id, in the order
// the operation lists them.
func v2ContractStatusBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	var statuses []struct {
		ContractID  string `json:"contractId"`
		Found       bool   `json:"found"`
		Status      string `json:"status"`
		TxID        string `json:"txId"`
		BlockHeight *int   `json:"blockHeight"`
	}
	if err := json.Unmarshal(pick(data, "statuses"), &statuses); err != nil {
		return nil, err
	}
	type result struct {
		Status      string `json:"status"`
		TxID        string `json:"tx_id"`
		ContractID  string `json:"contract_id"`
		BlockHeight *int   `json:"block_height,omitempty"`
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range statuses {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshal(s.ContractID)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		if !s.Found {
			b.WriteString(`:{"found":false}`)
			continue
		}
		r, err := marshal(result{Status: s.Status, TxID: s.TxID, ContractID: s.ContractID, BlockHeight: s.BlockHeight})
		if err != nil {
			return nil, err
		}
		b.WriteString(`:{"found":true,"result":`)
		b.Write(r)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// feePriorities are a kind's fee priorities; the operation carries them as decimal strings
// (decoded as numbers) and the reference sends numbers.
type feePriorities struct {
	No     json.Number `json:"no_priority"`
	Low    json.Number `json:"low_priority"`
	Medium json.Number `json:"medium_priority"`
	High   json.Number `json:"high_priority"`
}

func v2MempoolFeesBody(_ map[string]any, data json.RawMessage) ([]byte, error) {
	var fees struct {
		All           feePriorities  `json:"all"`
		TokenTransfer *feePriorities `json:"token_transfer,omitempty"`
		ContractCall  *feePriorities `json:"contract_call,omitempty"`
		SmartContract *feePriorities `json:"smart_contract,omitempty"`
	}
	if err := json.Unmarshal(pick(data, "fees"), &fees); err != nil {
		return nil, err
	}
	return marshal(fees)
}
