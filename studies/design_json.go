package studies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"pragmalab/domain"
)

// A design file is read strictly (docs/formats.md#design-file): Go's JSON
// decoder takes the last of two equal keys, stops after the first value
// and replaces invalid UTF-8 silently, so a file edited by hand could say
// one thing and be read as another. designJSON refuses each, naming where.

// designJSON is data fit to decode as a design: a UTF-8 byte-order mark
// read past, or an EINVALID error naming the line of what is wrong —
// another encoding, invalid UTF-8, a syntax error, a key repeated in an
// object (at any depth, named by its path), or anything after the
// design's object.
func designJSON(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if name, latin := domain.Encoding(data[:min(len(data), 512)], len(data) <= 512); name != "" && !latin {
		return nil, domain.Errorf(domain.EINVALID, "the design file is %s, not UTF-8: save it as UTF-8 and upload it again", name)
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		line, col := lineCol(data, i)
		return nil, domain.Errorf(domain.EINVALID, "the design file is not valid UTF-8: line %d, byte %d (0x%02X); save it as UTF-8 and upload it again", line, col, data[i])
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkJSON(dec, data, ""); err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	for end < len(data) && strings.IndexByte(" \t\r\n", data[end]) >= 0 {
		end++
	}
	if end < len(data) {
		line, _ := lineCol(data, end)
		what := "data"
		if data[end] == '{' {
			what = "a second object"
		}
		return nil, domain.Errorf(domain.EINVALID, "design file: line %d: %s after the design's object; a design file holds one JSON object", line, what)
	}
	return data, nil
}

// walkJSON reads one value from dec, refusing a key repeated in an object;
// path names the value ("settings.quota", "passages[3].text").
func walkJSON(dec *json.Decoder, data []byte, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(data, dec, err)
	}
	switch tok {
	case json.Delim('{'):
		keys := map[string]string{} // folded → as written
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return syntaxError(data, dec, err)
			}
			k, _ := kt.(string)
			kp := k
			if path != "" {
				kp = path + "." + k
			}
			// Fields are matched without regard to case, so "Name" and
			// "name" are the same key too.
			if prev, dup := keys[strings.ToLower(k)]; dup {
				line, _ := lineCol(data, int(dec.InputOffset()))
				also := ""
				if prev != k {
					also = fmt.Sprintf(" (as %q before: keys are matched without regard to case)", prev)
				}
				return domain.Errorf(domain.EINVALID, "design file: line %d: duplicate key %q%s; each key may appear once in an object", line, kp, also)
			}
			keys[strings.ToLower(k)] = k
			if err := walkJSON(dec, data, kp); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkJSON(dec, data, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	if _, err := dec.Token(); err != nil { // the closing } or ]
		return syntaxError(data, dec, err)
	}
	return nil
}

// syntaxError words a JSON syntax error with its line.
func syntaxError(data []byte, dec *json.Decoder, err error) error {
	off := int(dec.InputOffset())
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return domain.Errorf(domain.EINVALID, "design file: it ends before the design's object does (is it cut short?)")
	}
	line, _ := lineCol(data, min(off, len(data)))
	return domain.Errorf(domain.EINVALID, "design file: line %d: %s", line, strings.TrimPrefix(err.Error(), "json: "))
}

// lineCol is the line and the byte in it (both from 1) of offset off.
func lineCol(data []byte, off int) (line, col int) {
	line = bytes.Count(data[:off], []byte("\n")) + 1
	return line, off - (bytes.LastIndexByte(data[:off], '\n') + 1) + 1
}
