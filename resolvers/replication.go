package resolvers

import (
	"context"

	"github.com/stxgraph/stxgraph/db"
)

func (r queryResolver) ReplicationLag(ctx context.Context) (*db.ReplicationLag, error) {
	if r.Replication == nil {
		return nil, nil
	}
	return r.Replication.Lag(ctx)
}
