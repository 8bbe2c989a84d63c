package main

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/faucet"
)

// The faucet settings come from the reference's variables (FAUCET_PRIVATE_KEY, BTC_RPC_*…), and a
// BTC faucet with settings missing is off (403) rather than a start-up failure.
func TestFaucetConfiguration(t *testing.T) {
	keys := "7287ba251d44a4d3fd9276c88ce34c5c52a038955511cccaf77e61068649c17801, 530d9f61984c888536871c6573073bdfc0058896dc1adfe9a6a10dfacadc209101"
	t.Setenv("FAUCET_PRIVATE_KEY", keys)
	t.Setenv("STACKS_CORE_RPC_HOST", "10.0.0.2")
	t.Setenv("STXGRAPH_FAUCET_STX_AMOUNT", "1000000")
	t.Setenv("STXGRAPH_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1")
	t.Setenv("BTC_RPC_HOST", "127.0.0.1")
	t.Setenv("BTC_RPC_PORT", "18443")
	t.Setenv("BTC_RPC_USER", "btc")
	t.Setenv("BTC_FAUCET_AMOUNT", "5000")
	cfg, err := parseServe("--faucet-ip-limit", "7")
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.faucet
	wantProxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32")}
	if f.coreHost != "10.0.0.2" || f.corePort != 20443 || f.stxAmount != 1_000_000 || f.ipLimit != 7 || !f.rateLimits ||
		len(f.trustedProxies) != 2 || f.trustedProxies[0] != wantProxies[0] || f.trustedProxies[1] != wantProxies[1] ||
		f.btc.RPCPort != 18443 || f.btc.RPCUser != "btc" || f.btc.AmountSats != 5000 || f.btc.RPCPassword != "" {
		t.Errorf("faucet config %+v", f)
	}
	svc, closeFn, err := f.service(dbtest.New(t), uint32(cfg.chainID))
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	// BTC_RPC_PW and BTC_FAUCET_PK are missing.
	_, err = svc.BTC(context.Background(), faucet.Request{Address: "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"})
	if stxgraph.ErrorCode(err) != stxgraph.EFORBIDDEN || err.Error() != "BTC faucet is not fully configured" {
		t.Errorf("BTC without password and key: %v", err)
	}
	// The STX faucet is on: a bad address is its first refusal (no node contacted).
	if _, err := svc.STX(context.Background(), faucet.Request{Address: "ST1NOTANADDRESS"}); stxgraph.ErrorCode(err) != stxgraph.EINVALID {
		t.Errorf("STX faucet with keys: %v, want an invalid-address error", err)
	}

	t.Setenv("STXGRAPH_TRUSTED_PROXIES", "10.0.0.0/33")
	if _, err := parseServe(); err == nil || !strings.Contains(err.Error(), "STXGRAPH_TRUSTED_PROXIES") {
		t.Errorf("bad proxy list: %v", err)
	}
	t.Setenv("STXGRAPH_TRUSTED_PROXIES", "")
	t.Setenv("FAUCET_PRIVATE_KEY", "abcd")
	bad, err := parseServe()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bad.faucet.service(dbtest.New(t), 0x80000000); err == nil || strings.Contains(err.Error(), "abcd") {
		t.Errorf("malformed key: %v, want an error that does not quote it", err)
	}
}
