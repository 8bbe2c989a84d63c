package rest_test

import (
	"net/http"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

// v2AddressCalls are the requests of the v2 address, contract status and mempool fee paths,
// replayed per fixture: poisonmicroblock (asset events of every kind, a contract with hundreds
// of FT events in one transaction), mocknet (unconfirmed microblock transactions above the tip,
// boot contracts), pox-4 regtest (locks, a pending mempool), fuzzed transactions (a failed
// deploy, one pending transfer), a mainnet reorg (orphaned blocks, pox-1 locks).
var v2AddressCalls = map[string][]call{
	"poisonmicroblock": {
		{"txs", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?limit=5"},
		{"txs-offset", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?limit=3&offset=9"},
		// The reference counts over the page's rows: past the end, total is 0.
		{"txs-past-end", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?offset=11"},
		{"txs-limit-zero", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?limit=0"},
		{"txs-limit-over", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?limit=51"},
		{"txs-exclude-args", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions?limit=2&exclude_function_args=true"},
		{"txs-ft-contract", "/extended/v2/addresses/SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.fwp-wstx-alex-tranched-64/transactions?limit=2"},
		{"txs-ft-burn", "/extended/v2/addresses/SP2EZY2MYT3TCD92FMC71XZ8M0H56ZBVTWNXS7J52/transactions"},
		{"txs-nft-mint", "/extended/v2/addresses/SP31W0KWYGSK71VCJ52F241FH9863G2DPDZ06XGTR/transactions"},
		{"txs-stx-burn", "/extended/v2/addresses/SP2H6CH8A0ESR17A3E8S1DMDTWW4C7C6AWDWCVYQ1/transactions"},
		{"txs-not-c32", "/extended/v2/addresses/foo/transactions"},
		// A principal the request schema accepts but that cannot occur lists nothing.
		{"txs-bad-checksum", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K816/transactions"},
		{"events-ft-stx", "/extended/v2/addresses/SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.alex-vault/transactions/0x9dc9ac3daee981c912612fd3785d52ddc9e43155a49d35c2102962830344e186/events"},
		{"events-page", "/extended/v2/addresses/SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.fwp-wstx-alex-tranched-64/transactions/0x58ffe62029f94f7101b959536ea4953b9bce0ec3f6e2a06254c511bdd5cfa9e7/events?limit=3&offset=1"},
		{"events-past-end", "/extended/v2/addresses/SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.fwp-wstx-alex-tranched-64/transactions/0x58ffe62029f94f7101b959536ea4953b9bce0ec3f6e2a06254c511bdd5cfa9e7/events?offset=400"},
		{"events-nft-mint", "/extended/v2/addresses/SP31W0KWYGSK71VCJ52F241FH9863G2DPDZ06XGTR/transactions/0xf27c3448817e5448bc00443eaaa1736da8495fa5de705c998896970b3d77d18d/events"},
		{"events-ft-burn", "/extended/v2/addresses/SP2EZY2MYT3TCD92FMC71XZ8M0H56ZBVTWNXS7J52/transactions/0x1b1fb0a5f897a754f8783d44a160b2b77825f990b9e9507e4571d8499a4d1c72/events"},
		{"events-not-involved", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions/0x1b1fb0a5f897a754f8783d44a160b2b77825f990b9e9507e4571d8499a4d1c72/events"},
		{"events-bad-checksum", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K816/transactions/0x1b1fb0a5f897a754f8783d44a160b2b77825f990b9e9507e4571d8499a4d1c72/events"},
		{"events-bad-checksum-unknown-tx", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K816/transactions/0x" + zeros + "/events"},
		{"events-unknown-tx", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions/0x" + zeros + "/events"},
		{"events-bad-tx", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions/0x12/events"},
		{"events-tx-no-0x", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions/" + zeros + "/events"},
		{"events-limit-over", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions/0x" + zeros + "/events?limit=51"},
		{"balance", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/balances/stx"},
		{"balance-mempool", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/balances/stx?include_mempool=true"},
		{"balance-not-bool", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/balances/stx?include_mempool=1"},
		{"balance-bad-checksum", "/extended/v2/addresses/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K816/balances/stx"},
		{"fees-empty", "/extended/v2/mempool/fees"},
		// transactions_with_transfers counts over the page's rows too: past the end, total is 0.
		{"twt-past-end", "/extended/v1/address/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions_with_transfers?offset=11"},
		{"twt-last-page", "/extended/v1/address/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions_with_transfers?offset=10"},
	},
	"mocknet": {
		// Unconfirmed microblock transactions come first and count in the total.
		{"txs-unanchored", "/extended/v2/addresses/SPBQKNWAK9MBRRCH3WDYC5V9C3RP9WYV903N7QPT/transactions?limit=2"},
		{"txs-contract", "/extended/v2/addresses/SP000000000000000000002Q6VF78.pox/transactions?limit=1&offset=1"},
		{"status", "/extended/v2/smart-contracts/status?contract_id=ST000000000000000000002AMW42H.pox&contract_id=ST000000000000000000002AMW42H.nothing&contract_id=ST000000000000000000002AMW42H.bns"},
		{"status-missing", "/extended/v2/smart-contracts/status"},
		{"status-bad-id", "/extended/v2/smart-contracts/status?contract_id=ST000000000000000000002AMW42H.pox&contract_id=foo"},
		{"status-bad-single-id", "/extended/v2/smart-contracts/status?contract_id=foo"},
		{"balance", "/extended/v2/addresses/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/balances/stx"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S1": {
		{"balance-locked", "/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/balances/stx"},
		{"balance-locked-mempool", "/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/balances/stx?include_mempool=true"},
		{"txs-locked", "/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/transactions?limit=3"},
		{"fees", "/extended/v2/mempool/fees"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S2": {
		{"balance-locked", "/extended/v2/addresses/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/balances/stx?include_mempool=true"},
		{"fees", "/extended/v2/mempool/fees"},
	},
	// A pox-1 lock: the v2 balance reads pox-4 locks only.
	"mainnet-reorg-scenario1": {
		{"balance-pox1-lock", "/extended/v2/addresses/SP1XA04SDW26E4CDVJGF17SHKF1TJQPB1J62JDWC/balances/stx"},
		{"txs-reorg", "/extended/v2/addresses/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/transactions?limit=3&offset=1"},
	},
	"fuzzed-transactions-1": {
		{"status-failed-deploy", "/extended/v2/smart-contracts/status?contract_id=ST332DWHNM323264X869MKXFZABSE5WZ60EA07TJ1.winterpoc"},
		{"fees", "/extended/v2/mempool/fees"},
	},
}

func TestV2Addresses(t *testing.T) { recordGoldens(t, v2AddressCalls, "v2_addresses-") }

// TestV2AddressesNotModified checks that each v2 path answers a request naming its current ETag
// with 304 and no body.
func TestV2AddressesNotModified(t *testing.T) {
	srv := serve(t, replay(t, "regtest-env-pox-4-stack-stx-in-reward-phase-S1"), rest.Options{ServerVersion: "test"})
	for _, path := range []string{
		"/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/transactions",
		"/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/transactions/0x23c5b683d41592eb6fe48c7d0de590521b6de18f81242c8f20b9e9e94a240f1e/events",
		"/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/balances/stx",
		"/extended/v2/addresses/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/balances/stx?include_mempool=true",
		"/extended/v2/smart-contracts/status?contract_id=ST000000000000000000002AMW42H.pox",
		"/extended/v2/mempool/fees",
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		if resp.StatusCode != http.StatusOK || etag == "" {
			t.Fatalf("%s: status %d, ETag %q", path, resp.StatusCode, etag)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("If-None-Match", etag)
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s with If-None-Match %s: status %d", path, etag, resp.StatusCode)
		}
	}
}
