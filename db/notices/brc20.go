package notices

import (
	"encoding/json"
	"fmt"
)

// Brc20Channel is the NOTIFY channel on which BRC-20 ingestion announces each applied or
// rolled-back block, in the block's transaction.
const Brc20Channel = "brc20"

// Brc20 is the payload of a notification on Brc20Channel: the block, whether it was
// rolled back, and the tickers and addresses with operations in it. Long lists are cut to keep
// the payload under PostgreSQL's limit; Truncated then says that anything may have changed.
type Brc20 struct {
	Seq       int64    `json:"seq,omitempty"` // its place in the notice log
	Height    int32    `json:"height"`
	Hash      string   `json:"hash"`
	Rollback  bool     `json:"rollback"`
	Tickers   []string `json:"tickers"`
	Addresses []string `json:"addresses"`
	Truncated bool     `json:"truncated"`
}

// ParseBrc20 decodes a notification payload from Brc20Channel.
func ParseBrc20(payload string) (Brc20, error) {
	var n Brc20
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		return n, fmt.Errorf("brc20 notice %q: %w", payload, err)
	}
	return n, nil
}

// brc20NoticeBudget bounds a notice's payload, below PostgreSQL's 8,000-byte NOTIFY limit.
const brc20NoticeBudget = 7000

// Payload is the notice's payload on Brc20Channel, cut to the budget.
func (n Brc20) Payload() string {
	tickers, addresses := n.Tickers, n.Addresses
	n.Tickers, n.Addresses = []string{}, []string{}
	size := 160 + len(n.Hash)
	for _, t := range tickers {
		b, _ := json.Marshal(t)
		if size += len(b) + 1; size > brc20NoticeBudget {
			n.Truncated = true
			break
		}
		n.Tickers = append(n.Tickers, t)
	}
	for _, a := range addresses {
		b, _ := json.Marshal(a)
		if n.Truncated {
			break
		}
		if size += len(b) + 1; size > brc20NoticeBudget {
			n.Truncated = true
			break
		}
		n.Addresses = append(n.Addresses, a)
	}
	b, _ := json.Marshal(n)
	return string(b)
}
