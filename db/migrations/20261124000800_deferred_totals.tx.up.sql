-- Set while an import into an empty chain leaves the per-principal totals, checkpoints,
-- positions and counts to one recomputation at its end (see db.Store.DeferUpkeep): ingestion
-- then does not keep them, and the next process to migrate the database recomputes them when an
-- import was killed before it did.
ALTER TABLE chain_tip ADD COLUMN totals_deferred boolean NOT NULL DEFAULT false;
