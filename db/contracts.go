package db

import (
	"context"
)

// ContractsByID returns, for each contract id, its canonical deployment (or, when none is
// canonical, the newest one).
func (s *Store) ContractsByID(ctx context.Context, ids []string) ([]*SmartContract, error) {
	var cs []*SmartContract
	err := s.scanPrepared(ctx, contractsByIDSelect+` WHERE contract_id = ANY($1::text[])
		ORDER BY contract_id, canonical DESC, microblock_canonical DESC, block_height DESC`, &cs, textArray(ids))
	return cs, err
}

// ContractLogsOf returns, for each contract id, one page of its canonical print events, newest
// first, in one LATERAL statement over contract_logs_contract_idx.
func (s *Store) ContractLogsOf(ctx context.Context, ids []string, k Keyset) ([]*ContractLog, error) {
	where, args, order := k.clause([]string{"block_height", "microblock_sequence", "tx_index", "event_index"}, 4, true)
	var logs []*ContractLog
	err := pagePerKey{Select: "l.*", Keys: textArray(ids), Type: "text", Key: "id",
		Inner: "SELECT * FROM contract_logs WHERE contract_identifier = k.id AND canonical AND microblock_canonical AND " +
			where + " ORDER BY " + order,
		Args: args, Limit: k.Limit, As: "l"}.scan(ctx, s, &logs)
	return logs, err
}
