package domain

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Imports read UTF-8 (docs/formats.md#imports). A file in another
// encoding is recognised from its first bytes and named in the error, so
// the researcher is told to save it as UTF-8 instead of reading about an
// unknown column full of NULs.

// Encoding names a file's encoding from its first bytes (complete: they
// are the whole file): "" for UTF-8 (with or without a byte-order mark),
// else a name for a message — "UTF-16 (little-endian)", "UTF-32
// (big-endian)" or "Windows-1252 or Latin-1" (bytes that are not UTF-8).
// latin reports the 8-bit case; callers
// that repair such text may ignore it.
func Encoding(head []byte, complete bool) (name string, latin bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE, 0, 0}):
		return "UTF-32 (little-endian)", false
	case bytes.HasPrefix(head, []byte{0, 0, 0xFE, 0xFF}):
		return "UTF-32 (big-endian)", false
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		return "UTF-16 (little-endian)", false
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return "UTF-16 (big-endian)", false
	}
	if len(head) > 512 {
		head = head[:512]
		complete = false
	}
	var even, odd int
	for i, b := range head {
		if b == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	// Without a byte-order mark UTF-16 shows as a NUL beside every ASCII
	// character; a stray NUL is left to the field checks, which name its
	// line and field. Fewer than two characters' worth of bytes, or a whole
	// file of an odd length, is no UTF-16 (a one-byte NUL file is not).
	switch {
	case len(head) < 4 || complete && len(head)%2 == 1:
	case odd > 0 && odd*4 >= len(head) && even*8 < odd:
		return "UTF-16 (little-endian)", false
	case even > 0 && even*4 >= len(head) && odd*8 < even:
		return "UTF-16 (big-endian)", false
	}
	if !complete {
		// A character cut by the end of the sample is not an error.
		for i := len(head) - 1; i >= 0 && i >= len(head)-3; i-- {
			if utf8.RuneStart(head[i]) {
				if !utf8.FullRune(head[i:]) {
					head = head[:i]
				}
				break
			}
		}
	}
	if !utf8.Valid(head) {
		return "Windows-1252 or Latin-1", true
	}
	return "", false
}

// CheckEncoding is EINVALID when the file whose first bytes are head is
// not UTF-8, naming what it is and the line where it shows; allowLatin
// lets 8-bit text through, for readers that repair it.
func CheckEncoding(what string, head []byte, complete, allowLatin bool) error {
	line, msg := EncodingProblem(what, head, complete, allowLatin)
	if msg == "" {
		return nil
	}
	return Errorf(EINVALID, "line %d: %s", line, msg)
}

// EncodingProblem is CheckEncoding's verdict in parts, for readers whose
// errors name lines their own way: the line (1 for UTF-16 and UTF-32,
// which line 1 already shows; the first byte that is not UTF-8 for 8-bit
// text) and the message, "" when the file is UTF-8.
func EncodingProblem(what string, head []byte, complete, allowLatin bool) (line int, msg string) {
	name, latin := Encoding(head, complete)
	if name == "" || latin && allowLatin {
		return 0, ""
	}
	const fix = "save it as UTF-8 (in Excel: Save As › CSV UTF-8; in LibreOffice: character set Unicode (UTF-8)) and upload it again"
	msg = fmt.Sprintf("the %s is %s, not UTF-8: %s", what, name, fix)
	if !latin {
		return 1, msg
	}
	// The line of the first byte that is not UTF-8, to look at.
	i := 0
	for i < len(head) {
		r, n := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return bytes.Count(head[:i], []byte("\n")) + 1, msg
}
