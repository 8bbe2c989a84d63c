ALTER TABLE principal_stx_checkpoints DROP CONSTRAINT principal_stx_checkpoints_pkey;
--bun:split

ALTER TABLE principal_stx_checkpoints ADD CONSTRAINT principal_stx_checkpoints_pkey PRIMARY KEY (principal, block_height);
