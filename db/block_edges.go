package db

import "context"

// Batched reads behind the GraphQL block edges. Keys are raw hash bytes carried as strings (so
// that loaders can use them as map keys); every method answers a whole batch in one statement.

// BlocksByIndexHash returns the blocks with these index block hashes.
func (s *Store) BlocksByIndexHash(ctx context.Context, hashes []string) ([]*Block, error) {
	var bs []*Block
	err := s.scanPrepared(ctx, blockSelect+" WHERE index_block_hash = ANY($1::bytea[])", &bs, byteaArray(hashes))
	return bs, err
}

// TxsOfBlocks returns, for each of these index block hashes, one page of the transactions the
// block holds (anchored and confirmed-microblock ones) in chain order
// (microblock_sequence, tx_index). One LATERAL statement serves every block in the batch.
func (s *Store) TxsOfBlocks(ctx context.Context, hashes []string, k Keyset, cols TxColumns) ([]*Tx, error) {
	where, args, order := k.clause([]string{"microblock_sequence", "tx_index"}, 2, false)
	var txs []*Tx
	err := pagePerKey{Select: cols.selectList(), Keys: byteaArray(hashes), Type: "bytea", Key: "h",
		Inner: "SELECT * FROM txs WHERE index_block_hash = k.h AND microblock_canonical AND " + where + " ORDER BY " + order,
		Args:  args, Limit: k.Limit, As: "t"}.scan(ctx, s, &txs)
	return txs, err
}

// MicroblocksAccepted returns the microblocks that the blocks with these index block hashes
// confirmed (microblock_canonical), in sequence order.
func (s *Store) MicroblocksAccepted(ctx context.Context, hashes []string) ([]*Microblock, error) {
	var ms []*Microblock
	err := s.scanPrepared(ctx, microblockSelect+" WHERE index_block_hash = ANY($1::bytea[]) AND microblock_canonical ORDER BY microblock_sequence",
		&ms, byteaArray(hashes))
	return ms, err
}

// MicroblocksStreamed returns the microblocks built on top of the blocks with these index block
// hashes (whatever later happened to them), in sequence order, one row per microblock.
func (s *Store) MicroblocksStreamed(ctx context.Context, hashes []string) ([]*Microblock, error) {
	var ms []*Microblock
	err := s.scanPrepared(ctx, streamedMicroblockSelect+` WHERE parent_index_block_hash = ANY($1::bytea[])
		ORDER BY parent_index_block_hash, microblock_sequence, microblock_hash, microblock_canonical DESC, canonical DESC`, &ms, byteaArray(hashes))
	return ms, err
}

// MicroblocksByHash returns, for each microblock hash, its preferred row: the canonical
// confirmation if any, else the newest.
func (s *Store) MicroblocksByHash(ctx context.Context, hashes []string) ([]*Microblock, error) {
	var ms []*Microblock
	err := s.scanPrepared(ctx, microblockByHashSelect+` WHERE microblock_hash = ANY($1::bytea[])
		ORDER BY microblock_hash, canonical DESC, microblock_canonical DESC, block_height DESC`, &ms, byteaArray(hashes))
	return ms, err
}

// TxsOfMicroblocks returns the transactions of these microblocks as confirmed by the given anchor
// blocks (empty index block hash: still unconfirmed), in tx order.
func (s *Store) TxsOfMicroblocks(ctx context.Context, keys []MicroblockKey) ([]*Tx, error) {
	var txs []*Tx
	err := s.scanPrepared(ctx, txSelect+` WHERE (microblock_hash, index_block_hash) IN (SELECT * FROM unnest($1::bytea[], $2::bytea[]))
		ORDER BY tx_index`, &txs, byteaArrayOf(keys, func(k MicroblockKey) string { return k.MicroblockHash }),
		byteaArrayOf(keys, func(k MicroblockKey) string { return k.IndexBlockHash }))
	return txs, err
}

// MicroblockKey names one row of a microblock: the microblock and the anchor block that confirmed
// it (empty while unconfirmed), both raw bytes as strings.
type MicroblockKey struct {
	MicroblockHash string
	IndexBlockHash string
}

// MinerRewardsOfBlocks returns the miner rewards matured by the blocks with these index block hashes.
func (s *Store) MinerRewardsOfBlocks(ctx context.Context, hashes []string) ([]*MinerReward, error) {
	var rs []*MinerReward
	err := s.scanPrepared(ctx, minerRewardSelect+" WHERE index_block_hash = ANY($1::bytea[]) ORDER BY recipient, from_index_block_hash, reward_index",
		&rs, byteaArray(hashes))
	return rs, err
}
