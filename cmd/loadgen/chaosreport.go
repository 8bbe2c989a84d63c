package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stxgraph/stxgraph/internal/chaingen"
)

// chaosReport is what the checks found.
type chaosReport struct {
	elapsed  time.Duration
	failures []string
	faults   []faultWindow
	digest   string
	subs     subscriberCounts
	requests requestCounts
	faucet   struct{ requests, paid, attempts, doubled int }
	node     struct{ blocks, microblocks, mempool, retries int }
}

type subscriberCounts struct {
	blocks, mempool, address, items, resumes, drops int
}

// requestCounts sorts the reads' and the faucet's outcomes by whether they fell in a fault
// window.
type requestCounts struct {
	total, ok, client                      int
	unavailableIn, other5xxIn, noAnswerIn  int
	gqlErrorsIn, server5xxOut, noAnswerOut int
	gqlErrorsOut                           int
	firstOutside                           string
}

func (rep *chaosReport) fail(format string, args ...any) {
	rep.failures = append(rep.failures, fmt.Sprintf(format, args...))
}

// check runs the run's checks: the chain state against a fresh database's, the subscribers'
// items against the notice log, the answers against the fault windows, the faucet's payouts
// against its node's transfers.
func (r *chaosRun) check(ctx context.Context, feeds map[string][]feedPosition, caughtUp bool) *chaosReport {
	rep := &chaosReport{}
	r.checkDigest(ctx, rep)
	if !caughtUp {
		rep.fail("subscribers: not every subscriber had its feed's last item a minute after the run")
	}
	for _, s := range r.subs {
		got := s.received()
		var err error
		switch s.feed {
		case "blocks":
			rep.subs.blocks++
			err = checkFeed(got, feeds[s.feed])
		case "mempool":
			rep.subs.mempool++
			err = checkFeed(got, feeds[s.feed])
		default:
			rep.subs.address++
			err = checkOrder(got) // the notice log does not tell an address's items
		}
		if err != nil {
			rep.fail("subscriber %s: %v", s.name, err)
		}
		rep.subs.items += len(got)
		s.mu.Lock()
		rep.subs.resumes += s.resumes
		s.mu.Unlock()
	}
	rep.subs.drops = int(r.drops.Load())
	r.checkOutcomes(rep)
	r.checkFaucet(rep)
	r.faults.mu.Lock()
	rep.faults = append(rep.faults, r.faults.windows...)
	r.faults.mu.Unlock()
	for _, w := range rep.faults {
		if w.err != "" {
			rep.fail("fault %s at %s: %s", w.fault, w.start.Format(time.TimeOnly), w.err)
		}
	}
	for _, m := range r.node.messages() {
		switch m.Path {
		case chaingen.PathNewBlock:
			rep.node.blocks++
		case chaingen.PathNewMicroblocks:
			rep.node.microblocks++
		case chaingen.PathNewMempoolTx:
			rep.node.mempool++
		}
	}
	r.node.mu.Lock()
	rep.node.retries = r.node.retries
	r.node.mu.Unlock()
	return rep
}

// checkDigest compares the chaos database's canonical state with a fresh database's fed the
// same accepted messages without faults.
func (r *chaosRun) checkDigest(ctx context.Context, rep *chaosReport) {
	got, err := r.digest(ctx, r.primary.URL("stxgraph"))
	if err != nil {
		rep.fail("digest: %v", err)
		return
	}
	want, err := r.freshDigest(ctx)
	if err != nil {
		rep.fail("digest of the fresh database: %v", err)
		return
	}
	rep.digest = digestLine(got)
	if got != want {
		rep.fail("digest: the chaos database's canonical state differs from the fresh database's:\n%s\nfresh:\n%s", got, want)
	}
}

// digestLine is the final digest of verify --digest's output.
func digestLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(line, "digest "); ok {
			return d
		}
	}
	return "?"
}

func (r *chaosRun) checkOutcomes(rep *chaosReport) {
	c := &rep.requests
	r.outcomes.mu.Lock()
	defer r.outcomes.mu.Unlock()
	for _, o := range r.outcomes.list {
		c.total++
		in := r.faults.within(o.began, o.ended)
		outside := func(n *int) {
			*n++
			if c.firstOutside == "" {
				c.firstOutside = fmt.Sprintf("%s at %s: HTTP %d %s", o.what, o.began.Format(time.TimeOnly+".000"), o.status, o.err)
			}
		}
		switch {
		case o.status == 0 && in:
			c.noAnswerIn++
		case o.status == 0:
			outside(&c.noAnswerOut)
		case o.status >= 500 && !in:
			outside(&c.server5xxOut)
		case o.status == http.StatusServiceUnavailable:
			c.unavailableIn++
		case o.status >= 500:
			c.other5xxIn++
		case o.status >= 400:
			c.client++
		case o.err != "" && in:
			c.gqlErrorsIn++
		case o.err != "":
			outside(&c.gqlErrorsOut)
		default:
			c.ok++
		}
	}
	if n := c.server5xxOut + c.noAnswerOut + c.gqlErrorsOut; n > 0 {
		rep.fail("requests: %d failed outside the fault windows (first: %s)", n, c.firstOutside)
	}
	if c.other5xxIn > 0 {
		rep.fail("requests: %d answers in fault windows were 5xx other than 503", c.other5xxIn)
	}
}

// checkFaucet: every request paid once, under one txId, which the node accepted once.
func (r *chaosRun) checkFaucet(rep *chaosReport) {
	f := &r.faucet
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.requests {
		rep.faucet.requests++
		rep.faucet.attempts += q.attempts
		transfers := f.node.payouts(q.recipient)
		if len(transfers) > 1 {
			rep.faucet.doubled++
			rep.fail("faucet: key %s paid %d times: %v", q.key, len(transfers), transfers)
		}
		switch {
		case len(q.txIDs) > 1:
			rep.fail("faucet: key %s answered with %d txIds", q.key, len(q.txIDs))
		case len(q.txIDs) == 0:
			rep.fail("faucet: key %s never answered 200 (%d attempts)", q.key, q.attempts)
		case len(transfers) == 0:
			rep.fail("faucet: key %s answered 200 but the node has no transfer", q.key)
		default:
			rep.faucet.paid++
			for id := range q.txIDs {
				if strings.TrimPrefix(id, "0x") != transfers[0] {
					rep.fail("faucet: key %s answered txId %s, the node took %s", q.key, id, transfers[0])
				}
			}
		}
	}
}

// markdown is the run's summary: the faults survived and the checks' counts.
func (rep *chaosReport) markdown(o chaosOptions) string {
	var b strings.Builder
	replica := "primary only"
	if o.replica {
		replica = "API on a streaming replica"
	}
	fmt.Fprintf(&b, "### Chaos run of %s, %s UTC\n\n", rep.elapsed.Round(time.Second), time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "`loadgen chaos -d %s`: %s; a block every %s, %g mempool transactions/s, %g reads/s, %d subscribers, a fault every %s on average",
		o.duration, replica, o.blockEvery, o.mempoolRate, o.readRate, o.subscribers, o.faultEvery)
	if o.note != "" {
		fmt.Fprintf(&b, "; %s", o.note)
	}
	b.WriteString(".\n\n| fault | injected | longest window | windows |\n|---|---:|---:|---|\n")
	kinds := []string{faultKillAPI, faultKillIngest, faultRestartPG, faultKillListen, faultPauseReplay}
	for _, k := range kinds {
		n, longest := 0, time.Duration(0)
		var spans []string
		for _, w := range rep.faults {
			if w.fault != k {
				continue
			}
			n++
			longest = max(longest, w.end.Sub(w.start))
			span := fmt.Sprintf("%s+%s", w.start.UTC().Format(time.TimeOnly), w.end.Sub(w.start).Round(100*time.Millisecond))
			if w.note != "" {
				span += " (" + w.note + ")"
			}
			spans = append(spans, span)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", k, n, longest.Round(100*time.Millisecond), strings.Join(spans, ", "))
	}
	c := rep.requests
	verdict := "**pass**"
	if len(rep.failures) > 0 {
		verdict = fmt.Sprintf("**fail**: %d checks (%s)", len(rep.failures), strings.ReplaceAll(rep.failures[0], "\n", " "))
	}
	fmt.Fprintf(&b, "\n| check | result |\n|---|---|\n")
	fmt.Fprintf(&b, "| chain state (`verify --digest`) vs a fresh database fed the same %d accepted messages | %s |\n",
		rep.node.blocks+rep.node.microblocks+rep.node.mempool, digestVerdict(rep))
	fmt.Fprintf(&b, "| node | %d blocks, %d microblock messages, %d mempool transactions accepted; %d deliveries retried |\n",
		rep.node.blocks, rep.node.microblocks, rep.node.mempool, rep.node.retries)
	fmt.Fprintf(&b, "| subscribers (%d blocks, %d mempool, %d address) | %d items, %d resumptions (%d forced disconnects); each followed from the feed's start and checked against the notice log |\n",
		rep.subs.blocks, rep.subs.mempool, rep.subs.address, rep.subs.items, rep.subs.resumes, rep.subs.drops)
	fmt.Fprintf(&b, "| requests (reads and faucet) | %d: %d ok, %d 4xx; in fault windows %d × 503, %d other 5xx, %d unanswered, %d GraphQL errors; outside %d × 5xx, %d unanswered, %d GraphQL errors |\n",
		c.total, c.ok, c.client, c.unavailableIn, c.other5xxIn, c.noAnswerIn, c.gqlErrorsIn, c.server5xxOut, c.noAnswerOut, c.gqlErrorsOut)
	fmt.Fprintf(&b, "| faucet | %d requests, %d paid, %d attempts, %d paid twice |\n",
		rep.faucet.requests, rep.faucet.paid, rep.faucet.attempts, rep.faucet.doubled)
	fmt.Fprintf(&b, "| result | %s |\n", verdict)
	return b.String()
}

func digestVerdict(rep *chaosReport) string {
	for _, f := range rep.failures {
		if strings.HasPrefix(f, "digest") {
			return "**differs**"
		}
	}
	return "equal (" + rep.digest + ")"
}
