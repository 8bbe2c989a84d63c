package clarity

import "encoding/binary"

func appendLen(b []byte, id TypeID, n int) []byte {
	return binary.BigEndian.AppendUint32(append(b, byte(id)), uint32(n))
}

func (v Int) appendTo(b []byte) []byte  { return append(append(b, byte(TypeInt)), v.raw[:]...) }
func (v UInt) appendTo(b []byte) []byte { return append(append(b, byte(TypeUInt)), v.raw[:]...) }
func (v Buffer) appendTo(b []byte) []byte {
	return append(appendLen(b, TypeBuffer, len(v)), v...)
}
func (v Bool) appendTo(b []byte) []byte { return append(b, byte(v.Type())) }

func (v Principal) appendTo(b []byte) []byte {
	b = append(b, byte(v.Type()), v.Address.Version)
	b = append(b, v.Address.Hash160[:]...)
	if v.IsContract() {
		b = append(append(b, byte(len(v.ContractName))), v.ContractName...)
	}
	return b
}

func (v Response) appendTo(b []byte) []byte { return v.Value.appendTo(append(b, byte(v.Type()))) }

func (v Optional) appendTo(b []byte) []byte {
	b = append(b, byte(v.Type()))
	if v.Value != nil {
		b = v.Value.appendTo(b)
	}
	return b
}

func (v List) appendTo(b []byte) []byte {
	b = appendLen(b, TypeList, len(v))
	for _, e := range v {
		b = e.appendTo(b)
	}
	return b
}

func (v Tuple) appendTo(b []byte) []byte {
	b = appendLen(b, TypeTuple, len(v))
	for _, e := range v {
		b = append(append(b, byte(len(e.Name))), e.Name...)
		b = e.Value.appendTo(b)
	}
	return b
}

func (v StringASCII) appendTo(b []byte) []byte {
	return append(appendLen(b, TypeStringASCII, len(v)), v...)
}

func (v StringUTF8) appendTo(b []byte) []byte {
	return append(appendLen(b, TypeStringUTF8, len(v)), v...)
}
