package db

// The SQL predicates over principal_txs.roles, the bits of a roles.Set (stacks/roles). They spell
// the bits literally, as the predicate of principal_txs_transfers_idx does: PostgreSQL uses a
// partial index only for a query that repeats its predicate. TestRolesSQL holds them to the
// roles package.

// TransferRolesSQL selects the principal_txs rows of transactions_with_transfers: roles.Transfer
// (61).
const TransferRolesSQL = "roles & 61 <> 0"

// SummaryRolesSQL selects the principal_txs rows of the address transaction summaries, as the
// reference API's v2 address transactions list them: every role but stx_lock (63), except that
// of the boot data adopted from "block 0" only asset event parties count (the reference's own
// list of a principal's transactions keeps those rows under block 0, where no canonical
// transaction matches them; its event tables follow them to block 1).
const SummaryRolesSQL = "(roles & 32 <> 0 OR (roles & 31 <> 0 AND roles & 128 = 0))"
