package notices

import (
	"fmt"
	"strings"
	"testing"
)

// A block touching thousands of addresses still sends a notice under PostgreSQL's NOTIFY limit,
// marked truncated; a small one goes whole.
func TestBrc20NoticePayloadBounded(t *testing.T) {
	var addrs []string
	for i := range 3000 {
		addrs = append(addrs, fmt.Sprintf("bc1p%058d", i))
	}
	big := Brc20{Height: 780000, Hash: strings.Repeat("ab", 32), Tickers: []string{"ordi", "😉"}, Addresses: addrs}.Payload()
	if len(big) >= 8000 {
		t.Fatalf("payload of %d bytes", len(big))
	}
	n, err := ParseBrc20(big)
	if err != nil || !n.Truncated || n.Height != 780000 || len(n.Tickers) != 2 || len(n.Addresses) == 0 || len(n.Addresses) == len(addrs) {
		t.Fatalf("big notice %+v (%d addresses), %v", n.Truncated, len(n.Addresses), err)
	}
	small := Brc20{Height: 1, Hash: "00", Rollback: true, Tickers: []string{"ordi"}, Addresses: []string{"", "bc1q"}}.Payload()
	want := `{"height":1,"hash":"00","rollback":true,"tickers":["ordi"],"addresses":["","bc1q"],"truncated":false}`
	if small != want {
		t.Fatalf("small notice %s, want %s", small, want)
	}
	if empty := (Brc20{Height: 2, Hash: "01"}).Payload(); !strings.Contains(empty, `"tickers":[],"addresses":[]`) {
		t.Fatalf("empty lists must be arrays: %s", empty)
	}
}
