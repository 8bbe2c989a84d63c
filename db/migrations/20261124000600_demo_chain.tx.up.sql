-- Marks a database that holds the generated demo chain (stxgraph serve --demo), so that a
-- stacks-node posting to it is refused instead of mixing a real chain into generated data.
-- One row at most; complete is false while the chain is being loaded.
CREATE TABLE IF NOT EXISTS demo_chain (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    chain_id   bigint NOT NULL,
    generator  text NOT NULL,
    blocks     integer NOT NULL DEFAULT 0,
    txs        integer NOT NULL DEFAULT 0,
    complete   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);
