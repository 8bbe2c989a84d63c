package rest_test

import (
	"testing"
)

// Signing keys of the fixtures' reward sets.
const (
	epoch3Signer   = "0x038e3c4529395611be9abf6fa3b6987e81d402385e3d605a073f42f407565a4a3d"
	regtestSigner  = "0x029fb154a570a1645af3dd43c3c668a979b59d21a46dd717fd799b13be3b2a0dc7"
	regtestSigner2 = "0x028efa20fa5706567008ebaf48f7ae891342eeb944d96392f719c505c89f84ed8d"
)

// v2PoxCalls are the PoX cycle requests replayed per fixture: epoch-3-transition announces
// cycles 11 (no signers yet) to 14; the regtest stack-stx snapshots announce nothing (S1), then
// cycle 6 with a solo stacker added to a signer (S2, S3); out-of-order-multisig announces cycle
// 6 with other weights.
var v2PoxCalls = map[string][]call{
	"epoch-3-transition": {
		{"cycles", "/extended/v2/pox/cycles"},
		{"cycles-page", "/extended/v2/pox/cycles?limit=2&offset=1"},
		// The reference's total comes with the page's rows: 0 for an empty page.
		{"cycles-offset-past-end", "/extended/v2/pox/cycles?offset=4"},
		{"cycles-limit-zero", "/extended/v2/pox/cycles?limit=0"},
		{"cycles-limit-over", "/extended/v2/pox/cycles?limit=61"},
		{"cycles-limit-not-integer", "/extended/v2/pox/cycles?limit=ten"},
		{"cycles-offset-negative", "/extended/v2/pox/cycles?offset=-1"},
		{"cycle", "/extended/v2/pox/cycles/14"},
		{"cycle-no-signers", "/extended/v2/pox/cycles/11"},
		{"cycle-unknown", "/extended/v2/pox/cycles/15"},
		{"cycle-negative", "/extended/v2/pox/cycles/-1"},
		{"cycle-not-integer", "/extended/v2/pox/cycles/fourteen"},
		{"cycle-beyond-32-bits", "/extended/v2/pox/cycles/4294967296"},
		// The cycle number is read as JavaScript's Number() reads it.
		{"cycle-decimal-point", "/extended/v2/pox/cycles/14.0"},
		{"cycle-hex", "/extended/v2/pox/cycles/0xe"},
		{"cycle-exponent", "/extended/v2/pox/cycles/1e1"},
		{"cycle-space", "/extended/v2/pox/cycles/%2014"},
		{"cycle-fraction", "/extended/v2/pox/cycles/14.5"},
		{"signers-cycle-hex", "/extended/v2/pox/cycles/0xe/signers?limit=1"},
		{"cycle-trailing-slash", "/extended/v2/pox/cycles/14/"},
		{"signers", "/extended/v2/pox/cycles/14/signers"},
		{"signers-page", "/extended/v2/pox/cycles/14/signers?limit=1&offset=1"},
		{"signers-limit-zero", "/extended/v2/pox/cycles/14/signers?limit=0"},
		{"signers-limit-over", "/extended/v2/pox/cycles/14/signers?limit=251"},
		{"signers-none", "/extended/v2/pox/cycles/11/signers"},
		{"signers-cycle-unknown", "/extended/v2/pox/cycles/15/signers"},
		{"signer", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer},
		{"signer-no-0x", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer[2:]},
		{"signer-unknown", "/extended/v2/pox/cycles/14/signers/" + regtestSigner},
		{"signer-cycle-unknown", "/extended/v2/pox/cycles/15/signers/" + epoch3Signer},
		{"signer-odd-hex", "/extended/v2/pox/cycles/14/signers/0x038"},
		{"signer-not-hex", "/extended/v2/pox/cycles/14/signers/0xzz"},
		{"stackers", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer + "/stackers"},
		{"stackers-earlier-cycle", "/extended/v2/pox/cycles/12/signers/" + epoch3Signer + "/stackers"},
		{"stackers-page-past-end", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer + "/stackers?offset=1"},
		{"stackers-limit-over", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer + "/stackers?limit=201"},
		{"stackers-no-0x", "/extended/v2/pox/cycles/14/signers/" + epoch3Signer[2:] + "/stackers"},
		{"stackers-signer-unknown", "/extended/v2/pox/cycles/14/signers/" + regtestSigner + "/stackers"},
		{"stackers-cycle-unknown", "/extended/v2/pox/cycles/15/signers/" + epoch3Signer + "/stackers"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S1": {
		{"cycles", "/extended/v2/pox/cycles"},
		{"cycle-unknown", "/extended/v2/pox/cycles/6"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S2": {
		{"cycles", "/extended/v2/pox/cycles"},
		{"signers", "/extended/v2/pox/cycles/6/signers"},
	},
	"regtest-env-pox-4-stack-stx-in-reward-phase-S3": {
		{"cycles", "/extended/v2/pox/cycles"},
		{"cycle", "/extended/v2/pox/cycles/6"},
		{"signers", "/extended/v2/pox/cycles/6/signers"},
		{"signer", "/extended/v2/pox/cycles/6/signers/" + regtestSigner},
		{"stackers", "/extended/v2/pox/cycles/6/signers/" + regtestSigner + "/stackers"},
		{"stackers-page", "/extended/v2/pox/cycles/6/signers/" + regtestSigner + "/stackers?limit=1&offset=1"},
		{"stackers-other-signer", "/extended/v2/pox/cycles/6/signers/" + regtestSigner2 + "/stackers"},
	},
	"regtest-env-pox-4-out-of-order-multisig-tx": {
		{"cycles", "/extended/v2/pox/cycles"},
		{"signers", "/extended/v2/pox/cycles/6/signers"},
		{"stackers", "/extended/v2/pox/cycles/6/signers/" + regtestSigner2 + "/stackers"},
	},
}

func TestV2Pox(t *testing.T) { recordGoldens(t, v2PoxCalls, "v2_pox-") }
