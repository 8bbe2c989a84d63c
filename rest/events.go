package rest

import (
	"context"
	"fmt"

	genql "github.com/Khan/genqlient/graphql"
)

// eventsRead is a read of GET /extended/v1/tx/events: a transaction's or a principal's events.
type eventsRead struct {
	txID, principal *string
	types           []EventType
	limit, offset   int
}

func (p eventsRead) etag(ctx context.Context, c genql.Client) (string, error) { return tipTag(ctx, c) }

func (p eventsRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := Events(ctx, c, p.txID, p.principal, p.types, p.limit, p.offset)
	if err != nil {
		return nil, "", err
	}
	events := make([]any, len(d.Events))
	for i := range d.Events {
		if events[i], err = eventBody(&d.Events[i]); err != nil {
			return nil, "", err
		}
	}
	body, err := marshal(eventPage{p.limit, p.offset, events})
	return body, tipFieldsTag(&d.Tip), err
}

// contractEventsRead is a read of GET /extended/v1/contract/{contract_id}/events.
type contractEventsRead struct {
	contractID    string
	unanchored    bool
	limit, offset int
}

func (p contractEventsRead) etag(ctx context.Context, c genql.Client) (string, error) {
	return tipTag(ctx, c)
}

func (p contractEventsRead) answer(ctx context.Context, c genql.Client) ([]byte, string, error) {
	d, err := ContractEvents(ctx, c, p.contractID, p.limit, p.offset, p.unanchored)
	if err != nil {
		return nil, "", err
	}
	events := make([]contractLogEventBody, len(d.Events))
	for i, e := range d.Events {
		events[i] = contractLogEvent(e)
	}
	body, err := marshal(page[contractLogEventBody]{Limit: p.limit, Offset: p.offset, Results: events})
	return body, tipFieldsTag(&d.Tip), err
}

// eventPage is the reference's event listing: no total, the events under "events".
type eventPage struct {
	Limit  int   `json:"limit"`
	Offset int   `json:"offset"`
	Events []any `json:"events"`
}

// eventHead is what every event of the reference carries first.
type eventHead struct {
	EventIndex int       `json:"event_index"`
	EventType  EventType `json:"event_type"`
	TxID       string    `json:"tx_id"`
}

// txEvent is an event of any kind (EventFields), decoded in one pass: the members of every kind
// decode into one struct, and __typename says which kind's were selected. (genqlient's decoding of
// the Event interface reads each event twice, for its __typename and then as its kind.)
type txEvent struct {
	Typename string `json:"__typename"`
	eventHead
	ContractLog  contractLog `json:"contract_log"`
	StxLockEvent stxLock     `json:"stx_lock_event"`
	Asset        eventAsset  `json:"asset"`
}

// eventAsset holds the asset members of the STX, FT and NFT events alike.
type eventAsset struct {
	AssetEventType AssetEventType `json:"asset_event_type"`
	AssetID        string         `json:"asset_id"`
	Sender         string         `json:"sender"`
	Recipient      string         `json:"recipient"`
	Amount         string         `json:"amount"`
	Memo           *string        `json:"memo"`
	Value          clarityValue   `json:"value"`
}

type contractLog struct {
	ContractID string       `json:"contract_id"`
	Topic      string       `json:"topic"`
	Value      clarityValue `json:"value"`
}

type stxLock struct {
	LockedAmount  string `json:"locked_amount"`
	UnlockHeight  int    `json:"unlock_height"`
	LockedAddress string `json:"locked_address"`
}

type contractLogEventBody struct {
	eventHead
	ContractLog contractLog `json:"contract_log"`
}

type stxLockEventBody struct {
	eventHead
	StxLockEvent stxLock `json:"stx_lock_event"`
}

type stxAssetEventBody struct {
	eventHead
	Asset struct {
		AssetEventType AssetEventType `json:"asset_event_type"`
		Sender         string         `json:"sender"`
		Recipient      string         `json:"recipient"`
		Amount         string         `json:"amount"`
		Memo           *string        `json:"memo,omitempty"`
	} `json:"asset"`
}

type ftEventBody struct {
	eventHead
	Asset struct {
		AssetEventType AssetEventType `json:"asset_event_type"`
		AssetID        string         `json:"asset_id"`
		Sender         string         `json:"sender"`
		Recipient      string         `json:"recipient"`
		Amount         string         `json:"amount"`
	} `json:"asset"`
}

type nftEventBody struct {
	eventHead
	Asset struct {
		AssetEventType AssetEventType `json:"asset_event_type"`
		AssetID        string         `json:"asset_id"`
		Sender         string         `json:"sender"`
		Recipient      string         `json:"recipient"`
		Value          clarityValue   `json:"value"`
	} `json:"asset"`
}

func contractLogEvent(e EventFieldsSmartContractLogEvent) contractLogEventBody {
	l := e.Contract_log
	return contractLogEventBody{
		eventHead:   eventHead{e.Event_index, e.Event_type, e.Tx_id},
		ContractLog: contractLog{ContractID: l.Contract_id, Topic: l.Topic, Value: clarityValue(l.Value)},
	}
}

// eventBody is the reference's event of e's kind.
func eventBody(e *txEvent) (any, error) {
	a := &e.Asset
	switch e.Typename {
	case "SmartContractLogEvent":
		return contractLogEventBody{e.eventHead, e.ContractLog}, nil
	case "StxLockEvent":
		return stxLockEventBody{e.eventHead, e.StxLockEvent}, nil
	case "StxAssetEvent":
		out := stxAssetEventBody{eventHead: e.eventHead}
		out.Asset.AssetEventType, out.Asset.Sender, out.Asset.Recipient, out.Asset.Amount, out.Asset.Memo = a.AssetEventType, a.Sender, a.Recipient, a.Amount, a.Memo
		return out, nil
	case "FungibleTokenAssetEvent":
		out := ftEventBody{eventHead: e.eventHead}
		out.Asset.AssetEventType, out.Asset.AssetID, out.Asset.Sender, out.Asset.Recipient, out.Asset.Amount = a.AssetEventType, a.AssetID, a.Sender, a.Recipient, a.Amount
		return out, nil
	case "NonFungibleTokenAssetEvent":
		out := nftEventBody{eventHead: e.eventHead}
		out.Asset.AssetEventType, out.Asset.AssetID, out.Asset.Sender, out.Asset.Recipient, out.Asset.Value = a.AssetEventType, a.AssetID, a.Sender, a.Recipient, a.Value
		return out, nil
	}
	return nil, fmt.Errorf("event of unknown type %q", e.Typename)
}
