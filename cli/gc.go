package cli

import (
	"os"
	"runtime/debug"
)

// The garbage collector's settings of a serving process
// (docs/performance.md#the-garbage-collector), unless the environment
// sets GOGC or GOMEMLIMIT: the answer path allocates about 30 KiB an
// answer against a live heap of a few MiB, so at Go's default (GOGC=100)
// the collector ran every few hundred answers and took a tenth of the
// server's CPU. serverGOGC lets the heap grow to five times what is live
// before a collection, and serverMemLimit keeps the whole Go heap within
// half of the 1 GB the Fly.io machine has (fly.toml): past it the
// collector runs as often as needed, whatever GOGC says.
const (
	serverGOGC     = 400
	serverMemLimit = 512 << 20
)

// tuneGC applies serverGOGC and serverMemLimit where the environment
// leaves them to Go.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serverGOGC)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(serverMemLimit)
	}
}
