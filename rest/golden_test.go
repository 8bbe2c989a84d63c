package rest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenHeaders are the response headers a golden file records; ETag values depend on ingestion
// time (the mempool clock), so only their presence is recorded.
var goldenHeaders = []string{"Content-Type", "Cache-Control", "Warning", "Location"}

type call struct {
	name, path string
}

// goldenCalls are the requests replayed per fixture. They cover every path, parameter and error
// of the legacy REST paths on real chain data: mocknet (unconfirmed microblocks above the tip),
// poisonmicroblock (every tx type and status, every event kind), a mainnet reorg (orphaned
// blocks and microblocks), pox-4 regtest (locks and the mempool).
var goldenCalls = map[string][]call{
	"mocknet": {
		{"stx", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx"},
		{"stx-unanchored", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?unanchored=true"},
		{"stx-until-height", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?until_block=10"},
		{"stx-until-parseint", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?until_block=10abc"},
		{"stx-until-hash-unknown", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?until_block=0x00"},
		{"stx-until-zero", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?until_block=0"},
		{"stx-until-and-unanchored", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?until_block=3&unanchored=true"},
		{"stx-unanchored-not-bool", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx?unanchored=1"},
		{"stx-bad-principal", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEX/stx"},
		{"stx-idle", "/extended/v1/address/ST2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MH/stx"},
		{"stx-funded", "/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/stx"},
		{"stx-trailing-slash", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/stx/"},
		{"twt", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers?limit=3"},
		{"twt-unanchored", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers?limit=3&unanchored=true"},
		{"twt-height", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers?height=2"},
		{"twt-height-and-until", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers?height=2&until_block=4"},
		{"twt-limit-over", "/extended/v1/address/ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH/transactions_with_transfers?limit=51"},
		{"multiple", "/extended/v1/tx/multiple?tx_id=0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d&tx_id=0xc3f1e0c958c5c5fd1155595d1948f652f3f18e1e0422f84ae4810ed77277bbce&tx_id=0x" + zeros},
		{"multiple-unanchored", "/extended/v1/tx/multiple?tx_id=0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d,0xc3f1e0c958c5c5fd1155595d1948f652f3f18e1e0422f84ae4810ed77277bbce&unanchored=true"},
		{"multiple-missing", "/extended/v1/tx/multiple"},
		{"multiple-no-0x", "/extended/v1/tx/multiple?tx_id=" + zeros},
		{"multiple-bad", "/extended/v1/tx/multiple?tx_id=0x12"},
		{"contract-events", "/extended/v1/contract/ST000000000000000000002AMW42H.genesis/events"},
		{"contract-events-unknown", "/extended/v1/contract/ST000000000000000000002AMW42H.nothing/events"},
		{"contract-events-limit-over", "/extended/v1/contract/ST000000000000000000002AMW42H.genesis/events?limit=51"},
		{"blocks", "/extended/v1/block?limit=3"},
		{"blocks-offset", "/extended/v1/block?limit=2&offset=26"},
		{"blocks-limit-over", "/extended/v1/block?limit=31"},
		{"blocks-limit-negative", "/extended/v1/block?limit=-1"},
		{"burn-block", "/extended/v1/block/by_burn_block_hash/0xfe4af4eb44d9b92afdc3113bc3fba48531502d6367ad42de3a7f1d1ea4065ba4"},
		{"burn-block-redirect", "/extended/v1/block/by_burn_block_hash/fe4af4eb44d9b92afdc3113bc3fba48531502d6367ad42de3a7f1d1ea4065ba4"},
		{"burn-block-unknown", "/extended/v1/block/by_burn_block_hash/0x" + zeros},
		{"burn-block-not-hex", "/extended/v1/block/by_burn_block_hash/0xzz"},
		{"events-none", "/extended/v1/tx/events"},
		{"events-both", "/extended/v1/tx/events?tx_id=0x" + zeros + "&address=ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH"},
		{"events-address", "/extended/v1/tx/events?address=ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH&limit=5"},
		{"events-bad-type", "/extended/v1/tx/events?address=ST16G69GQBDPMRY6308JN0GDTYF265JX3KQ6C0VEH&type=foo"},
	},
	"mainnet-reorg-scenario1": {
		{"blocks", "/extended/v1/block?limit=5"},
		{"blocks-around-fork", "/extended/v1/block?limit=4&offset=17"},
		{"burn-block-orphan", "/extended/v1/block/by_burn_block_hash/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924"},
		{"multiple-orphaned", "/extended/v1/tx/multiple?tx_id=0x4ad2f9ef1e0d0cbd368a762074ab42bdbf908cd6f614e83f4ebb1ee6a6622f3e,0x57cc390f7dbe2a31a24f7fbf2b7110b04d3c599cc13175f17196d0e2809bd6ec"},
		{"stx", "/extended/v1/address/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/stx"},
		{"twt", "/extended/v1/address/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/transactions_with_transfers?limit=4"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S1": {
		{"stx-locked", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/stx"},
		{"stx-locked-until", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/stx?until_block=7"},
		{"stx-received", "/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/stx"},
		{"events-lock", "/extended/v1/tx/events?address=STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6&type=stx_lock"},
		{"twt", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/transactions_with_transfers?limit=2"},
	},
	// Locks from pox-4 print events, which the node prints before the operation: the lock amount
	// and unlock height come from the event data (stack-stx), and stack-extend moves the unlock
	// height (out-of-order-multisig: 140 before the extend at height 19, 160 after).
	"regtest-env-pox-4-stack-stx-in-reward-phase-S2": {
		{"stx-locked", "/extended/v1/address/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/stx"},
		{"stx-before-lock", "/extended/v1/address/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/stx?until_block=8"},
		{"stx-locked-earlier", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/stx"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S3": {
		{"stx-locked", "/extended/v1/address/ST3NBRSFKX28FQ2ZJ1MAKX58HKHSDGNV5N7R21XCP/stx"},
		{"stx-locked-unanchored", "/extended/v1/address/ST3NBRSFKX28FQ2ZJ1MAKX58HKHSDGNV5N7R21XCP/stx?unanchored=true"},
	},
	"regtest-env-pox-4-out-of-order-multisig-tx": {
		{"stx-extended", "/extended/v1/address/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/stx"},
		{"stx-before-extend", "/extended/v1/address/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/stx?until_block=18"},
		{"stx-extended-other", "/extended/v1/address/ST3NBRSFKX28FQ2ZJ1MAKX58HKHSDGNV5N7R21XCP/stx"},
		{"twt", "/extended/v1/address/ST3AM1A56AK2C1XAFJ4115ZSV26EB49BVQ10MGCS0/transactions_with_transfers"},
	},
	"poisonmicroblock": {
		{"multiple-every-type", "/extended/v1/tx/multiple?tx_id=0x0e84af278e249bb66dc607e69124f6e8a0bc569cfd1b405a140c7f9244cf87bc,0xcbd4f7496b069a8e0a498c3adb095b63bff057272caed4c1efdbd4975b57d2f3,0x0a26793ad563b52e9f08ead67f4cec7c79df11b8dc24e1cd4429fd53012e8a93,0x051d2a187ce06a04a1c114b6bfc2ab89e0f9b87c5c7fdbdaac4bd50d612ec344,0x033965e49bdf794380a7bdfd2a0775ace2b3f89fba9050455820ed1b86c52d91,0x12edac237aaf3a716c53aa8bd22a780d8794d3e744cd46302f38d3d8fb047f00"},
		{"multiple-exclude-args", "/extended/v1/tx/multiple?tx_id=0x033965e49bdf794380a7bdfd2a0775ace2b3f89fba9050455820ed1b86c52d91&exclude_function_args=true&event_limit=2&event_offset=1"},
		{"events-tx-nft", "/extended/v1/tx/events?tx_id=0x2cd55a8674ca0fe925ebb0bf4a9fe05145178c3708d865ea3b56d69ae36acaf6"},
		{"events-tx-ft-no-0x", "/extended/v1/tx/events?tx_id=9dc9ac3daee981c912612fd3785d52ddc9e43155a49d35c2102962830344e186&type=fungible_token_asset,stx_asset"},
		{"events-contract", "/extended/v1/tx/events?address=SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.send-many-memo&limit=3&offset=1"},
		{"contract-events", "/extended/v1/contract/SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.send-many-memo/events?limit=2&offset=1"},
		{"twt", "/extended/v1/address/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/transactions_with_transfers?limit=5"},
		{"stx", "/extended/v1/address/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/stx"},
	},
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

func TestGolden(t *testing.T) {
	for fixture, calls := range goldenCalls {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, replay(t, fixture), rest.Options{ServerVersion: "test"})
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for _, c := range calls {
				t.Run(c.name, func(t *testing.T) {
					resp, err := client.Get(srv.URL + c.path)
					if err != nil {
						t.Fatal(err)
					}
					defer resp.Body.Close()
					golden(t, filepath.Join("testdata", fixture, c.name+".json"), record(t, resp))
				})
			}
		})
	}
}

// golden compares got with file, or rewrites file under -update.
func golden(t *testing.T, file string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("differs from %s:\n%s", file, got)
	}
}

// record renders a response as {status, headers, etag, body} with the body indented.
func record(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{}
	for _, h := range goldenHeaders {
		if v := resp.Header.Get(h); v != "" {
			headers[h] = v
		}
	}
	rec := map[string]any{"status": resp.StatusCode, "headers": headers, "etag": resp.Header.Get("ETag") != ""}
	if len(body) > 0 {
		if !json.Valid(body) {
			t.Fatalf("invalid JSON body: %s", body)
		}
		rec["body"] = json.RawMessage(body)
	}
	// Without HTML escaping, so that the golden holds the body's <, > and & as served.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
