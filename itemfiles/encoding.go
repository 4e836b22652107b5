package itemfiles

import (
	"bufio"
	"errors"
	"io"

	"pragmalab/domain"
)

// checkEncoding refuses a file that is not UTF-8 (UTF-16 from Excel's
// "Unicode text", Windows-1252…) by its first 4 KiB, naming the encoding
// (domain.CheckEncoding); br keeps every byte for the parser.
func checkEncoding(what string, br *bufio.Reader, allowLatin bool) error {
	head, err := br.Peek(4096)
	complete := errors.Is(err, io.EOF)
	if err != nil && !complete && !errors.Is(err, bufio.ErrBufferFull) {
		return nil // the parser reports the read error
	}
	return domain.CheckEncoding(what, head, complete, allowLatin)
}
