package c32

import (
	"fmt"
	"regexp"
	"strings"
)

// Address is a Stacks account address: a version byte and the hash160 of the account's keys.
type Address struct {
	Version byte
	Hash160 [20]byte
}

// Length bounds checked before any decoding work. The reference rejects anything shorter than 6
// characters up front; "S" + version + c32 of 24 bytes is at most 41 characters.
const (
	minAddressLen = 6
	maxAddressLen = 41
)

// ParseAddress parses a c32 Stacks address strictly: leading 'S', valid alphabet, a correct
// checksum, a 20-byte payload, and the canonical spelling (re-encoding must give the input back,
// which rejects lowercase and homoglyphs).
func ParseAddress(s string) (Address, error) {
	if len(s) < minAddressLen || len(s) > maxAddressLen {
		return Address{}, fmt.Errorf("address %q: length %d is outside %d..%d", s, len(s), minAddressLen, maxAddressLen)
	}
	if s[0] != 'S' {
		return Address{}, fmt.Errorf("address %q: must start with 'S'", s)
	}
	version, data, err := Decode(s[1:])
	if err != nil {
		return Address{}, fmt.Errorf("address %q: %w", s, err)
	}
	if len(data) != 20 {
		return Address{}, fmt.Errorf("address %q: payload is %d bytes, want 20", s, len(data))
	}
	a := Address{Version: version, Hash160: [20]byte(data)}
	if a.String() != s {
		return Address{}, fmt.Errorf("address %q: not in canonical form (expected %s)", s, a.String())
	}
	return a, nil
}

// String renders the address in c32. Versions above MaxVersion cannot be written in c32; they
// never come out of this module's parsers, and render as a visibly invalid marker.
func (a Address) String() string {
	if a.Version > MaxVersion {
		return fmt.Sprintf("<invalid address version %d>", a.Version)
	}
	return "S" + Encode(a.Version, a.Hash160[:])
}

// IsMainnet reports whether the version is one of the two mainnet versions.
func (a Address) IsMainnet() bool {
	return a.Version == MainnetP2PKH || a.Version == MainnetP2SH
}

// IsTestnet reports whether the version is one of the two testnet versions.
func (a Address) IsTestnet() bool {
	return a.Version == TestnetP2PKH || a.Version == TestnetP2SH
}

// Hash modes of a transaction spending condition, as they select an address version.
const (
	hashModeP2PKH byte = 0x00
)

// VersionForHashMode gives the address version of a spending condition's signer: P2PKH uses
// 22/26 and every other hash mode (multisig, P2WPKH, P2WSH, order-independent) uses 20/21.
func VersionForHashMode(hashMode byte, mainnet bool) byte {
	switch {
	case hashMode == hashModeP2PKH && mainnet:
		return MainnetP2PKH
	case hashMode == hashModeP2PKH:
		return TestnetP2PKH
	case mainnet:
		return MainnetP2SH
	default:
		return TestnetP2SH
	}
}

// MaxContractNameLen is the wire limit on contract names (new deploys are limited to 40, legacy
// names go up to 128).
const MaxContractNameLen = 128

var contractNameRE = regexp.MustCompile(`^[a-zA-Z]([a-zA-Z0-9]|[-_])*$`)

// ValidContractName reports whether name follows Clarity's contract-name rules.
func ValidContractName(name string) bool {
	return len(name) >= 1 && len(name) <= MaxContractNameLen && contractNameRE.MatchString(name)
}

// Principal is a standard principal (ContractName empty) or a contract principal.
type Principal struct {
	Address      Address
	ContractName string
}

// ParsePrincipal parses "<address>" or "<address>.<contract-name>".
func ParsePrincipal(s string) (Principal, error) {
	addr, name, isContract := strings.Cut(s, ".")
	a, err := ParseAddress(addr)
	if err != nil {
		return Principal{}, err
	}
	if isContract && !ValidContractName(name) {
		return Principal{}, fmt.Errorf("principal %q: invalid contract name %q (1-%d chars matching %s)", s, name, MaxContractNameLen, contractNameRE)
	}
	return Principal{Address: a, ContractName: name}, nil
}

// String renders the principal as the API does: the address, plus ".name" for a contract.
func (p Principal) String() string {
	if p.ContractName == "" {
		return p.Address.String()
	}
	return p.Address.String() + "." + p.ContractName
}

// IsContract reports whether p names a contract.
func (p Principal) IsContract() bool { return p.ContractName != "" }

// ValidPrincipalLenient reports whether s is a principal as the Stacks Blockchain API's request
// validation accepts it, which is looser than ParsePrincipal: the address part is decoded as
// stacks-core decodes addresses (leading 'S', lowercase and homoglyphs allowed, any version and
// payload length, checksum checked), and of a dotted string only the first two parts are
// checked, so "<address>.<name>.<anything>" passes.
func ValidPrincipalLenient(s string) bool {
	addr, rest, isContract := strings.Cut(s, ".")
	if isContract {
		name, _, _ := strings.Cut(rest, ".")
		if !ValidContractName(name) {
			return false
		}
	}
	if len(addr) < minAddressLen || addr[0] != 'S' {
		return false
	}
	_, _, err := Decode(addr[1:])
	return err == nil
}
