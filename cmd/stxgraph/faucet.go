package main

import (
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph"
	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/faucet"
	"github.com/stxgraph/stxgraph/stacks/node"
)

// faucetConfig holds the testnet faucets' settings. The STX faucet is on when FAUCET_PRIVATE_KEY
// lists keys, the BTC faucet when the Bitcoin RPC settings and BTC_FAUCET_PK are all given.
type faucetConfig struct {
	coreHost, faucetNodeHost string
	corePort, faucetNodePort int
	stxKeys                  string
	stxAmount, stackingPad   uint64
	rateLimits               bool
	ipLimit                  int
	trustedProxies           prefixList
	btc                      faucet.BTCConfig
}

func (c *faucetConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.coreHost, "stacks-core-rpc-host", "127.0.0.1", withEnv("stacks-core-rpc-host", "stacks-node RPC host the STX faucet uses"))
	fs.IntVar(&c.corePort, "stacks-core-rpc-port", 20443, withEnv("stacks-core-rpc-port", "stacks-node RPC port"))
	fs.StringVar(&c.faucetNodeHost, "faucet-node-host", "", withEnv("faucet-node-host", "stacks-node RPC host for the STX faucet only (with faucet-node-port; overrides stacks-core-rpc-*)"))
	fs.IntVar(&c.faucetNodePort, "faucet-node-port", 0, withEnv("faucet-node-port", "stacks-node RPC port for the STX faucet only"))
	fs.StringVar(&c.stxKeys, "faucet-private-key", "", withEnv("faucet-private-key", "comma-separated hex private keys of the STX faucet; prefer the environment variable"))
	fs.Uint64Var(&c.stxAmount, "faucet-stx-amount", faucet.DefaultSTXAmount, withEnv("faucet-stx-amount", "µSTX the STX faucet sends per request"))
	fs.Uint64Var(&c.stackingPad, "faucet-stacking-pad", faucet.DefaultStackingPadPercent, withEnv("faucet-stacking-pad", "percent added to the node's stacking minimum for stacking=true"))
	fs.BoolVar(&c.rateLimits, "faucet-rate-limit", true, withEnv("faucet-rate-limit", "apply the faucets' rate limits"))
	fs.IntVar(&c.ipLimit, "faucet-ip-limit", faucet.DefaultLimits().PerIP, withEnv("faucet-ip-limit", "faucet requests per client IP and currency in 5 minutes; 0 = no limit"))
	fs.Var(&c.trustedProxies, "trusted-proxies", withEnv("trusted-proxies", "comma-separated IPs or CIDRs of reverse proxies whose X-Forwarded-For names the client"))
	b := &c.btc
	fs.StringVar(&b.RPCHost, "btc-rpc-host", "", withEnv("btc-rpc-host", "Bitcoin node RPC host of the BTC faucet"))
	fs.IntVar(&b.RPCPort, "btc-rpc-port", 0, withEnv("btc-rpc-port", "Bitcoin node RPC port (18443 on bitcoind regtest, 18334 on btcd)"))
	fs.StringVar(&b.RPCUser, "btc-rpc-user", "", withEnv("btc-rpc-user", "Bitcoin node RPC user"))
	fs.StringVar(&b.RPCPassword, "btc-rpc-pw", "", withEnv("btc-rpc-pw", "Bitcoin node RPC password; prefer the environment variable"))
	fs.StringVar(&b.PrivateKeyHex, "btc-faucet-pk", "", withEnv("btc-faucet-pk", "hex private key holding the BTC faucet's coins; prefer the environment variable"))
	fs.StringVar(&b.Network, "btc-network", "regtest", withEnv("btc-network", "Bitcoin network of the BTC faucet: regtest or testnet"))
	fs.Int64Var(&b.AmountSats, "btc-faucet-amount", faucet.DefaultBTCAmount, withEnv("btc-faucet-amount", "satoshis the BTC faucet sends per request"))
	fs.Int64Var(&b.FallbackFeeRate, "btc-fallback-fee-rate", faucet.DefaultBTCFallbackRate, withEnv("btc-fallback-fee-rate", "sat/vB the BTC faucet pays while the node has no fee estimate"))
	fs.StringVar(&b.Backend, "btc-rpc-backend", "", withEnv("btc-rpc-backend", "bitcoind or btcd; empty asks the node"))
}

// service builds the faucets; close releases the BTC node connection.
func (c *faucetConfig) service(store *db.Store, chainID uint32) (svc *faucet.Service, closeFn func(), err error) {
	host, port := c.coreHost, c.corePort
	if c.faucetNodeHost != "" && c.faucetNodePort != 0 {
		host, port = c.faucetNodeHost, c.faucetNodePort
	}
	stx, err := faucet.NewSTX(faucet.STXConfig{
		Node: node.New("http://"+net.JoinHostPort(host, strconv.Itoa(port)), nil), Store: store,
		Keys: faucet.SplitKeys(c.stxKeys), Amount: c.stxAmount, StackingPadPercent: c.stackingPad, ChainID: chainID,
	})
	if err != nil {
		return nil, nil, err
	}
	cfg := faucet.Config{Store: store, ChainID: chainID, Limits: faucet.DefaultLimits()}
	cfg.Limits.PerIP = c.ipLimit
	if !c.rateLimits {
		cfg.Limits = faucet.Limits{}
	}
	closeFn = func() {}
	if stx != nil {
		cfg.STX = stx
		slog.Info("STX faucet enabled", "senders", stx.Addresses())
	}
	btc, err := faucet.NewBTC(c.btc)
	switch {
	case stxgraph.ErrorCode(err) == stxgraph.EFORBIDDEN:
		// Not configured: the BTC faucet answers 403.
	case err != nil:
		return nil, nil, err
	default:
		cfg.BTC, closeFn = btc, btc.Close
		p2pkh, p2wpkh := btc.Addresses()
		slog.Info("BTC faucet enabled", "p2pkh", p2pkh, "p2wpkh", p2wpkh)
	}
	return faucet.New(cfg), closeFn, nil
}

// prefixList is a flag of comma-separated IP addresses or CIDR prefixes.
type prefixList []netip.Prefix

func (p *prefixList) String() string {
	s := make([]string, len(*p))
	for i, x := range *p {
		s[i] = x.String()
	}
	return strings.Join(s, ",")
}

func (p *prefixList) Set(v string) error {
	var out prefixList
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if pfx, err := netip.ParsePrefix(part); err == nil {
			out = append(out, pfx.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return errors.New("want IP addresses or CIDR prefixes, comma-separated")
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	*p = out
	return nil
}
