// Package static embeds pragmalab's CSS and the little JavaScript there is.
package static

import "embed"

// FS holds the files served under /static/.
//
//go:embed *.css *.js
var FS embed.FS
