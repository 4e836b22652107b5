package signin

import (
	"testing"

	"pragmalab/store"
	"pragmalab/store/storetest"
)

// mustOpenDB is a fresh database with the fixed clock (store/storetest).
func mustOpenDB(t testing.TB) *store.DB { return storetest.Open(t) }
