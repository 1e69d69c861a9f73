package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// credentialKeys are JSON object keys whose string value is a credential
// whatever its shape (compared lower-case). A header map recorded as
// {"Authorization": "Basic dXNlcjpwYXNz"} keeps its key and loses its value.
var credentialKeys = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"x-api-key":           true,
	"x-goog-api-key":      true,
	"api-key":             true,
	"api_key":             true,
	"apikey":              true,
	"password":            true,
	"passwd":              true,
	"secret":              true,
	"client_secret":       true,
	"access_token":        true,
	"refresh_token":       true,
	"id_token":            true,
}

// isCredentialKey reports whether the string value under key is redacted
// whole: a credential header or field name, or an environment-style name
// (upper case, like OPENAI_API_KEY) that IsSecretName accepts. Lower-case
// keys such as "sort_key" are ordinary data.
func isCredentialKey(key string) bool {
	if credentialKeys[strings.ToLower(key)] {
		return true
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return IsSecretName(key)
}

// JSON returns the JSON document data with every string, object keys
// included, redacted as by String, and the string value of every credential
// key (Authorization, x-api-key, password, client_secret, access_token, an
// upper-case NAME_TOKEN, ...) replaced by Marker whatever its shape.
//
// Strings are redacted in decoded form, so a secret that JSON escaping would
// hide from a byte scan (a newline written as \n right before "sk-", a quote
// inside an environment value) is still found, and a replacement can never
// break the document's structure. Key order, number spelling and nesting are
// preserved; the output is compact and not HTML-escaped. data must hold
// exactly one JSON value.
func (r *Redactor) JSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out := make([]byte, 0, len(data)+len(data)/16)

	// frame is one open object or array: n counts the tokens written in
	// it (keys and values alike), so in an object an even n means the next
	// string is a key.
	type frame struct {
		object bool
		n      int
		key    string
	}
	var stack []frame
	done := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("redact json: %w", err)
		}
		if done {
			return nil, errors.New("redact json: more than one value")
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out = append(out, byte(d))
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].n++
			} else {
				done = true
			}
			continue
		}
		isKey := top != nil && top.object && top.n%2 == 0
		if top != nil && top.n > 0 {
			if top.object && top.n%2 == 1 {
				out = append(out, ':')
			} else {
				out = append(out, ',')
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			out = append(out, byte(v))
			stack = append(stack, frame{object: v == '{'})
			continue // the container counts in its parent when it closes
		case string:
			switch {
			case isKey:
				top.key = v
				out = appendString(out, r.String(v))
			case top != nil && top.object && v != "" && isCredentialKey(top.key):
				out = appendString(out, Marker)
			default:
				out = appendString(out, r.String(v))
			}
		case json.Number:
			out = append(out, v...)
		case bool:
			if v {
				out = append(out, "true"...)
			} else {
				out = append(out, "false"...)
			}
		case nil:
			out = append(out, "null"...)
		}
		if top != nil {
			top.n++
		} else {
			done = true
		}
	}
	if !done {
		return nil, errors.New("redact json: empty document")
	}
	return out, nil
}

// appendString appends s as a JSON string literal, escaping only what JSON
// requires (plus U+2028/U+2029, as encoding/json does).
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, s[start:i]...)
			out = append(out, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
