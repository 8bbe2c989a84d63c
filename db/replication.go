package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/stxgraph/stxgraph/db/migrations"
	"github.com/stxgraph/stxgraph/db/notices"
)

// LSN is a position in PostgreSQL's write-ahead log.
type LSN uint64

// ParseLSN reads PostgreSQL's text form of a WAL position ("16/B374D848").
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok {
		return 0, fmt.Errorf("WAL position %q: want hi/lo hex", s)
	}
	h, err := strconv.ParseUint(hi, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("WAL position %q: %w", s, err)
	}
	l, err := strconv.ParseUint(lo, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("WAL position %q: %w", s, err)
	}
	return LSN(h<<32 | l), nil
}

func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

// Replication pairs the primary that ingestion writes with a streaming replica that serves
// reads. NOTIFY is not replicated, so notices are heard on the primary; a reader must not act on
// one before the replica has replayed the commit it announces (WaitReplayed).
type Replication struct {
	Primary, Replica *Store
	// poll is how long WaitReplayed sleeps between looks at the replica's replay position.
	poll time.Duration
	// blockSize and segmentSize are the WAL page and segment sizes (for pageStart).
	blockSize, segmentSize uint64
}

// Listen starts the process's listener for the notices of the store (notices.Listen).
func (s *Store) Listen(ctx context.Context) (*notices.Listener, error) {
	return notices.Listen(ctx, s.DB, nil)
}

// Listen listens on the primary (NOTIFY is not replicated) and publishes each notice once the
// replica has replayed the commit that sent it.
func (r *Replication) Listen(ctx context.Context) (*notices.Listener, error) {
	return notices.Listen(ctx, r.Primary.DB, r)
}

// AwaitCommitted returns once the replica has replayed the primary's WAL as far as it reached
// at the call: every notice is sent at its commit, so that position lies past the commits of
// all the notices heard before the call.
func (r *Replication) AwaitCommitted(ctx context.Context) error {
	target, err := r.CommittedLSN(ctx)
	if err != nil {
		return err
	}
	return r.WaitReplayed(ctx, target)
}

// NewReplication checks that replica is a standby of primary (the same system identifier, in
// recovery) and returns the pair.
func NewReplication(ctx context.Context, primary, replica *Store) (*Replication, error) {
	var pid, rid int64
	var recovering bool
	if err := primary.DB.QueryRowContext(ctx, "SELECT system_identifier FROM pg_control_system()").Scan(&pid); err != nil {
		return nil, fmt.Errorf("primary database: %w", err)
	}
	if err := replica.DB.QueryRowContext(ctx, "SELECT system_identifier, pg_is_in_recovery() FROM pg_control_system()").Scan(&rid, &recovering); err != nil {
		return nil, fmt.Errorf("read database: %w", err)
	}
	if pid != rid {
		return nil, errors.New("the read database is not a replica of the primary (their system identifiers differ)")
	}
	r := &Replication{Primary: primary, Replica: replica, poll: 5 * time.Millisecond}
	var block, segment string
	if err := primary.DB.QueryRowContext(ctx, "SELECT current_setting('wal_block_size'), current_setting('wal_segment_size')").Scan(&block, &segment); err != nil {
		return nil, err
	}
	var err error
	if r.blockSize, err = strconv.ParseUint(block, 10, 64); err != nil {
		return nil, fmt.Errorf("wal_block_size %q: %w", block, err)
	}
	if r.segmentSize, err = parseBytes(segment); err != nil {
		return nil, fmt.Errorf("wal_segment_size %q: %w", segment, err)
	}
	if !recovering {
		slog.Warn("the read database is not in recovery (a promoted replica?): reads see the primary's commits at once")
	}
	return r, nil
}

// IsMissingDatabase reports whether err is PostgreSQL's "database does not exist" (a replica
// that has not replayed the database's creation yet).
func IsMissingDatabase(err error) bool {
	var pgErr pgdriver.Error
	return errors.As(err, &pgErr) && pgErr.Field('C') == "3D000"
}

// parseBytes reads a size setting as PostgreSQL shows it ("16MB", "8192").
func parseBytes(s string) (uint64, error) {
	units := []struct {
		suffix string
		mul    uint64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseUint(n, 10, 64)
			return v * u.mul, err
		}
	}
	return strconv.ParseUint(s, 10, 64)
}

// CommittedLSN is a WAL position on the primary at or past the end of every transaction
// committed so far. It is read from the insert position, which with asynchronous commits
// (replays) may lie ahead of what is flushed: the replica then reaches it once the WAL writer
// flushes, a fraction of a second later.
func (r *Replication) CommittedLSN(ctx context.Context) (LSN, error) {
	var s string
	if err := r.Primary.DB.QueryRowContext(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		return 0, err
	}
	l, err := ParseLSN(s)
	if err != nil {
		return 0, err
	}
	return r.pageStart(l), nil
}

// pageStart maps a position just past a WAL page header to the page's start: the insert
// position points past the header of a page no record has reached yet, which the replica's
// replay position (the end of the last record replayed) never passes until a record does.
func (r *Replication) pageStart(l LSN) LSN {
	const shortHeader, longHeader = 24, 40
	switch {
	case r.segmentSize > 0 && uint64(l)%r.segmentSize == longHeader:
		return l - longHeader
	case r.blockSize > 0 && uint64(l)%r.blockSize == shortHeader:
		return l - shortHeader
	}
	return l
}

// replayed is how far the replica has replayed, and false when it is not in recovery (a promoted
// replica, or the primary itself): then every commit is visible already.
func (r *Replication) replayed(ctx context.Context) (LSN, bool, error) {
	var s sql.NullString
	if err := r.Replica.DB.QueryRowContext(ctx, "SELECT pg_last_wal_replay_lsn()::text").Scan(&s); err != nil {
		return 0, false, err
	}
	if !s.Valid {
		return 0, false, nil
	}
	l, err := ParseLSN(s.String)
	return l, true, err
}

// WaitReplayed returns once the replica has replayed the primary's WAL up to target, so that a
// read on the replica sees every commit before it.
func (r *Replication) WaitReplayed(ctx context.Context, target LSN) error {
	wait := r.poll
	for {
		at, recovering, err := r.replayed(ctx)
		if err != nil {
			return err
		}
		if !recovering || at >= target {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// ReplicationLag is how far the replica's visible data is behind the primary.
type ReplicationLag struct {
	// Bytes of the primary's WAL not replayed yet.
	Bytes int64
	// Seconds since the newest replayed commit was made on the primary, 0 when every WAL byte
	// received is replayed (an idle primary is not lag).
	Seconds float64
	// PrimaryLSN and ReplayLSN are the two WAL positions compared, as PostgreSQL writes them.
	PrimaryLSN, ReplayLSN string
}

// Lag measures the replication lag; nil when the read database is not in recovery.
func (r *Replication) Lag(ctx context.Context) (*ReplicationLag, error) {
	var replay sql.NullString
	var seconds float64
	err := r.Replica.DB.QueryRowContext(ctx, `SELECT pg_last_wal_replay_lsn()::text,
		CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
		ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)::float8 END`).Scan(&replay, &seconds)
	if err != nil {
		return nil, err
	}
	if !replay.Valid {
		return nil, nil
	}
	at, err := ParseLSN(replay.String)
	if err != nil {
		return nil, err
	}
	var s string
	if err := r.Primary.DB.QueryRowContext(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&s); err != nil {
		return nil, err
	}
	primary, err := ParseLSN(s)
	if err != nil {
		return nil, err
	}
	lag := &ReplicationLag{Seconds: max(seconds, 0), PrimaryLSN: primary.String(), ReplayLSN: at.String()}
	if primary > at {
		lag.Bytes = int64(primary - at)
	}
	return lag, nil
}

// SchemaPending lists the migrations this binary has that the database has not applied, reading
// only (a replica is read-only; an API process that does not ingest leaves migrating to the
// ingesting one).
func (s *Store) SchemaPending(ctx context.Context) ([]string, error) {
	ms, err := migrations.New()
	if err != nil {
		return nil, err
	}
	var applied []string
	err = s.DB.NewSelect().Table("bun_migrations").Column("name").Scan(ctx, &applied)
	if err != nil {
		var missing bool
		if qerr := s.DB.QueryRowContext(ctx, "SELECT to_regclass('bun_migrations') IS NULL").Scan(&missing); qerr == nil && missing {
			return nil, errors.New("the database has no schema yet")
		}
		return nil, err
	}
	have := make(map[string]bool, len(applied))
	for _, n := range applied {
		have[n] = true
	}
	var pending []string
	for _, mg := range ms.Sorted() {
		if !have[mg.Name] {
			pending = append(pending, mg.Name)
		}
	}
	return pending, nil
}
