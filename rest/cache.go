package rest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
)

// HTTP caching as the reference does it: routes whose answer depends only on the chain tip, the
// mempool or a principal's activity send an ETag naming that state, and a request whose
// If-None-Match names the current state gets a 304 without the read.

// chainTipTag is the ETag of tip-dependent routes: the newest microblock, else the tip block
// ("" before the first block: no ETag).
type chainTipTag struct {
	Tip struct {
		IndexBlockHash string `json:"indexBlockHash"`
		MicroblockHash string `json:"microblockHash"`
	} `json:"tip"`
}

func (t chainTipTag) etag() string {
	switch {
	case t.Tip.MicroblockHash != "" && t.Tip.MicroblockHash != "0x":
		return t.Tip.MicroblockHash
	case t.Tip.IndexBlockHash != "0x":
		return t.Tip.IndexBlockHash
	}
	return ""
}

// mempoolTag is the ETag of routes that also see the mempool: when it last changed.
type mempoolTag struct {
	Tip struct {
		MempoolUpdatedAt string `json:"mempoolUpdatedAt"`
	} `json:"tip"`
}

func (t mempoolTag) etag() string { return t.Tip.MempoolUpdatedAt }

// principalTag is the ETag of address routes: a digest of the principal's newest transaction,
// (with the mempool) its newest pending one, and its lock state, which changes with burn blocks
// alone. A principal with no activity gets none.
type principalTag struct {
	Account struct {
		LatestTxID        *string `json:"latestTxId"`
		LatestMempoolTxID *string `json:"latestMempoolTxId"`
		Balance           struct {
			Locked                string `json:"locked"`
			BurnchainUnlockHeight int    `json:"burnchain_unlock_height"`
		} `json:"balance"`
	} `json:"account"`
}

func (t principalTag) etag(withMempool bool) string {
	a := t.Account
	if a.LatestTxID == nil && (!withMempool || a.LatestMempoolTxID == nil) {
		return ""
	}
	pox := "unlocked"
	if a.Balance.Locked != "0" && a.Balance.Locked != "" {
		pox = "locked:" + a.Balance.Locked + ":" + strconv.Itoa(a.Balance.BurnchainUnlockHeight)
	}
	parts := []string{deref(a.LatestTxID)}
	if withMempool {
		parts = append(parts, deref(a.LatestMempoolTxID))
	}
	sum := sha256.Sum256([]byte(strings.Join(append(parts, pox), ":")))
	return hex.EncodeToString(sum[:])
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// notModified reports whether the request's If-None-Match names etag (quotes and W/ stripped,
// comma-separated lists allowed).
func notModified(r *http.Request, etag string) bool {
	if etag == "" {
		return false
	}
	for _, v := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		v = strings.Trim(strings.TrimPrefix(strings.TrimSpace(v), "W/"), `"`)
		if v == etag {
			return true
		}
	}
	return false
}

// setETag marks a response as cacheable under etag (none: the default no-store stays).
func setETag(w http.ResponseWriter, etag string) {
	if etag == "" {
		return
	}
	w.Header().Set("ETag", `"`+etag+`"`)
	w.Header().Set("Cache-Control", "public, no-cache, must-revalidate")
}
