package cli

import "pragmalab/domain"

// cliStore is what the commands read and write directly, with no rule of
// a use case between them and the database (docs/architecture.md#rules):
// the store satisfies it, and cli/open.go hands it over. Everything that
// decides something goes through studies.Service instead.
type cliStore = domain.Stores
