package notices

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// The payloads ingestion writes read back as the notices they announce, with the hashes as Hex.
func TestNoticeRoundTrip(t *testing.T) {
	h1, h2 := []byte{0xab, 0x01}, []byte{0x00, 0xff}
	for _, tc := range []struct {
		in   Payload
		json string
		want Notice
	}{
		{Payload{Kind: KindBlock, IndexBlockHash: h1, BlockHeight: 7, Canonical: true},
			`{"kind":"block","index_block_hash":"0xab01","block_height":7,"canonical":true}`,
			Notice{Kind: KindBlock, IndexBlockHash: h1, BlockHeight: 7, Canonical: true, MicroblockHashes: [][]byte{}, TxIDs: [][]byte{}}},
		{Payload{Kind: KindMicroblock, MicroblockHashes: []Hash{h1, h2}, BlockHeight: 8},
			`{"kind":"microblock","block_height":8,"microblock_hashes":["0xab01","0x00ff"]}`,
			Notice{Kind: KindMicroblock, BlockHeight: 8, MicroblockHashes: [][]byte{h1, h2}, TxIDs: [][]byte{}}},
		{Payload{Kind: KindMempool, TxIDs: []Hash{h2}},
			`{"kind":"mempool","tx_ids":["0x00ff"]}`,
			Notice{Kind: KindMempool, MicroblockHashes: [][]byte{}, TxIDs: [][]byte{h2}}},
		{Payload{Kind: KindMempoolDrop, TxIDs: []Hash{h1}, Principals: []string{"SP1", "SP2.c"}},
			`{"kind":"mempool_drop","tx_ids":["0xab01"],"principals":["SP1","SP2.c"]}`,
			Notice{Kind: KindMempoolDrop, MicroblockHashes: [][]byte{}, TxIDs: [][]byte{h1}, Principals: []string{"SP1", "SP2.c"}}},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.json {
			t.Errorf("marshal %+v = %s, %v; want %s", tc.in, b, err, tc.json)
		}
		got, err := Parse(string(b))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%s) = %+v, %v; want %+v", b, got, err, tc.want)
		}
	}
}

// Each notice kind moves the version of the parts of the chain state it changes, and only those
// (blocks, microblocks and reorgs prune and restore mempool transactions); a kind the listener
// does not know moves every part.
func TestNoticeMovesItsPart(t *testing.T) {
	for kind, want := range map[string]StateVersion{
		KindBlock:       {Chain: 1, Mempool: 1},
		KindMicroblock:  {Chain: 1, Mempool: 1},
		KindReorg:       {Chain: 1, Mempool: 1},
		KindBurnBlock:   {Chain: 1},
		KindMempool:     {Mempool: 1},
		KindMempoolDrop: {Mempool: 1},
		KindBrc20:       {Brc20: 1},
		"unknown":       {Chain: 1, Mempool: 1, Brc20: 1},
	} {
		var v StateVersion
		v.heard(kind)
		if v != want {
			t.Errorf("after a %s notice the version is %+v, want %+v", kind, v, want)
		}
	}
}

// A mempool notice names the principals whose pending state it changes; one that names none
// (logged before notices named them) and notices of other kinds name nothing, which stands for
// everything.
func TestNoticePendingNames(t *testing.T) {
	id := []byte{0xab, 0x01}
	for _, tc := range []struct {
		n    Notice
		want []string
	}{
		{Notice{Kind: KindMempool, TxIDs: [][]byte{id}, Principals: []string{"SP1", "SP2"}}, []string{"SP1", "SP2"}},
		{Notice{Kind: KindMempoolDrop, TxIDs: [][]byte{id}, Principals: []string{"SP1"}}, []string{"SP1"}},
		{Notice{Kind: KindMempool, TxIDs: [][]byte{id}}, nil},
		{Notice{Kind: KindBlock, TxIDs: [][]byte{id}, Principals: []string{"SP1"}}, nil},
	} {
		if got := tc.n.Pending(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v names %q, want %q", tc.n, got, tc.want)
		}
	}
}

// A name's pending version moves with the changes that name it or name nothing, and with no
// other; forgetting names past the bound moves every name.
func TestPendingVersions(t *testing.T) {
	var p pendingVersions
	p.moved(1, []string{"a"})
	p.moved(2, []string{"b"})
	if a, b, c := p.version([]string{"a"}), p.version([]string{"b"}), p.version([]string{"c"}); a != 1 || b != 2 || c != 0 {
		t.Errorf("versions a %d, b %d, c %d; want 1, 2, 0", a, b, c)
	}
	if ab := p.version([]string{"a", "b"}); ab != 2 {
		t.Errorf("version of a and b %d, want the newer, 2", ab)
	}
	p.moved(3, nil)
	if a, c := p.version([]string{"a"}), p.version([]string{"c"}); a != 3 || c != 3 {
		t.Errorf("after a change naming nothing: a %d, c %d; want 3, 3", a, c)
	}
	p.moved(4, []string{"a"})
	many := make([]string, maxPendingNames)
	for i := range many {
		many[i] = fmt.Sprint("n", i)
	}
	p.moved(5, many)
	if b := p.version([]string{"b"}); b != 5 {
		t.Errorf("after names were forgotten b is at %d, want 5", b)
	}
	if len(p.named) > maxPendingNames {
		t.Errorf("%d names remembered, bound %d", len(p.named), maxPendingNames)
	}
}
