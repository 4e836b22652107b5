package store

import (
	"context"
	"sync"

	"pragmalab/domain"
)

// trapKey is the server's secret the participants' traps are drawn from
// (domain.DrawTraps, docs/studies.md#integrity-signals): created once in
// the database's kv table like the session keys, read once per process.
type trapKey struct {
	mu  sync.Mutex
	key []byte
}

// TrapKeyName is the kv row holding the traps' key.
const TrapKeyName = "trap_key"

// TrapKey is the key the participants' traps are drawn from, created on
// first use and kept in the database, so a restart draws the same traps
// for the same participant. It is never shown, logged or exported.
func (db *DB) TrapKey(ctx context.Context) ([]byte, error) {
	db.traps.mu.Lock()
	defer db.traps.mu.Unlock()
	if db.traps.key == nil {
		k, err := db.SecretKey(ctx, TrapKeyName, 32)
		if err != nil {
			return nil, err
		}
		db.traps.key = k
	}
	return db.traps.key, nil
}

// Traps are the traps of the participant whose session is token.
func (db *DB) Traps(ctx context.Context, token string) (domain.Traps, error) {
	k, err := db.TrapKey(ctx)
	if err != nil {
		return domain.Traps{}, err
	}
	return domain.DrawTraps(k, token), nil
}

// crowdTraps are a crowd participant's traps when the study draws any on
// the server's side (the hidden instruction, the justification screens),
// read before the answer's transaction so that the key's first read never
// waits inside it.
func (db *DB) crowdTraps(ctx context.Context, token string, s domain.CrowdSettings) (domain.Traps, error) {
	if !s.MachineCheck && s.Justifications == 0 {
		return domain.Traps{}, nil
	}
	return db.Traps(ctx, token)
}
