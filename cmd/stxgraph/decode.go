package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/stxgraph/stxgraph/stacks/c32"
	"github.com/stxgraph/stxgraph/stacks/clarity"
	"github.com/stxgraph/stxgraph/stacks/tx"
)

const decodeUsage = `Usage: stxgraph decode <kind> <value>

Decodes Stacks wire data offline and prints it as JSON, the way the Hiro Stacks API shows it.

Kinds:
  tx <hex>          a raw SIP-005 transaction (with or without 0x): tx_id, sender, fees,
                    post-conditions and payload, i.e. the API fields the bytes alone determine
  clarity <hex>     one serialized Clarity value: {"hex", "repr", "type"}
  address <c32>     a Stacks address or contract principal: version, network, hash160 and
                    whether it names a contract

Errors name what is wrong and the byte offset where decoding stopped; the exit status is 1.
`

// decodeCommand runs "stxgraph decode"; args exclude the subcommand name.
func decodeCommand(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "help" {
			fmt.Fprint(stdout, decodeUsage)
			return 0
		}
	}
	if len(args) != 2 {
		fmt.Fprint(stderr, decodeUsage)
		return 2
	}
	out, err := decode(args[0], args[1])
	if err != nil {
		fmt.Fprintf(stderr, "stxgraph decode %s: %v\n", args[0], err)
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // reprs and type names contain '<' and '>' that must print as is
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "stxgraph decode: %v\n", err)
		return 1
	}
	return 0
}

func decode(kind, value string) (any, error) {
	switch kind {
	case "tx":
		t, err := tx.DecodeHex(value)
		if err != nil {
			return nil, err
		}
		return t.APIFields(), nil
	case "clarity":
		v, err := clarity.DecodeHex(value)
		if err != nil {
			return nil, err
		}
		return clarityJSON{Hex: clarity.EncodeHex(v), Repr: v.Repr(), Type: clarity.TypeString(v)}, nil
	case "address":
		p, err := c32.ParsePrincipal(value)
		if err != nil {
			return nil, err
		}
		return newAddressJSON(p), nil
	}
	return nil, fmt.Errorf("unknown kind %q (want tx, clarity or address)", kind)
}

type clarityJSON struct {
	Hex  string `json:"hex"`
	Repr string `json:"repr"`
	Type string `json:"type"`
}

type addressJSON struct {
	Address      string `json:"address"`
	Version      byte   `json:"version"`
	Network      string `json:"network"`
	Hash160      string `json:"hash160"`
	Contract     bool   `json:"contract"`
	ContractName string `json:"contract_name,omitempty"`
}

func newAddressJSON(p c32.Principal) addressJSON {
	network := "unknown"
	switch {
	case p.Address.IsMainnet():
		network = "mainnet"
	case p.Address.IsTestnet():
		network = "testnet"
	}
	return addressJSON{
		Address:      p.String(),
		Version:      p.Address.Version,
		Network:      network,
		Hash160:      hex.EncodeToString(p.Address.Hash160[:]),
		Contract:     p.IsContract(),
		ContractName: p.ContractName,
	}
}
