DROP INDEX pox_events_pox4_cycle_idx;
DROP TABLE pox_signers;
DROP TABLE pox_cycles;
