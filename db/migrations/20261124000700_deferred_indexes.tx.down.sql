DROP TABLE IF EXISTS deferred_indexes;
