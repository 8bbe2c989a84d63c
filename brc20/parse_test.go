package brc20

import (
	"math/big"
	"testing"
)

func TestParse(t *testing.T) {
	const deployPepe = `{"p":"brc-20","op":"deploy","tick":"pepe","max":"21000000","lim":"1000","dec":"6"}`
	tests := []struct {
		name, ctype, body string
		want              *Op // nil: not an operation
	}{
		{"deploy", "text/plain", deployPepe,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("21000000", 6), Limit: sc("1000", 6), Decimals: 6}},
		{"deploy as json", "application/json", deployPepe,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("21000000", 6), Limit: sc("1000", 6), Decimals: 6}},
		{"charset without space", "text/plain;charset=utf-8", deployPepe,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("21000000", 6), Limit: sc("1000", 6), Decimals: 6}},
		{"pgp signature is text in ord's table", "application/pgp-signature", deployPepe,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("21000000", 6), Limit: sc("1000", 6), Decimals: 6}},
		{"charset with space rejected", "text/plain; charset=utf-8", deployPepe, nil},
		{"charset upper case rejected", "text/plain;charset=UTF-8", deployPepe, nil},
		{"json with params rejected", "application/json;charset=utf-8", deployPepe, nil},
		{"html rejected", "text/html", deployPepe, nil},
		{"empty content type", "", deployPepe, nil},
		{"upper-case tick keeps display", "text/plain", `{"p":"brc-20","op":"deploy","tick":"PEPE","max":"21000000"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "PEPE", Max: sc("21000000", 18), Limit: sc("21000000", 18), Decimals: 18}},
		{"whitespace around and inside", "text/plain", "\n { \n  \"p\": \"brc-20\",\n  \"op\": \"deploy\",\n  \"tick\": \"ordi\",\n  \"max\": \"21000000\",\n  \"lim\": \"1000\"\n}\n\n",
			&Op{Kind: Deploy, Ticker: "ordi", DisplayTick: "ordi", Max: sc("21000000", 18), Limit: sc("1000", 18), Decimals: 18}},
		{"emoji tick of 4 bytes", "text/plain", `{"p":"brc-20","op":"deploy","tick":"😉","max":"100"}`,
			&Op{Kind: Deploy, Ticker: "😉", DisplayTick: "😉", Max: sc("100", 18), Limit: sc("100", 18), Decimals: 18}},
		{"spaces in tick", "text/plain", `{"p":"brc-20","op":"deploy","tick":"a  b","max":"100"}`,
			&Op{Kind: Deploy, Ticker: "a  b", DisplayTick: "a  b", Max: sc("100", 18), Limit: sc("100", 18), Decimals: 18}},
		{"8-byte emoji tick", "text/plain", `{"p":"brc-20","op":"deploy","tick":"🤬😉","max":"100"}`, nil},
		{"3-byte tick", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pep","max":"100"}`, nil},
		{"5-byte tick without self_mint", "text/plain", `{"p":"brc-20","op":"deploy","tick":"$pepe","max":"100"}`, nil},
		{"5-byte self mint", "text/plain", `{"p":"brc-20","op":"deploy","tick":"$pepe","max":"100","lim":"1","dec":"0","self_mint":"true"}`,
			&Op{Kind: Deploy, Ticker: "$pepe", DisplayTick: "$pepe", Max: sc("100", 0), Limit: sc("1", 0), Decimals: 0, SelfMint: true}},
		{"self mint max 0 is unlimited", "text/plain", `{"p":"brc-20","op":"deploy","tick":"$pepe","max":"0","lim":"1000","dec":"6","self_mint":"true"}`,
			&Op{Kind: Deploy, Ticker: "$pepe", DisplayTick: "$pepe", Max: sc("18446744073709551615", 6), Limit: sc("1000", 6), Decimals: 6, SelfMint: true}},
		{"self mint lim 0 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"$pepe","max":"0","lim":"0","self_mint":"true"}`, nil},
		{"4-byte tick with self_mint true invalid (Hiro)", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100","self_mint":"true"}`, nil},
		{"self_mint false on 4 bytes is normal", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100","self_mint":"false"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("100", 18), Limit: sc("100", 18), Decimals: 18}},
		{"self_mint not a string invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100","self_mint":true}`, nil},
		{"max 0 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"0"}`, nil},
		{"max 0.0 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"0.0"}`, nil},
		{"max 0000 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"0000"}`, nil},
		{"lim 0 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","lim":"0"}`, nil},
		{"dec 0 valid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":"0"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("10", 0), Limit: sc("10", 0), Decimals: 0}},
		{"dec 18 valid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10.5","dec":"18"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("10.5", 18), Limit: sc("10.5", 18), Decimals: 18}},
		{"dec 19 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":"19"}`, nil},
		{"dec 6.0 invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":"6.0"}`, nil},
		{"dec empty invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":""}`, nil},
		{"dec negative invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":"-1"}`, nil},
		{"dec as number invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","dec":6}`, nil},
		{"max as number invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":21000000}`, nil},
		{"extra fields of any type ignored", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","foo":99,"to":[1],"fee":{"a":1}}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("10", 18), Limit: sc("10", 18), Decimals: 18}},
		{"null lim means absent", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"10","lim":null}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("10", 18), Limit: sc("10", 18), Decimals: 18}},
		{"fraction digits above dec invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"21000000.000","dec":"0"}`, nil},
		{"fraction digits at dec valid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"21000000.12","dec":"2"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: big.NewInt(2100000012), Limit: big.NewInt(2100000012), Decimals: 2}},
		{"leading dot invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":".5"}`, nil},
		{"trailing dot invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"5."}`, nil},
		{"two dots invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"1.2.3"}`, nil},
		{"spaces in number invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"21000000","lim":" 1000  "}`, nil},
		{"sign invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"+100"}`, nil},
		{"exponent invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"1e5"}`, nil},
		{"empty max invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":""}`, nil},
		{"uint64 max whole tokens valid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"18446744073709551615"}`,
			&Op{Kind: Deploy, Ticker: "pepe", DisplayTick: "pepe", Max: sc("18446744073709551615", 18), Limit: sc("18446744073709551615", 18), Decimals: 18}},
		{"far above uint64 max invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"18446744073709561615"}`, nil},
		{"uppercase keys invalid", "text/plain", `{"P":"brc-20","OP":"deploy","TICK":"pepe","MAX":"100"}`, nil},
		{"uppercase p on a mint invalid", "text/plain", `{"P":"brc-20","op":"mint","tick":"ordi","amt":"1000"}`, nil},
		{"wrong p", "text/plain", `{"p":"brc20","op":"deploy","tick":"pepe","max":"100"}`, nil},
		{"wrong op", "text/plain", `{"p":"brc-20","op":"deploi","tick":"pepe","max":"100"}`, nil},
		{"JSON5 trailing comma invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100",}`, nil},
		{"truncated JSON invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100"`, nil},
		{"array is not an object", "text/plain", `["brc-20","deploy","pepe","100"]`, nil},
		{"text after the object invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","max":"100"} x`, nil},
		{"duplicate tick invalid (Hiro)", "text/plain", `{"p":"brc-20","op":"deploy","tick":"pepe","tick":"ordi","max":"100"}`, nil},
		{"duplicate amt invalid (Hiro)", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1","amt":"2"}`, nil},
		{"duplicate unknown field harmless", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1","x":1,"x":2}`,
			&Op{Kind: Mint, Ticker: "ordi", DisplayTick: "ordi", Amount: "1"}},
		{"invalid UTF-8 invalid", "text/plain", "{\"p\":\"brc-20\",\"op\":\"deploy\",\"tick\":\"pe\xffe\",\"max\":\"100\"}", nil},
		{"raw NUL in string invalid JSON", "text/plain", "{\"p\":\"brc-20\",\"op\":\"deploy\",\"tick\":\"X\x00\x00Z\",\"max\":\"100\"}", nil},
		{"escaped NUL in tick invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"X\u0000\u0000Z","max":"100"}`, nil},
		{"escaped NUL in mint tick invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"X\u0000\u0000Z","amt":"1"}`, nil},
		{"lone surrogate escape invalid", "text/plain", `{"p":"brc-20","op":"deploy","tick":"ab\ud800","max":"100"}`, nil},
		{"escaped key reads as the key", "text/plain", `{"\u0070":"brc-20","op":"mint","tick":"ordi","amt":"5"}`,
			&Op{Kind: Mint, Ticker: "ordi", DisplayTick: "ordi", Amount: "5"}},
		{"mint", "text/plain", `{"p":"brc-20","op":"mint","tick":"ORDI","amt":"1000"}`,
			&Op{Kind: Mint, Ticker: "ordi", DisplayTick: "ORDI", Amount: "1000"}},
		{"mint of a 5-byte tick", "text/plain", `{"p":"brc-20","op":"mint","tick":"$pepe","amt":"1"}`,
			&Op{Kind: Mint, Ticker: "$pepe", DisplayTick: "$pepe", Amount: "1"}},
		{"mint of a 6-byte tick invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"abcdef","amt":"1"}`, nil},
		{"mint with a max field is a failed deploy (Hiro)", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1","max":"5"}`, nil},
		{"mint amt 0 invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"0"}`, nil},
		{"mint amt number invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":1000}`, nil},
		{"mint amt 19 decimals invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi","amt":"1.0000000000000000001"}`, nil},
		{"mint missing amt invalid", "text/plain", `{"p":"brc-20","op":"mint","tick":"ordi"}`, nil},
		{"transfer", "application/json", `{"p":"brc-20","op":"transfer","tick":"ordi","amt":"12.5"}`,
			&Op{Kind: Transfer, Ticker: "ordi", DisplayTick: "ordi", Amount: "12.5"}},
		{"op in other case invalid", "text/plain", `{"p":"brc-20","op":"Transfer","tick":"ordi","amt":"1"}`, nil},
		{"legacy to and fee fields ignored", "text/plain", `{"p":"brc-20","op":"transfer","tick":"ordi","amt":"1","to":"x","fee":"2"}`,
			&Op{Kind: Transfer, Ticker: "ordi", DisplayTick: "ordi", Amount: "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Parse(tc.ctype, []byte(tc.body))
			if tc.want == nil {
				if ok {
					t.Fatalf("parsed %+v, want no operation", got)
				}
				return
			}
			if !ok {
				t.Fatalf("not parsed, want %+v", *tc.want)
			}
			if got.Kind != tc.want.Kind || got.Ticker != tc.want.Ticker || got.DisplayTick != tc.want.DisplayTick ||
				got.Decimals != tc.want.Decimals || got.SelfMint != tc.want.SelfMint || got.Amount != tc.want.Amount ||
				!eqInt(got.Max, tc.want.Max) || !eqInt(got.Limit, tc.want.Limit) {
				t.Fatalf("got %+v (max %v lim %v), want %+v (max %v lim %v)", got, got.Max, got.Limit, *tc.want, tc.want.Max, tc.want.Limit)
			}
		})
	}
}

func TestLower(t *testing.T) {
	for in, want := range map[string]string{"ORDI": "ordi", "PePe": "pepe", "😉": "😉", "İabc": "i\u0307abc", "ΑΣ": "ας", "ΣΑ": "σα", "a  B": "a  b"} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		s    string
		dec  int
		want string
	}{{"1", 0, "1"}, {"1", 18, "1000000000000000000"}, {"12.5", 2, "1250"}, {"0.000000000000000001", 18, "1"}, {"007", 1, "70"}} {
		if got := Scale(tc.s, tc.dec).String(); got != tc.want {
			t.Errorf("Scale(%q, %d) = %s, want %s", tc.s, tc.dec, got, tc.want)
		}
	}
}

func TestUnscale(t *testing.T) {
	for _, tc := range []struct {
		integer string
		dec     int
		want    string
	}{{"7", 0, "7"}, {"21000000000000000000000000", 18, "21000000.000000000000000000"}, {"1250", 2, "12.50"},
		{"1", 18, "0.000000000000000001"}, {"0", 3, "0.000"}, {"125", 3, "0.125"}} {
		if got := Unscale(tc.integer, tc.dec); got != tc.want {
			t.Errorf("Unscale(%q, %d) = %q, want %q", tc.integer, tc.dec, got, tc.want)
		}
	}
}

func sc(s string, dec int) *big.Int { return Scale(s, dec) }

func eqInt(a, b *big.Int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Cmp(b) == 0
}
