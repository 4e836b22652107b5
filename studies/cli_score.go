package studies

// What `pragmalab score` (docs/cli.md#score) needs of the database beside
// the job runner, which the command line's composition root builds over
// the store (cli/open.go).
