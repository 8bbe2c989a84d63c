// Package rpc talks to a Bitcoin node (bitcoind or btcd) over JSON-RPC: it finds the spendable
// outputs of a set of addresses, estimates fee rates and broadcasts transactions. The two node
// implementations differ (bitcoind has scantxoutset and estimatesmartfee; btcd has
// searchrawtransactions and estimatefee), so each has its own backend behind one interface.
//
// Requests and results are btcd's btcjson types. The transport is a plain HTTP POST per call
// with the caller's context: rpcclient's HTTP mode sends one request at a time and retries a
// refused connection ten times (about 20 s), which would stall every faucet request while the
// node is down.
package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/btcsuite/btcd/btcjson"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Backend names a node implementation.
type Backend string

// Node implementations.
const (
	Bitcoind Backend = "bitcoind"
	Btcd     Backend = "btcd"
)

// Config says where the node is. Backend is detected from the node when empty. Host may carry
// an http:// or https:// scheme (plain HTTP by default).
type Config struct {
	Host     string
	Port     int
	User     string
	Password string
	Backend  Backend
	Timeout  time.Duration // per call; 120 s when 0 (scantxoutset reads the whole UTXO set)
}

// Client is a JSON-RPC client of one node. It is safe for concurrent use.
type Client struct {
	url        string
	user, pass string
	http       *http.Client
	id         atomic.Uint64
	backend    Backend
	outputs    OutputFinder
}

// New makes a client; when cfg.Backend is empty it asks the node what it is.
func New(ctx context.Context, cfg Config) (*Client, error) {
	switch cfg.Backend {
	case "", Bitcoind, Btcd:
	default:
		return nil, fmt.Errorf("unknown bitcoin node backend %q (want bitcoind or btcd)", cfg.Backend)
	}
	scheme, host := "http", cfg.Host
	if h, ok := strings.CutPrefix(host, "https://"); ok {
		scheme, host = "https", h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "http://"), "/")
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = 120 * time.Second
	}
	c := &Client{
		url:  scheme + "://" + net.JoinHostPort(host, strconv.Itoa(cfg.Port)) + "/",
		user: cfg.User, pass: cfg.Password,
		http:    &http.Client{Timeout: timeout, Transport: nodeTransport()},
		backend: cfg.Backend,
	}
	if c.backend == "" {
		var err error
		if c.backend, err = c.detect(ctx); err != nil {
			return nil, err
		}
	}
	if c.backend == Btcd {
		c.outputs = btcdOutputs{c}
	} else {
		c.outputs = &bitcoindOutputs{c: c}
	}
	return c, nil
}

// maxNodeConns bounds a client's connections to its node. A node serves a few RPC requests at
// once (bitcoind 4 threads, btcd 10 clients) and answers the ones beyond with HTTP 503, which a
// caller would take for the node being down: calls beyond the bound wait here for a connection.
const maxNodeConns = 4

// nodeTransport is a client's own connection pool to its node, bounded by maxNodeConns and
// keeping them open between calls.
func nodeTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxConnsPerHost, t.MaxIdleConnsPerHost = maxNodeConns, maxNodeConns
	return t
}

// Backend is the node implementation this client talks to.
func (c *Client) Backend() Backend { return c.backend }

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// detect tells btcd from bitcoind: bitcoind answers getnetworkinfo with its "/Satoshi:…/" user
// agent; btcd does not implement getnetworkinfo but still has getinfo, which bitcoind dropped.
func (c *Client) detect(ctx context.Context) (Backend, error) {
	var info btcjson.GetNetworkInfoResult
	err := c.call(ctx, &info, "getnetworkinfo")
	if err == nil {
		if strings.Contains(strings.ToLower(info.SubVersion), "btcd") {
			return Btcd, nil
		}
		return Bitcoind, nil
	}
	if _, ok := IsRPCError(err); !ok {
		return "", err
	}
	if err := c.call(ctx, nil, "getinfo"); err != nil {
		return "", fmt.Errorf("neither getnetworkinfo nor getinfo: %w", err)
	}
	return Btcd, nil
}

// Chain is the node's network as getblockchaininfo names it ("main", "test", "regtest"…).
func (c *Client) Chain(ctx context.Context) (string, error) {
	var info btcjson.GetBlockChainInfoResult
	if err := c.call(ctx, &info, "getblockchaininfo"); err != nil {
		return "", err
	}
	return info.Chain, nil
}

// FeeRate is the node's fee estimate in sat/vB for confirmation within target blocks, rounded
// up; ok is false when the node has no estimate yet (a young chain, an empty regtest).
func (c *Client) FeeRate(ctx context.Context, target int64) (rate int64, ok bool, err error) {
	var btcPerKvB float64
	if c.backend == Btcd {
		if err := c.call(ctx, &btcPerKvB, "estimatefee", target); err != nil {
			// btcd answers an error, not -1, until its estimator has seen enough blocks.
			if _, ok := IsRPCError(err); ok {
				return 0, false, nil
			}
			return 0, false, err
		}
	} else {
		var res btcjson.EstimateSmartFeeResult
		if err := c.call(ctx, &res, "estimatesmartfee", target, btcjson.EstimateModeConservative); err != nil {
			return 0, false, err
		}
		if res.FeeRate == nil {
			return 0, false, nil
		}
		btcPerKvB = *res.FeeRate
	}
	if btcPerKvB <= 0 {
		return 0, false, nil
	}
	return int64(math.Ceil(btcPerKvB * 1e8 / 1000)), true, nil
}

// Send broadcasts tx (with the node's default fee-rate ceiling) and returns its id as the node
// computed it.
func (c *Client) Send(ctx context.Context, tx *wire.MsgTx) (*chainhash.Hash, error) {
	var buf bytes.Buffer
	if err := tx.Serialize(&buf); err != nil {
		return nil, err
	}
	var txid string
	if err := c.call(ctx, &txid, "sendrawtransaction", fmt.Sprintf("%x", buf.Bytes())); err != nil {
		return nil, err
	}
	return chainhash.NewHashFromStr(txid)
}

// call runs method with params and decodes its result into out (nil: ignore the result).
func (c *Client) call(ctx context.Context, out any, method string, params ...any) error {
	if params == nil {
		params = []any{}
	}
	req, err := btcjson.NewRequest(btcjson.RpcVersion1, c.id.Add(1), method, params)
	if err != nil {
		return err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.SetBasicAuth(c.user, c.pass)
	resp, err := c.http.Do(hreq)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	// bitcoind answers RPC errors with HTTP 500 (404 for unknown methods) and a JSON body; a
	// body that is no JSON-RPC response (401 on bad credentials) is a transport failure.
	var res btcjson.Response
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("%s: HTTP %d", method, resp.StatusCode)
	}
	if res.Error != nil {
		return res.Error
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(res.Result, out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// IsRPCError reports whether err is an error answered by the node (as opposed to a transport
// failure), and returns it.
func IsRPCError(err error) (*btcjson.RPCError, bool) {
	var rerr *btcjson.RPCError
	ok := errors.As(err, &rerr)
	return rerr, ok
}
