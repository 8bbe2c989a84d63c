package db

// The packed key parameters, for the tests of the db_test package (which may use dbtest).
var (
	PackedKey = packedKey
	KeySlot   = keySlot
)

func PackKeys(keys [][]byte) ([]byte, error) {
	return packKeys(keys, func(k []byte) []byte { return k })
}
