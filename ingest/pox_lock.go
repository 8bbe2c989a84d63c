package ingest

import (
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/stxgraph/stxgraph/db"
)

// patchPoxEvent turns the state a PoX print event carries into the state after its operation, as
// the reference API stores it: the node prints the event before the operation runs, so a
// stack-stx prints the stacker's old (zero) lock. stack-stx and delegate-stack-stx lock the lock
// amount until the unlock height of the event data; stack-increase and delegate-stack-increase
// add increase-by to the locked amount; stack-extend and delegate-stack-extend move the unlock
// height; delegate-stx moves it when it names one; handle-unlock gives the locked amount back to
// the balance. Stored this way, the balance read finds the lock in force with plain column
// comparisons. It runs once per decoded event (decodePoxEvent), since an increase is additive.
func patchPoxEvent(e *db.PoxEvent) {
	var d struct {
		LockAmount       *string `json:"lock_amount"`
		IncreaseBy       *string `json:"increase_by"`
		UnlockBurnHeight *string `json:"unlock_burn_height"`
	}
	if json.Unmarshal(e.Data, &d) != nil {
		return
	}
	switch e.Name {
	case "stack-stx", "delegate-stack-stx":
		if d.LockAmount != nil {
			e.Balance = addDecimal(e.Balance, "-"+*d.LockAmount)
			e.Locked = *d.LockAmount
		}
		setHeight(&e.BurnchainUnlockHeight, d.UnlockBurnHeight)
	case "stack-increase", "delegate-stack-increase":
		if d.IncreaseBy != nil {
			e.Balance = addDecimal(e.Balance, "-"+*d.IncreaseBy)
			e.Locked = addDecimal(e.Locked, *d.IncreaseBy)
		}
	case "stack-extend", "delegate-stack-extend", "delegate-stx":
		setHeight(&e.BurnchainUnlockHeight, d.UnlockBurnHeight)
	case "handle-unlock":
		e.Balance = addDecimal(e.Balance, e.Locked)
	}
}

// addDecimal adds two decimal integers (a malformed one leaves a unchanged).
func addDecimal(a, b string) string {
	x, ok1 := new(big.Int).SetString(a, 10)
	y, ok2 := new(big.Int).SetString(b, 10)
	if !ok1 || !ok2 {
		return a
	}
	return x.Add(x, y).String()
}

// setHeight sets *h from a decimal height when there is one.
func setHeight(h *int32, s *string) {
	if s == nil {
		return
	}
	if n, err := strconv.ParseInt(*s, 10, 32); err == nil {
		*h = int32(n)
	}
}
