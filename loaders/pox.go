package loaders

import (
	"context"

	"github.com/graph-gophers/dataloader/v7"

	"github.com/stxgraph/stxgraph/db"
)

// PoxSignersKey asks for one page of one cycle's signers.
type PoxSignersKey struct {
	Cycle int32
	Page  db.PoxPage
}

// PoxStackersKey asks for one page of one signer's stackers in its cycle.
type PoxStackersKey struct {
	Signer db.PoxSignerKey
	Page   db.PoxPage
}

// poxSigners reads the signer pages of every cycle a request lists: one statement per distinct
// page argument, and one for the totals.
func poxSigners(store *db.Store) dataloader.BatchFunc[PoxSignersKey, *db.PoxSignerPage] {
	return func(ctx context.Context, keys []PoxSignersKey) []*dataloader.Result[*db.PoxSignerPage] {
		byPage := map[db.PoxPage][]int32{}
		var cycles []int32
		for _, k := range keys {
			byPage[k.Page] = append(byPage[k.Page], k.Cycle)
			cycles = append(cycles, k.Cycle)
		}
		counts, err := store.PoxSignerCounts(ctx, cycles)
		if err != nil {
			return failed[*db.PoxSignerPage](len(keys), err)
		}
		found := make(map[PoxSignersKey]*db.PoxSignerPage, len(keys))
		for _, k := range keys {
			found[k] = &db.PoxSignerPage{Results: []*db.PoxSigner{}}
		}
		for _, c := range counts {
			for p := range byPage {
				if page := found[PoxSignersKey{Cycle: c.CycleNumber, Page: p}]; page != nil {
					page.Total = c.N
				}
			}
		}
		for p, cycles := range byPage {
			rows, err := store.PoxSignersOf(ctx, cycles, p)
			if err != nil {
				return failed[*db.PoxSignerPage](len(keys), err)
			}
			for _, r := range rows {
				page := found[PoxSignersKey{Cycle: r.CycleNumber, Page: p}]
				page.Results = append(page.Results, r)
			}
		}
		return answer(keys, found)
	}
}

// poxSigner reads the signers a request names by cycle and signing key, in one statement.
func poxSigner(store *db.Store) dataloader.BatchFunc[db.PoxSignerKey, *db.PoxSigner] {
	return byKey(store.PoxSignersByKey, func(s *db.PoxSigner) db.PoxSignerKey {
		return db.PoxSignerKey{Cycle: s.CycleNumber, Key: string(s.SigningKey)}
	})
}

// poxStackers reads the stacker pages of every signer a request lists: one statement per
// distinct page argument, and one for the totals.
func poxStackers(store *db.Store) dataloader.BatchFunc[PoxStackersKey, *db.PoxStackerPage] {
	return func(ctx context.Context, keys []PoxStackersKey) []*dataloader.Result[*db.PoxStackerPage] {
		byPage := map[db.PoxPage][]db.PoxSignerKey{}
		var signers []db.PoxSignerKey
		for _, k := range keys {
			byPage[k.Page] = append(byPage[k.Page], k.Signer)
			signers = append(signers, k.Signer)
		}
		counts, err := store.PoxStackerCounts(ctx, signers)
		if err != nil {
			return failed[*db.PoxStackerPage](len(keys), err)
		}
		found := make(map[PoxStackersKey]*db.PoxStackerPage, len(keys))
		for _, k := range keys {
			found[k] = &db.PoxStackerPage{Results: []*db.PoxStacker{}}
		}
		for _, c := range counts {
			signer := db.PoxSignerKey{Cycle: c.CycleNumber, Key: string(c.SigningKey)}
			for p := range byPage {
				if page := found[PoxStackersKey{Signer: signer, Page: p}]; page != nil {
					page.Total = c.N
				}
			}
		}
		for p, signers := range byPage {
			rows, err := store.PoxStackersOf(ctx, signers, p)
			if err != nil {
				return failed[*db.PoxStackerPage](len(keys), err)
			}
			for _, r := range rows {
				page := found[PoxStackersKey{Signer: db.PoxSignerKey{Cycle: r.CycleNumber, Key: string(r.SigningKey)}, Page: p}]
				page.Results = append(page.Results, r)
			}
		}
		return answer(keys, found)
	}
}
