DROP TABLE IF EXISTS block_proposal_responses, stackerdb_chunks, attachments, event_observer_requests,
    principal_stx_totals, principal_txs, smart_contracts, miner_rewards, pox_events, stx_lock_events,
    contract_logs, nft_events, ft_events, stx_events, mempool_txs, txs, microblocks, blocks,
    reward_slot_holders, burnchain_rewards, burn_blocks, pox_state, chain_tip;
