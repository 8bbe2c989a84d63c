package notices

import (
	"encoding/json"
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

// Each notice kind moves the version of the part of the chain state it is about, and only that;
// a kind the listener does not know moves every part.
func TestNoticeMovesItsPart(t *testing.T) {
	for kind, want := range map[string]StateVersion{
		KindBlock:       {Chain: 1},
		KindMicroblock:  {Chain: 1},
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
