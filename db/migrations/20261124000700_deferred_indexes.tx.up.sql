-- Secondary indexes a bulk import into an empty chain drops and builds again once the rows are
-- in (see db.Store.DeferIndexes). A row here is an index missing until RestoreIndexes runs; an
-- import killed before that leaves them for the next start to build.
CREATE TABLE deferred_indexes (
	name text PRIMARY KEY,
	definition text NOT NULL
);
