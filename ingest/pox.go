package ingest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/stacks/clarity"
)

// Boot addresses that own the PoX contracts.
const (
	bootAddressMainnet = "SP000000000000000000002Q6VF78"
	bootAddressTestnet = "ST000000000000000000002AMW42H"
)

// poxVersions maps the boot PoX contracts whose print events carry stacking state.
var poxVersions = map[string]int16{"pox-2": 2, "pox-3": 3, "pox-4": 4}

// poxPrint is a decoded PoX print event: (ok (tuple (name ..) (stacker ..) (locked u..)
// (balance u..) (burnchain-unlock-height u..) (data (tuple ..)))).
type poxPrint struct {
	version int16
	fields  map[string]clarity.Value
	data    map[string]clarity.Value
}

// parsePoxPrint decodes a print event of a boot PoX contract; anything else, including an
// (err ..) print, is not a PoX event.
func parsePoxPrint(contractID, topic string, raw []byte) *poxPrint {
	addr, name, _ := strings.Cut(contractID, ".")
	version, ok := poxVersions[name]
	if !ok || topic != "print" || (addr != bootAddressMainnet && addr != bootAddressTestnet) {
		return nil
	}
	v, n, err := clarity.Decode(raw)
	if err != nil || n != len(raw) {
		return nil
	}
	resp, ok := v.(clarity.Response)
	if !ok || !resp.Ok {
		return nil
	}
	fields := tupleMap(resp.Value)
	if fields == nil {
		return nil
	}
	if _, ok := fields["name"]; !ok {
		return nil
	}
	return &poxPrint{version: version, fields: fields, data: tupleMap(fields["data"])}
}

func (p *poxPrint) name() string { return clarityText(p.fields["name"]) }

// decodePoxEvent turns a PoX print event into a pox_events row holding the state after the
// operation (patchPoxEvent); the position is left to the caller.
func decodePoxEvent(contractID, topic string, raw []byte) *db.PoxEvent {
	p := parsePoxPrint(contractID, topic, raw)
	if p == nil {
		return nil
	}
	data, err := json.Marshal(clarityJSON(p.fields["data"]))
	if err != nil || string(data) == "null" {
		data = []byte("{}")
	}
	unlock, _ := strconv.ParseInt(clarityText(p.fields["burnchain-unlock-height"]), 10, 32)
	e := &db.PoxEvent{
		PoxVersion: p.version, Name: p.name(), Stacker: clarityText(p.fields["stacker"]),
		Locked: numberOrZero(p.fields["locked"]), Balance: numberOrZero(p.fields["balance"]),
		BurnchainUnlockHeight: int32(unlock), Data: data,
	}
	patchPoxEvent(e)
	return e
}

func tupleMap(v clarity.Value) map[string]clarity.Value {
	t, ok := v.(clarity.Tuple)
	if !ok {
		return nil
	}
	m := make(map[string]clarity.Value, len(t))
	for _, e := range t {
		m[e.Name] = e.Value
	}
	return m
}

// clarityText renders a scalar for a text column: integers in decimal, principals and strings
// as themselves, (some x) as x; none and absent values as "".
func clarityText(v clarity.Value) string {
	switch x := v.(type) {
	case clarity.UInt:
		return x.String()
	case clarity.Int:
		return x.String()
	case clarity.Principal:
		return x.String()
	case clarity.StringASCII:
		return string(x)
	case clarity.StringUTF8:
		return string(x)
	case clarity.Optional:
		if x.Value != nil {
			return clarityText(x.Value)
		}
	}
	return ""
}

func numberOrZero(v clarity.Value) string {
	if s := clarityText(v); s != "" {
		return s
	}
	return "0"
}

// clarityJSON renders a value for the data jsonb column: tuple keys with "-" turned into "_"
// (the reference's field names), integers as decimal strings, buffers as 0x-hex.
func clarityJSON(v clarity.Value) any {
	switch x := v.(type) {
	case nil:
		return nil
	case clarity.Tuple:
		m := make(map[string]any, len(x))
		for _, e := range x {
			m[strings.ReplaceAll(e.Name, "-", "_")] = clarityJSON(e.Value)
		}
		return m
	case clarity.List:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = clarityJSON(e)
		}
		return l
	case clarity.Optional:
		return clarityJSON(x.Value)
	case clarity.Response:
		return clarityJSON(x.Value)
	case clarity.Bool:
		return bool(x)
	case clarity.Buffer:
		return db.Hex(x)
	default:
		return clarityText(v)
	}
}
