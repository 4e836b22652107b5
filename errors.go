package main

import "errors"

// errNotBuilt is returned by subcommands whose area is still being written.
var errNotBuilt = errors.New("not built yet")
