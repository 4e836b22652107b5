package cli

import (
	"context"
)

// cliStore is what the commands read and write directly, with no rule of
// a use case between them and the database (docs/architecture.md#rules):
// the store satisfies it, and cli/open.go hands it over. Everything that
// decides something goes through studies.Service instead.
type cliStore interface {
	LinkProlific(ctx context.Context, studyID int64, prolificStudyID string) error
}
