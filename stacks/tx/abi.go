package tx

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ContractInterface is the part of a contract's ABI (the node's contract_interface JSON for a
// deploy) that the API uses to describe calls to it.
type ContractInterface struct {
	Functions []ABIFunction `json:"functions"`
}

// ABIFunction is one function of a contract interface.
type ABIFunction struct {
	Name   string   `json:"name"`
	Access string   `json:"access"` // public, read_only or private
	Args   []ABIArg `json:"args"`
}

// ABIArg is one named, typed function parameter. Type is kept as raw JSON: a primitive name such
// as "uint128" or an object such as {"buffer":{"length":20}}.
type ABIArg struct {
	Name string          `json:"name"`
	Type json.RawMessage `json:"type"`
}

// ParseContractInterface parses a contract_interface JSON document.
func ParseContractInterface(b []byte) (*ContractInterface, error) {
	var ci ContractInterface
	if err := json.Unmarshal(b, &ci); err != nil {
		return nil, fmt.Errorf("contract interface: %w", err)
	}
	return &ci, nil
}

// Function finds a function by name.
func (ci *ContractInterface) Function(name string) (*ABIFunction, bool) {
	for i := range ci.Functions {
		if ci.Functions[i].Name == name {
			return &ci.Functions[i], true
		}
	}
	return nil, false
}

// Signature renders the function the way stacks.js abiFunctionToString does, e.g.
// "(define-public (transfer (amount uint) (to principal)))".
func (f *ABIFunction) Signature() (string, error) {
	types, err := f.argTypes()
	if err != nil {
		return "", err
	}
	return f.signature(types), nil
}

// argTypes renders the type of each argument (ABITypeString).
func (f *ABIFunction) argTypes() ([]string, error) {
	types := make([]string, len(f.Args))
	for i, a := range f.Args {
		t, err := ABITypeString(a.Type)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", a.Name, err)
		}
		types[i] = t
	}
	return types, nil
}

// signature renders the function with its arguments' rendered types.
func (f *ABIFunction) signature(types []string) string {
	access := f.Access
	if access == "read_only" {
		access = "read-only"
	}
	args := make([]string, len(f.Args))
	for i, a := range f.Args {
		args[i] = "(" + a.Name + " " + types[i] + ")"
	}
	return "(define-" + access + " (" + f.Name + " " + strings.Join(args, " ") + "))"
}

// abiType mirrors the object forms of ABI types; exactly one field is set.
type abiType struct {
	Buffer      *struct{ Length int } `json:"buffer"`
	StringASCII *struct{ Length int } `json:"string-ascii"`
	StringUTF8  *struct{ Length int } `json:"string-utf8"`
	Optional    json.RawMessage       `json:"optional"`
	Response    *struct {
		Ok    json.RawMessage `json:"ok"`
		Error json.RawMessage `json:"error"`
	} `json:"response"`
	List *struct {
		Type   json.RawMessage `json:"type"`
		Length int             `json:"length"`
	} `json:"list"`
	Tuple []ABIArg `json:"tuple"`
}

// ABITypeString renders an ABI type as stacks.js getTypeString does (int128→int, uint128→uint).
func ABITypeString(raw json.RawMessage) (string, error) {
	var prim string
	if err := json.Unmarshal(raw, &prim); err == nil {
		switch prim {
		case "int128":
			return "int", nil
		case "uint128":
			return "uint", nil
		}
		return prim, nil
	}
	var t abiType
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", fmt.Errorf("ABI type %s: %w", raw, err)
	}
	sized := func(name string, n int) string { return "(" + name + " " + strconv.Itoa(n) + ")" }
	switch {
	case t.Buffer != nil:
		return sized("buff", t.Buffer.Length), nil
	case t.StringASCII != nil:
		return sized("string-ascii", t.StringASCII.Length), nil
	case t.StringUTF8 != nil:
		return sized("string-utf8", t.StringUTF8.Length), nil
	case t.Optional != nil:
		inner, err := ABITypeString(t.Optional)
		return "(optional " + inner + ")", err
	case t.Response != nil:
		ok, err := ABITypeString(t.Response.Ok)
		if err != nil {
			return "", err
		}
		e, err := ABITypeString(t.Response.Error)
		return "(response " + ok + " " + e + ")", err
	case t.List != nil:
		inner, err := ABITypeString(t.List.Type)
		return "(list " + strconv.Itoa(t.List.Length) + " " + inner + ")", err
	case t.Tuple != nil:
		parts := make([]string, len(t.Tuple))
		for i, f := range t.Tuple {
			ft, err := ABITypeString(f.Type)
			if err != nil {
				return "", err
			}
			parts[i] = "(" + f.Name + " " + ft + ")"
		}
		return "(tuple " + strings.Join(parts, " ") + ")", nil
	}
	return "", fmt.Errorf("unsupported ABI type %s", raw)
}

// ApplyABI fills in the function signature and, per argument, the ABI's name and type, as the
// API does once the called contract's interface is known. Arguments beyond the ABI's keep the
// decoded type name and an empty name.
func (j *ContractCallJSON) ApplyABI(fn *ABIFunction) error {
	if fn.Name != j.FunctionName {
		return fmt.Errorf("ABI function %q does not match the called function %q", fn.Name, j.FunctionName)
	}
	types, err := fn.argTypes()
	if err != nil {
		return err
	}
	j.FunctionSignature = fn.signature(types)
	for i := range j.FunctionArgs {
		if i < len(fn.Args) {
			j.FunctionArgs[i].Name = fn.Args[i].Name
			j.FunctionArgs[i].Type = types[i]
		}
	}
	return nil
}
