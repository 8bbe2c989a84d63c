package rest_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/mux"

	"github.com/stxgraph/stxgraph/db"
	"github.com/stxgraph/stxgraph/db/dbtest"
	"github.com/stxgraph/stxgraph/ingest"
	"github.com/stxgraph/stxgraph/ingest/tsv"
	"github.com/stxgraph/stxgraph/internal/fixtures"
	"github.com/stxgraph/stxgraph/loaders"
	"github.com/stxgraph/stxgraph/resolvers"
	"github.com/stxgraph/stxgraph/rest"
)

// replay loads a shared TSV fixture into a fresh database through the real ingestion path.
func replay(t testing.TB, fixture string) *db.Store {
	t.Helper()
	store := dbtest.New(t)
	t.Cleanup(func() { store.Close() })
	if fixture == "" {
		return store
	}
	r, c, err := tsv.Open(fixtures.Path(t, "stacks/"+fixture+".tsv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := ingest.NewIngester(store).Replay(context.Background(), r, ingest.ReplayOptions{}); err != nil {
		t.Fatalf("replay %s: %v", fixture, err)
	}
	return store
}

// serve starts the REST adapter over store on a loopback HTTP server, wired as server.New wires
// it (per-request loaders around the routes).
func serve(t testing.TB, store *db.Store, opts rest.Options) *httptest.Server {
	t.Helper()
	api, err := rest.New(schemaOf(store), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := mux.NewRouter()
	r.Use(loaders.Middleware(store, loaders.DefaultWait))
	api.Register(r)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// schemaOf is the executable schema over store, as the server builds it.
func schemaOf(store *db.Store) graphql.ExecutableSchema {
	return resolvers.NewExecutableSchema(&resolvers.Resolver{Store: store})
}
