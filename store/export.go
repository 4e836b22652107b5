package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"

	"pragmalab/csvsafe"
)

// queryRows runs a read query and scans each row with scan: the one loop
// behind every export and every list of analysis rows. op prefixes errors.
func queryRows[T any](ctx context.Context, db *DB, op, query string, args []any, scan func(*sql.Rows, *T) error) ([]T, error) {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return out, nil
}

// writeCSV writes a header and one record per row: the one writer behind
// every CSV export of the store (docs/formats.md#exports), formula cells
// neutralised (csvsafe).
func writeCSV[T any](w io.Writer, header []string, rows []T, record func(T) []string) error {
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(record(r)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
