package db

import "context"

// The packed key parameters, for the tests of the db_test package (which may use dbtest).
var (
	PackedKey = packedKey
	KeySlot   = keySlot
)

func PackKeys(keys [][]byte) ([]byte, error) {
	packed, err := packKeys(keys, func(k []byte) []byte { return k })
	if err != nil {
		return nil, err
	}
	return packed[0], nil
}

// ScanBalancesTwice scans query's rows as balances through the typed destinations and through
// bun's scan of the model, for the db_test package to compare.
func (s *Store) ScanBalancesTwice(ctx context.Context, query string) (typed, byModel []*StxBalance, err error) {
	if err := s.scanPrepared(ctx, query, &typed); err != nil {
		return nil, nil, err
	}
	err = s.DB.NewRaw(query).Scan(ctx, &byModel)
	return typed, byModel, err
}
