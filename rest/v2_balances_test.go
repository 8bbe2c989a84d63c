package rest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stxgraph/stxgraph/rest"
	"github.com/stxgraph/stxgraph/server"
)

// Principals and tokens of the fixtures. In poisonmicroblock the ALEX vault contract holds three
// tokens, whose identifiers sort differently with and without case; an account there holds
// only negative balances (the fixture starts mid-chain, so its earlier receipts are missing).
// In mainnet-reorg-scenario2 one account holds a token and another a negative balance of it.
const (
	alexVault     = "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.alex-vault"
	alexToken     = "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.age000-governance-token::alex"
	negativeOnly  = "SP2EZY2MYT3TCD92FMC71XZ8M0H56ZBVTWNXS7J52"
	wrappedHolder = "SP1N790WZKDTZF5268QJ4WJVQZ1F413XSB9WZS9RJ"
	wrappedDebtor = "SP31596TY1N33159BQCVEC9H16HP0KQ2VTD140157"
	wrappedToken  = "SP32AEEF6WW5Y0NMJ1S8SBSZDAY8R5J32NBZFPKKZ.wrapped-nothing-v8::wrapped-nthng"
	noTokens      = "SP000000000000000000002Q6VF78"
)

const ftPath = "/extended/v2/addresses/"

// v2BalanceCalls are the golden requests of the balances routes, per fixture.
var v2BalanceCalls = map[string][]call{
	"poisonmicroblock": {
		{"ft-list", ftPath + alexVault + "/balances/ft"},
		{"ft-list-page", ftPath + alexVault + "/balances/ft?limit=1&offset=1"},
		{"ft-list-past-end", ftPath + alexVault + "/balances/ft?offset=3"},
		{"ft-list-limit-zero", ftPath + alexVault + "/balances/ft?limit=0"},
		{"ft-list-negative-only", ftPath + negativeOnly + "/balances/ft"},
		{"ft-list-trailing-slash", ftPath + alexVault + "/balances/ft/?limit=1"},
		{"ft-list-contract-name-case", ftPath + "SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.ALEX-VAULT/balances/ft"},
		{"ft-list-none", ftPath + noTokens + "/balances/ft"},
		{"ft-list-limit-over-max", ftPath + alexVault + "/balances/ft?limit=201"},
		{"ft-list-limit-not-integer", ftPath + alexVault + "/balances/ft?limit=ten"},
		{"ft-list-offset-negative", ftPath + alexVault + "/balances/ft?offset=-1"},
		{"ft-list-principal-pattern", ftPath + "hello/balances/ft"},
		{"ft-list-principal-checksum", ftPath + "SP2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MJ/balances/ft"},
		{"ft-one", ftPath + alexVault + "/balances/ft/" + alexToken},
		{"ft-one-trailing-slash", ftPath + alexVault + "/balances/ft/" + alexToken + "/"},
		{"ft-one-token-case", ftPath + alexVault + "/balances/ft/SP3K8BC0PPEVCV7NZ6QSRWPQ2JE9E5B6N3PA0KBR9.AGE000-governance-token::alex"},
		{"ft-one-not-held", ftPath + noTokens + "/balances/ft/" + alexToken},
		{"ft-one-unknown-token", ftPath + alexVault + "/balances/ft/no-such-token"},
		{"ft-one-stx", ftPath + "SP3ER778NR74PN9265E607J4X6M8ECMAT982QHC4K/balances/ft/stx"},
		{"ft-one-negative", ftPath + negativeOnly + "/balances/ft/" + alexToken},
		{"ft-one-nul-token", ftPath + alexVault + "/balances/ft/a%00b"},
		{"ft-one-invalid-utf8-token", ftPath + alexVault + "/balances/ft/a%FFb"},
		{"ft-one-principal-checksum", ftPath + "SP2ZRX0K27GW0SP3GJCEMHD95TQGJMKB7G9Y0X1MJ/balances/ft/" + alexToken},
	},
	"mainnet-reorg-scenario2": {
		{"ft-list", ftPath + wrappedHolder + "/balances/ft"},
		{"ft-one", ftPath + wrappedHolder + "/balances/ft/" + wrappedToken},
		{"ft-one-negative", ftPath + wrappedDebtor + "/balances/ft/" + wrappedToken},
		{"ft-one-stx", ftPath + wrappedHolder + "/balances/ft/stx"},
		{"ft-list-negative-only", ftPath + wrappedDebtor + "/balances/ft"},
	},
	"mainnet-reorg-scenario1": {
		{"ft-list-none", ftPath + noTokens + "/balances/ft"},
	},
	"fuzzed-transactions-1": {
		{"ft-list-none", ftPath + noTokens + "/balances/ft?limit=200&offset=10"},
		{"ft-one-not-held", ftPath + noTokens + "/balances/ft/" + wrappedToken},
	},
}

func TestV2BalancesGolden(t *testing.T) { recordGoldens(t, v2BalanceCalls, "v2_balances-") }

// The balances page at a chain state carries the tip's ETag, answers If-None-Match with 304,
// and lists the balances by token identifier regardless of case.
func TestV2FtBalancesETagAndOrder(t *testing.T) {
	t.Parallel()
	srv := serve(t, replay(t, "poisonmicroblock"), rest.Options{ServerVersion: "test"})
	resp, err := http.Get(srv.URL + ftPath + alexVault + "/balances/ft")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Total   int `json:"total"`
		Results []struct {
			Token   string `json:"token"`
			Balance string `json:"balance"`
		} `json:"results"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	tag := resp.Header.Get("ETag")
	if err != nil || tag == "" || page.Total != 3 || len(page.Results) != 3 {
		t.Fatalf("status %d, ETag %q, total %d, %d results, %v", resp.StatusCode, tag, page.Total, len(page.Results), err)
	}
	for i := 1; i < len(page.Results); i++ {
		if bytes.Compare(bytes.ToLower([]byte(page.Results[i-1].Token)), bytes.ToLower([]byte(page.Results[i].Token))) > 0 {
			t.Errorf("%s listed before %s", page.Results[i-1].Token, page.Results[i].Token)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+ftPath+alexVault+"/balances/ft/"+alexToken, nil)
	req.Header.Set("If-None-Match", tag)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the tip's ETag: status %d, want 304", resp.StatusCode)
	}
}

// accountTokensQuery asks an account's token balances and NFT holdings.
const accountTokensQuery = `query($p: String!, $t: String!, $l: Int!) { account(principal: $p) {
	ftBalances(limit: $l, offset: 0) { total results { token balance } }
	ftBalance(token: $t) { token balance }
	nftHoldings(limit: 5) { total results { assetIdentifier value { hex repr } txId blockHeight transaction { txId blockHeight } } }
} }`

// GraphQL answers of Account's token fields, per fixture: the NFT holders are those of the
// fixtures' mints and transfers, scenario2's after the reorg that moved its mint to the new
// canonical block.
var v2BalanceGraphQL = map[string][]struct {
	name, principal, token string
	limit                  int
}{
	"poisonmicroblock": {
		{"graphql-alex-vault", alexVault, alexToken, 2},
		{"graphql-alex-vault-no-rows", alexVault, alexToken, 0},
		{"graphql-nft-holder", "SP3ER778NR74PN9265E607J4X6M8ECMAT982QHC4K", alexToken, 2},
	},
	"mainnet-reorg-scenario2": {
		{"graphql-nft-holder", "SP20P421F7R0QMGKSSHN2MZ0ZF6V7KD4F6JJHB7R1", wrappedToken, 2},
	},
	"mainnet-out-of-order-microblock": {
		{"graphql-nft-holder", "SPJW1XE278YMCEYMXB8ZFGJMH8ZVAAEDP2S2PJYG.stacks-punks-market", "SP466FNC0P7JWTNM2R9T199QRZN1MYEDTAR0KP27.miamicoin-token::miamicoin", 2},
	},
}

func TestV2BalancesGraphQLGolden(t *testing.T) {
	for fixture, cases := range v2BalanceGraphQL {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			h, err := server.New(server.Config{Store: replay(t, fixture), ServerVersion: "test"})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					vars, _ := json.Marshal(map[string]any{"p": c.principal, "t": c.token, "l": c.limit})
					req, _ := http.NewRequest(http.MethodGet, "/graphql?query="+url.QueryEscape(accountTokensQuery)+"&variables="+url.QueryEscape(string(vars)), nil)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					goldenResponse(t, fixture, "v2_balances-"+c.name, rec.Result())
				})
			}
		})
	}
}
