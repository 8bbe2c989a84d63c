package db

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
