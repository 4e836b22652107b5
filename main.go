// Command pragmalab runs the pragmalab web platform and its command-line
// tools; package cli does the work (docs/cli.md).
//
// With no subcommand it serves the web application (pragmalab serve).
package main

import (
	"os"

	"pragmalab/cli"
)

func main() {
	os.Exit(cli.Main())
}
