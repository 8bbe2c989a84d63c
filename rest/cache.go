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
	IndexBlockHash string `json:"indexBlockHash"`
	MicroblockHash string `json:"microblockHash"`
}

func (t chainTipTag) etag() string {
	switch {
	case t.MicroblockHash != "" && t.MicroblockHash != "0x":
		return t.MicroblockHash
	case t.IndexBlockHash != "0x":
		return t.IndexBlockHash
	}
	return ""
}

// mempoolTag is the ETag of routes that also see the mempool: when it last changed.
type mempoolTag struct {
	MempoolUpdatedAt string `json:"mempoolUpdatedAt"`
}

func (t mempoolTag) etag() string { return t.MempoolUpdatedAt }

// principalTag is the ETag of address routes: a digest of the principal's newest transaction,
// (with the mempool) its newest pending one and, for a route that shows its balance, its lock
// state, which changes with burn blocks alone. A list of transactions leaves the lock out (as
// the reference's ETag does): the answer does not show it. A principal with no activity gets
// none.
type principalTag struct {
	LatestTxID        *string
	LatestMempoolTxID *string
	Lock              *lockTag
}

// lockTag is the lock state in an address route's ETag.
type lockTag struct {
	Locked                string
	BurnchainUnlockHeight int
}

func (t principalTag) etag(withMempool bool) string {
	if t.LatestTxID == nil && (!withMempool || t.LatestMempoolTxID == nil) {
		return ""
	}
	parts := []string{deref(t.LatestTxID)}
	if withMempool {
		parts = append(parts, deref(t.LatestMempoolTxID))
	}
	if t.Lock != nil {
		pox := "unlocked"
		if t.Lock.Locked != "0" && t.Lock.Locked != "" {
			pox = "locked:" + t.Lock.Locked + ":" + strconv.Itoa(t.Lock.BurnchainUnlockHeight)
		}
		parts = append(parts, pox)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, ":")))
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
