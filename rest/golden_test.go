package rest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
		// Answers are keyed by the id as stored (lower-case); an id spelled otherwise is also
		// listed as not found under its own spelling.
		{"multiple-upper-case", "/extended/v1/tx/multiple?tx_id=0x8BA559335B84ED9BC57494E888AE53F0121A8CA7C91977EF84B122A1739C268D"},
		{"multiple-upper-and-lower", "/extended/v1/tx/multiple?tx_id=0x8BA559335B84ED9BC57494E888AE53F0121A8CA7C91977EF84B122A1739C268D,0x8ba559335b84ed9bc57494e888ae53f0121a8ca7c91977ef84b122a1739c268d,0x" + zeros},
		// Principal validation: only the first two dot-separated parts are checked, the address
		// decoded case-insensitively; the request schema only asks for a 28-character c32 prefix,
		// and a path parameter longer than 100 characters matches no route.
		{"stx-contract-extra-part", "/extended/v1/address/ST000000000000000000002AMW42H.genesis.extra/stx"},
		{"stx-contract-long-name", "/extended/v1/address/ST000000000000000000002AMW42H.a" + strings.Repeat("b", 127) + "/stx"},
		{"stx-contract-name-too-long", "/extended/v1/address/ST000000000000000000002AMW42H.a" + strings.Repeat("b", 128) + "/stx"},
		{"stx-contract-lower-case-tail", "/extended/v1/address/ST000000000000000000002AMW42h.genesis/stx"},
		{"stx-contract-empty-name", "/extended/v1/address/ST000000000000000000002AMW42H./stx"},
		{"stx-contract-bad-name", "/extended/v1/address/ST000000000000000000002AMW42H.1genesis/stx"},
		{"stx-not-c32-prefix", "/extended/v1/address/st000000000000000000002AMW42H.genesis/stx"},
		{"twt-contract-extra-part", "/extended/v1/address/ST000000000000000000002AMW42H.genesis.extra/transactions_with_transfers"},
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
		{"events-address-not-c32-prefix", "/extended/v1/tx/events?address=foo"},
		{"events-contract-extra-part", "/extended/v1/tx/events?address=ST000000000000000000002AMW42H.genesis.extra"},
	},
	"mainnet-reorg-scenario1": {
		{"blocks", "/extended/v1/block?limit=5"},
		{"blocks-around-fork", "/extended/v1/block?limit=4&offset=17"},
		{"burn-block-orphan", "/extended/v1/block/by_burn_block_hash/0x0000000000000000000c2e3fbb722335592ad3af41f09f12c92d63f4c1f18924"},
		{"multiple-orphaned", "/extended/v1/tx/multiple?tx_id=0x4ad2f9ef1e0d0cbd368a762074ab42bdbf908cd6f614e83f4ebb1ee6a6622f3e,0x57cc390f7dbe2a31a24f7fbf2b7110b04d3c599cc13175f17196d0e2809bd6ec"},
		// A block's transactions go back to the mempool when a reorg orphans it (the coinbase
		// 0x4ad2…, orphaned at height 30), not when it was never canonical (0x3908…, height 47).
		{"multiple-never-canonical", "/extended/v1/tx/multiple?tx_id=0x390882e00ab9ad22ef20362022169b47f4406d172e71a7b37c13d265cf39ebda,0x4AD2F9EF1E0D0CBD368A762074AB42BDBF908CD6F614E83F4EBB1EE6A6622F3E"},
		{"stx", "/extended/v1/address/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/stx"},
		{"twt", "/extended/v1/address/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/transactions_with_transfers?limit=4"},
		// Height 47 has a canonical and an orphaned block with the same transactions, anchored
		// and in microblocks: a page is cut in chain order, then listed by transaction index.
		{"twt-page", "/extended/v1/address/SP3HXJJMJQ06GNAZ8XWDN1QM48JEDC6PP6W3YZPZJ/transactions_with_transfers?limit=2&offset=1"},
	},
	// Two blocks at height 2 confirm the same microblocks; the orphaned one is read by its burn
	// block, the list shows accepted microblocks newest first and, as streamed, those the parent
	// on the same page accepted.
	"mainnet-reorg-scenario2": {
		{"blocks", "/extended/v1/block"},
		{"blocks-page-boundary", "/extended/v1/block?limit=2&offset=1"},
		{"burn-block-orphan", "/extended/v1/block/by_burn_block_hash/0x" + scenario2OrphanBurnHash},
		{"burn-block-parent", "/extended/v1/block/by_burn_block_hash/0x" + scenario2ParentBurnHash},
		// A miner paid twice by one block for one parent (its share of the microblock fees it
		// confirmed and of those it produced), and the miner of both blocks at height 2.
		{"stx-miner", "/extended/v1/address/SPG771RDGXHQ60N3SAZ3KF4PGBEXN0V30AWVAEJF/stx"},
		{"stx-miner-until", "/extended/v1/address/SPG771RDGXHQ60N3SAZ3KF4PGBEXN0V30AWVAEJF/stx?until_block=1"},
		{"stx-miner-forked", "/extended/v1/address/SP3MKRB8AGZ1FTNCJAPWE13D7R4AD8CDDTRCVHS4V/stx"},
	},
	// One block confirming six microblocks that arrived out of order.
	"mainnet-out-of-order-microblock": {
		{"blocks", "/extended/v1/block"},
		{"burn-block", "/extended/v1/block/by_burn_block_hash/0x" + outOfOrderBurnHash},
	},
	// Block 0 has a zero burn block time: a block's time fields read as the epoch.
	"epoch-3-transition": {
		{"burn-block-genesis", "/extended/v1/block/by_burn_block_hash/0x0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S1": {
		{"stx-locked", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/stx"},
		{"stx-locked-until", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/stx?until_block=7"},
		{"stx-received", "/extended/v1/address/ST1HB1T8WRNBYB0Y3T7WXZS38NKKPTBR3EG9EPJKR/stx"},
		{"events-lock", "/extended/v1/tx/events?address=STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6&type=stx_lock"},
		{"twt", "/extended/v1/address/STB44HYPYAT2BB2QE513NSP81HTMYWBJP02HPGK6/transactions_with_transfers?limit=2"},
		// A mined transaction that came through the mempool: asked in lower case it is answered
		// mined; in upper case, by its mempool record (and not found under its own spelling).
		{"multiple-mined-lower-case", "/extended/v1/tx/multiple?tx_id=0x23c5b683d41592eb6fe48c7d0de590521b6de18f81242c8f20b9e9e94a240f1e"},
		{"multiple-mined-upper-case", "/extended/v1/tx/multiple?tx_id=0x23C5B683D41592EB6FE48C7D0DE590521B6DE18F81242C8F20B9E9E94A240F1E"},
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
		// The counterpart of a mint (sender) and of a burn (recipient) is "".
		{"twt-ft-mint", "/extended/v1/address/SP1XQ62X9WJTMZSBTVZN2DZV9WDVM60X2SK5DTFZ5/transactions_with_transfers"},
		{"twt-ft-burn", "/extended/v1/address/SP2EZY2MYT3TCD92FMC71XZ8M0H56ZBVTWNXS7J52/transactions_with_transfers"},
		{"twt-nft-mint", "/extended/v1/address/SP31W0KWYGSK71VCJ52F241FH9863G2DPDZ06XGTR/transactions_with_transfers"},
		{"twt-stx-burn", "/extended/v1/address/SP2H6CH8A0ESR17A3E8S1DMDTWW4C7C6AWDWCVYQ1/transactions_with_transfers"},
		{"stx", "/extended/v1/address/SP105ARDW7EQTFTFMYNGMKJTA9JYFHF0FFMW9K815/stx"},
	},
}

// Burn block hashes of blocks with microblocks (see goldenCalls).
const (
	scenario2OrphanBurnHash = "000000000000000000142f51853336d9ba1f218030c8dccd7f6f027ba2b17252"
	scenario2ParentBurnHash = "0000000000000000000f66a448b450abee4f30278993d7f80aa7fbf80c2a63e2"
	outOfOrderBurnHash      = "00000000000000000007ec5390da250d66427eb135ccbfa84ffc770896f8f8d1"
)

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

func TestGolden(t *testing.T) { recordGoldens(t, goldenCalls, "") }

// recordGoldens replays each fixture, serves it, and records each call's answer (redirects not
// followed) in testdata/<fixture>/<prefix><name>.json.
func recordGoldens(t *testing.T, calls map[string][]call, prefix string) {
	for fixture, calls := range calls {
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
					goldenResponse(t, fixture, prefix+c.name, resp)
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
