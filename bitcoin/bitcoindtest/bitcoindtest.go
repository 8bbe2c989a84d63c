// Package bitcoindtest is a stand-in for a regtest bitcoind's JSON-RPC, for tests of code that
// supports bitcoind (no bitcoind runs here; btcd, which does, lacks scantxoutset and
// estimatesmartfee). It keeps a UTXO set and a mempool, and checks what it is sent as bitcoind
// would: broadcast transactions are decoded, their inputs must exist, be unspent and mature,
// every script must verify, and the fee must meet the 1 sat/vB relay minimum. Errors come back
// with bitcoind's codes, messages and HTTP statuses.
package bitcoindtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/address/v2"
	"github.com/btcsuite/btcd/chaincfg/v2"
	"github.com/btcsuite/btcd/chainhash/v2"
	"github.com/btcsuite/btcd/txscript/v2"
	"github.com/btcsuite/btcd/wire/v2"
)

// Node is the stand-in node. Its exported fields may be set before requests are made.
type Node struct {
	Host     string
	Port     int
	User     string
	Password string

	// FeeRate is what estimatesmartfee answers, in BTC/kvB; 0 means no estimate.
	FeeRate float64
	// Pre24 makes the node behave like bitcoind before 24 (no gettxspendingprevout) and
	// before 25 (no coinbase flag in scantxoutset).
	Pre24 bool
	// ScanBusy is how many scantxoutset calls answer "Scan already in progress" first.
	ScanBusy int
	// RejectNext, when set, is the reason (code -26) the next sendrawtransaction is refused with.
	RejectNext string

	t        testing.TB
	mu       sync.Mutex
	height   int64
	utxos    map[wire.OutPoint]utxo // confirmed
	mempool  []*wire.MsgTx
	mpSpent  map[wire.OutPoint]chainhash.Hash
	mpOuts   map[wire.OutPoint]utxo
	calls    map[string]int
	fundings uint64
}

type utxo struct {
	out      wire.TxOut
	height   int64 // 0 while in the mempool
	coinbase bool
}

// Start serves the node on loopback at height 200, stopped at cleanup.
func Start(tb testing.TB) *Node {
	n := &Node{
		User: "rpcuser", Password: "rpcpass", t: tb, height: 200,
		utxos: map[wire.OutPoint]utxo{}, mpSpent: map[wire.OutPoint]chainhash.Hash{},
		mpOuts: map[wire.OutPoint]utxo{}, calls: map[string]int{},
	}
	srv := httptest.NewServer(http.HandlerFunc(n.serve))
	tb.Cleanup(srv.Close)
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	n.Host = host
	n.Port, _ = strconv.Atoi(port)
	return n
}

// Fund adds a confirmed output paying value to pkScript, mined confirmations blocks ago.
func (n *Node) Fund(pkScript []byte, value int64, confirmations int64, coinbase bool) wire.OutPoint {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fundings++
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n.fundings)
	op := wire.OutPoint{Hash: sha256.Sum256(b[:]), Index: 0}
	n.utxos[op] = utxo{out: wire.TxOut{Value: value, PkScript: pkScript}, height: n.height - confirmations + 1, coinbase: coinbase}
	return op
}

// Mine confirms the mempool in one new block.
func (n *Node) Mine() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.height++
	for op := range n.mpSpent {
		delete(n.utxos, op)
	}
	for op, u := range n.mpOuts {
		u.height = n.height
		n.utxos[op] = u
	}
	n.mempool, n.mpSpent, n.mpOuts = nil, map[wire.OutPoint]chainhash.Hash{}, map[wire.OutPoint]utxo{}
}

// Mempool returns the transactions accepted since the last Mine.
func (n *Node) Mempool() []*wire.MsgTx {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*wire.MsgTx(nil), n.mempool...)
}

// Calls is how many times method was called.
func (n *Node) Calls(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.calls[method]
}

// rpcError is bitcoind's error object; status is the HTTP status it comes with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	status  int
}

func errf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...), status: http.StatusInternalServerError}
}

var errMethodNotFound = &rpcError{Code: -32601, Message: "Method not found", status: http.StatusNotFound}

func (n *Node) serve(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != n.User || p != n.Password {
		w.Header().Set("WWW-Authenticate", `Basic realm="jsonrpc"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "JSONRPC server handles only POST requests", http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
		ID     json.RawMessage   `json:"id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method == "" || req.ID == nil {
		n.t.Errorf("bitcoind stand-in: malformed JSON-RPC request (%v)", err)
		http.Error(w, "Parse error", http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	n.calls[req.Method]++
	result, rerr := n.dispatch(req.Method, req.Params)
	n.mu.Unlock()
	status := http.StatusOK
	body := map[string]any{"result": result, "error": nil, "id": req.ID}
	if rerr != nil {
		status = rerr.status
		body["result"], body["error"] = nil, rerr
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// params decodes positional parameters into ptrs; bitcoind rejects wrong types with -1/-3.
func params(raw []json.RawMessage, required int, ptrs ...any) *rpcError {
	if len(raw) < required || len(raw) > len(ptrs) {
		return errf(-1, "wrong number of parameters")
	}
	for i, p := range raw {
		if err := json.Unmarshal(p, ptrs[i]); err != nil {
			return errf(-3, "JSON value of type %s is not of expected type", p)
		}
	}
	return nil
}

func (n *Node) dispatch(method string, raw []json.RawMessage) (any, *rpcError) {
	switch method {
	case "getnetworkinfo":
		return map[string]any{"version": 270100, "subversion": "/Satoshi:27.1.0/", "protocolversion": 70016}, nil
	case "getblockchaininfo":
		return map[string]any{"chain": "regtest", "blocks": n.height, "headers": n.height}, nil
	case "getbestblockhash":
		h := sha256.Sum256([]byte(strconv.FormatInt(n.height, 10)))
		return hex.EncodeToString(h[:]), nil
	case "scantxoutset":
		return n.scan(raw)
	case "gettxspendingprevout":
		if n.Pre24 {
			return nil, errMethodNotFound
		}
		return n.spendingPrevout(raw)
	case "gettxout":
		return n.txOut(raw)
	case "estimatesmartfee":
		var target int64
		var mode string
		if err := params(raw, 1, &target, &mode); err != nil {
			return nil, err
		}
		if target < 1 || target > 1008 {
			return nil, errf(-8, "Invalid conf_target, must be between 1 and 1008")
		}
		if mode != "" && mode != "ECONOMICAL" && mode != "CONSERVATIVE" && mode != "UNSET" {
			return nil, errf(-8, "Invalid estimate_mode parameter, must be one of: \"unset\", \"economical\", \"conservative\"")
		}
		if n.FeeRate == 0 {
			return map[string]any{"errors": []string{"Insufficient data or no feerate found"}, "blocks": 0}, nil
		}
		return map[string]any{"feerate": n.FeeRate, "blocks": target}, nil
	case "sendrawtransaction":
		return n.send(raw)
	}
	return nil, errMethodNotFound
}

func (n *Node) scan(raw []json.RawMessage) (any, *rpcError) {
	var action string
	var objects []struct {
		Desc string `json:"desc"`
	}
	if err := params(raw, 1, &action, &objects); err != nil {
		return nil, err
	}
	if action != "start" {
		return nil, errf(-8, "Invalid action '%s'", action)
	}
	if n.ScanBusy > 0 {
		n.ScanBusy--
		return nil, errf(-8, "Scan already in progress, use action \"abort\" or \"status\"")
	}
	scripts := map[string]string{}
	for _, o := range objects {
		a, ok := strings.CutPrefix(o.Desc, "addr(")
		if !ok || !strings.HasSuffix(a, ")") {
			return nil, errf(-5, "'%s' is not a valid descriptor function", o.Desc)
		}
		a = strings.TrimSuffix(a, ")")
		addr, err := address.DecodeAddress(a, &chaincfg.RegressionNetParams)
		if err != nil || !addr.IsForNet(&chaincfg.RegressionNetParams) {
			return nil, errf(-5, "Address is not valid")
		}
		script, _ := txscript.PayToAddrScript(addr)
		scripts[string(script)] = o.Desc
	}
	unspents := []map[string]any{}
	total := 0.0
	for op, u := range n.utxos {
		desc, ok := scripts[string(u.out.PkScript)]
		if !ok {
			continue
		}
		e := map[string]any{
			"txid": op.Hash.String(), "vout": op.Index, "scriptPubKey": hex.EncodeToString(u.out.PkScript),
			"desc": desc, "amount": float64(u.out.Value) / 1e8, "height": u.height,
		}
		if !n.Pre24 {
			e["coinbase"] = u.coinbase
		}
		unspents = append(unspents, e)
		total += float64(u.out.Value) / 1e8
	}
	return map[string]any{"success": true, "txouts": len(n.utxos), "height": n.height, "unspents": unspents, "total_amount": total}, nil
}

func (n *Node) spendingPrevout(raw []json.RawMessage) (any, *rpcError) {
	var outputs []struct {
		Txid string  `json:"txid"`
		Vout *uint32 `json:"vout"`
	}
	if err := params(raw, 1, &outputs); err != nil {
		return nil, err
	}
	if len(outputs) == 0 {
		return nil, errf(-8, "Invalid parameter, outputs are missing")
	}
	var res []map[string]any
	for _, o := range outputs {
		h, err := chainhash.NewHashFromStr(o.Txid)
		if err != nil || len(o.Txid) != 64 || o.Vout == nil {
			return nil, errf(-8, "Invalid parameter, expected txid and vout")
		}
		e := map[string]any{"txid": o.Txid, "vout": *o.Vout}
		if s, ok := n.mpSpent[wire.OutPoint{Hash: *h, Index: *o.Vout}]; ok {
			e["spendingtxid"] = s.String()
		}
		res = append(res, e)
	}
	return res, nil
}

func (n *Node) txOut(raw []json.RawMessage) (any, *rpcError) {
	var txid string
	var vout uint32
	mempool := true
	if err := params(raw, 2, &txid, &vout, &mempool); err != nil {
		return nil, err
	}
	h, err := chainhash.NewHashFromStr(txid)
	if err != nil || len(txid) != 64 {
		return nil, errf(-8, "txid must be of length 64")
	}
	op := wire.OutPoint{Hash: *h, Index: vout}
	u, ok := n.utxos[op]
	if mempool {
		if _, spent := n.mpSpent[op]; spent {
			return nil, nil
		}
		if !ok {
			u, ok = n.mpOuts[op]
		}
	}
	if !ok {
		return nil, nil
	}
	conf := int64(0)
	if u.height > 0 {
		conf = n.height - u.height + 1
	}
	return map[string]any{
		"bestblock": strings.Repeat("0", 64), "confirmations": conf, "value": float64(u.out.Value) / 1e8,
		"scriptPubKey": map[string]any{"hex": hex.EncodeToString(u.out.PkScript)}, "coinbase": u.coinbase,
	}, nil
}

// send accepts a transaction into the mempool after bitcoind's checks.
func (n *Node) send(raw []json.RawMessage) (any, *rpcError) {
	var txHex string
	var maxFeeRate float64
	if err := params(raw, 1, &txHex, &maxFeeRate); err != nil {
		return nil, err
	}
	if reason := n.RejectNext; reason != "" {
		n.RejectNext = ""
		return nil, errf(-26, "%s", reason)
	}
	b, err := hex.DecodeString(txHex)
	var tx wire.MsgTx
	if err == nil {
		err = tx.Deserialize(bytes.NewReader(b))
	}
	if err != nil {
		return nil, errf(-22, "TX decode failed. Make sure the tx has at least one input.")
	}
	prev, in, rerr := n.inputs(&tx)
	if rerr != nil {
		return nil, rerr
	}
	var out int64
	for _, o := range tx.TxOut {
		out += o.Value
	}
	if out > in {
		return nil, errf(-26, "bad-txns-in-belowout")
	}
	if rerr := verifyScripts(&tx, prev); rerr != nil {
		return nil, rerr
	}
	vsize := int64((tx.SerializeSizeStripped()*3 + tx.SerializeSize() + 3) / 4)
	if fee := in - out; fee < vsize {
		return nil, errf(-26, "min relay fee not met, %d < %d", fee, vsize)
	}
	hash := tx.TxHash()
	for _, txIn := range tx.TxIn {
		n.mpSpent[txIn.PreviousOutPoint] = hash
	}
	for i, o := range tx.TxOut {
		n.mpOuts[wire.OutPoint{Hash: hash, Index: uint32(i)}] = utxo{out: *o}
	}
	n.mempool = append(n.mempool, &tx)
	return hash.String(), nil
}

// inputs finds the outputs tx spends, confirmed or in the mempool, refusing double spends and
// immature coinbases, and sums their value.
func (n *Node) inputs(tx *wire.MsgTx) (map[wire.OutPoint]*wire.TxOut, int64, *rpcError) {
	prev := map[wire.OutPoint]*wire.TxOut{}
	var in int64
	for _, txIn := range tx.TxIn {
		op := txIn.PreviousOutPoint
		if _, spent := n.mpSpent[op]; spent {
			return nil, 0, errf(-26, "txn-mempool-conflict")
		}
		u, ok := n.utxos[op]
		if !ok {
			u, ok = n.mpOuts[op]
		}
		if !ok {
			return nil, 0, errf(-25, "bad-txns-inputs-missingorspent")
		}
		if u.coinbase && n.height+1-u.height < 100 {
			return nil, 0, errf(-26, "bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth %d", n.height+1-u.height)
		}
		prev[op] = &u.out
		in += u.out.Value
	}
	return prev, in, nil
}

// verifyScripts runs every input's script against the output it spends.
func verifyScripts(tx *wire.MsgTx, prev map[wire.OutPoint]*wire.TxOut) *rpcError {
	fetcher := txscript.NewMultiPrevOutFetcher(prev)
	hashes := txscript.NewTxSigHashes(tx, fetcher)
	for i, txIn := range tx.TxIn {
		p := prev[txIn.PreviousOutPoint]
		vm, err := txscript.NewEngine(p.PkScript, tx, i, txscript.StandardVerifyFlags, nil, hashes, p.Value, fetcher)
		if err == nil {
			err = vm.Execute()
		}
		if err != nil {
			return errf(-26, "mandatory-script-verify-flag-failed (%v)", err)
		}
	}
	return nil
}
