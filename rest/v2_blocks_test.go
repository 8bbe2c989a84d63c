package rest_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// Block hashes of the fixtures the /extended/v2 block cases name.
const (
	// fuzzed-transactions-1: Nakamoto blocks 1-12 in tenures 38 (1-2), 39 (3-10) and 40 (11-12),
	// anchored in burn blocks 242-244, each signed by three signers.
	nakamoto5Index  = "0x5143467b1f218fc99c96a4aeb8c9503a4b2451842f344add7abd61c96dd2945e"
	nakamoto5Hash   = "1780fbc68743fcc09257bd17699192f77aa46a57b9d06e6dfb7dd0d7a10e38ad"
	nakamoto9Index  = "0x2ac2438bfc22832a8c9b847712fac777647e58681a2f5aa802fced3a8a1e6f62"
	nakamoto10Index = "0xb21dbd8c8d45670983dbb4f789021885f77d0b98ac9f538c640e58d811c02a9b"
	nakamotoBurn243 = "727c936aab71c050b1ad61ec22978eee21a429a4a8d0677236a6f237be62d696"
	// epoch-3-transition: burn block 125 anchors blocks 20 and 21.
	epoch3Burn125 = "1da9c307f043b4b1588b0cff8c544ab50989c5b00f004d1a9b36aa91c1397b9f"
)

// v2BlockCalls are the /extended/v2 block reads replayed per fixture, with goldens named
// v2_blocks-<case>.json.
var v2BlockCalls = map[string][]call{
	"fuzzed-transactions-1": {
		{"blocks", "/extended/v2/blocks?limit=3"},
		// The page of older blocks (prev_cursor), from its cursor; its newer page (next_cursor)
		// starts a page above.
		{"blocks-cursor", "/extended/v2/blocks?limit=3&cursor=" + nakamoto9Index},
		{"blocks-cursor-offset", "/extended/v2/blocks?limit=3&cursor=" + nakamoto9Index + "&offset=2"},
		{"blocks-cursor-offset-negative", "/extended/v2/blocks?limit=3&cursor=" + nakamoto5Index + "&offset=-2"},
		{"blocks-offset", "/extended/v2/blocks?limit=3&offset=5"},
		// Fewer than a page of older blocks: no prev_cursor.
		{"blocks-oldest", "/extended/v2/blocks?limit=5&offset=8"},
		{"blocks-offset-past-end", "/extended/v2/blocks?offset=20"},
		{"blocks-limit-zero", "/extended/v2/blocks?limit=0&offset=10"},
		{"blocks-cursor-unknown", "/extended/v2/blocks?cursor=0x" + zeros},
		{"blocks-cursor-past-end", "/extended/v2/blocks?cursor=" + nakamoto5Index + "&offset=10"},
		{"blocks-cursor-bad", "/extended/v2/blocks?cursor=testvalue"},
		{"blocks-offset-over", "/extended/v2/blocks?offset=301"},
		{"blocks-offset-under", "/extended/v2/blocks?offset=-301"},
		{"blocks-offset-not-integer", "/extended/v2/blocks?offset=x"},
		{"blocks-limit-over", "/extended/v2/blocks?limit=31"},
		{"block-latest", "/extended/v2/blocks/latest"},
		{"block-height", "/extended/v2/blocks/5"},
		{"block-hash-no-0x", "/extended/v2/blocks/" + nakamoto5Hash},
		{"block-index-hash", "/extended/v2/blocks/" + nakamoto5Index},
		{"block-unknown", "/extended/v2/blocks/999"},
		{"block-not-height-or-hash", "/extended/v2/blocks/abc"},
		{"block-negative", "/extended/v2/blocks/-1"},
		{"block-transactions", "/extended/v2/blocks/1/transactions"},
		{"block-transactions-page", "/extended/v2/blocks/6/transactions?limit=1&offset=1"},
		{"block-transactions-index-hash-no-0x", "/extended/v2/blocks/" + nakamoto5Index[2:] + "/transactions"},
		{"block-transactions-past-end", "/extended/v2/blocks/1/transactions?offset=5"},
		{"block-transactions-limit-zero", "/extended/v2/blocks/1/transactions?limit=0"},
		{"block-transactions-limit-over", "/extended/v2/blocks/1/transactions?limit=51"},
		{"block-transactions-unknown", "/extended/v2/blocks/999/transactions"},
		{"signer-signatures", "/extended/v2/blocks/" + nakamoto5Index + "/signer-signatures"},
		{"signer-signatures-page", "/extended/v2/blocks/5/signer-signatures?limit=1&offset=1"},
		{"signer-signatures-limit-zero", "/extended/v2/blocks/5/signer-signatures?limit=0"},
		{"signer-signatures-limit-over", "/extended/v2/blocks/5/signer-signatures?limit=1001"},
		{"signer-signatures-unknown", "/extended/v2/blocks/999/signer-signatures"},
		{"tenure-of-tip", "/extended/v2/block-tenures/40/blocks"},
		// Without a cursor a tenure's page starts at the tip: empty unless the tip is in it.
		{"tenure-not-of-tip", "/extended/v2/block-tenures/39/blocks"},
		{"tenure-cursor", "/extended/v2/block-tenures/39/blocks?limit=3&cursor=" + nakamoto10Index},
		{"tenure-cursor-other-tenure", "/extended/v2/block-tenures/38/blocks?cursor=" + nakamoto10Index},
		{"tenure-zero", "/extended/v2/block-tenures/0/blocks?limit=2"},
		{"tenure-not-integer", "/extended/v2/block-tenures/abc/blocks"},
		{"tenure-negative", "/extended/v2/block-tenures/-1/blocks"},
		{"burn-blocks", "/extended/v2/burn-blocks"},
		{"burn-blocks-page", "/extended/v2/burn-blocks?limit=1&offset=1"},
		{"burn-blocks-limit-zero", "/extended/v2/burn-blocks?limit=0"},
		{"burn-blocks-limit-over", "/extended/v2/burn-blocks?limit=31"},
		{"burn-block-latest", "/extended/v2/burn-blocks/latest"},
		{"burn-block-height", "/extended/v2/burn-blocks/243"},
		{"burn-block-hash", "/extended/v2/burn-blocks/0x" + nakamotoBurn243},
		{"burn-block-unknown", "/extended/v2/burn-blocks/999"},
		{"burn-block-bad", "/extended/v2/burn-blocks/0x12"},
		{"burn-block-blocks", "/extended/v2/burn-blocks/" + nakamotoBurn243 + "/blocks?limit=3&offset=1"},
		{"burn-block-blocks-latest", "/extended/v2/burn-blocks/latest/blocks"},
		{"burn-block-blocks-past-end", "/extended/v2/burn-blocks/243/blocks?offset=10"},
		{"burn-block-blocks-unknown", "/extended/v2/burn-blocks/999/blocks"},
		{"average-times", "/extended/v2/blocks/average-times"},
	},
	"epoch-3-transition": {
		{"blocks", "/extended/v2/blocks?limit=2"},
		{"block-latest", "/extended/v2/blocks/latest/"},
		// The genesis block is not canonical.
		{"block-genesis", "/extended/v2/blocks/0"},
		{"block-transactions", "/extended/v2/blocks/5/transactions?limit=3&offset=1"},
		{"signer-signatures-before-nakamoto", "/extended/v2/blocks/5/signer-signatures"},
		{"burn-blocks", "/extended/v2/burn-blocks?limit=3"},
		{"burn-block-two-blocks", "/extended/v2/burn-blocks/" + epoch3Burn125},
		{"burn-block-blocks", "/extended/v2/burn-blocks/125/blocks"},
	},
	"mainnet-reorg-scenario1": {
		{"blocks-around-fork", "/extended/v2/blocks?limit=4&offset=17"},
		// A burn block that anchors only an orphaned block lists no blocks; it is known.
		{"burn-block-blocks-orphan", "/extended/v2/burn-blocks/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924/blocks"},
		{"burn-block-orphan", "/extended/v2/burn-blocks/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924"},
	},
	"mainnet-reorg-scenario2": {
		{"blocks", "/extended/v2/blocks"},
		{"block-transactions", "/extended/v2/blocks/2/transactions"},
	},
	"mocknet": {
		{"blocks", "/extended/v2/blocks?limit=2"},
		{"block-transactions", "/extended/v2/blocks/latest/transactions?limit=2"},
	},
	"mainnet-block0": {
		{"blocks", "/extended/v2/blocks"},
		{"block-latest", "/extended/v2/blocks/latest"},
		{"burn-blocks", "/extended/v2/burn-blocks"},
	},
}

func TestV2BlocksGolden(t *testing.T) {
	for fixture, calls := range v2BlockCalls {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, replay(t, fixture), rest.Options{ServerVersion: "test"})
			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					resp, err := http.Get(srv.URL + c.path)
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					golden(t, filepath.Join("testdata", fixture, "v2_blocks-"+c.name+".json"), record(t, resp))
				})
			}
		})
	}
}
