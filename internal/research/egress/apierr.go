package egress

import (
	"errors"
	"fmt"
	"strings"
)

// Errors a caller of a research API (search, part data) can branch on with
// errors.Is, whichever provider answered. The wrapped message names the
// provider and the variables to check, never their values.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrRateLimited  = errors.New("rate limited")
)

// StatusError maps a research API's non-2xx status to an error naming op
// ("brave search", "nexar token") and, for an authentication failure, the
// variables holding the credentials (credEnv). The response body is never
// quoted: it is untrusted and may echo the request, key included.
func StatusError(op string, status int, credEnv string) error {
	switch {
	case status == 401 || status == 403:
		return fmt.Errorf("%s: HTTP %d: %w: check %s", op, status, ErrUnauthorized, credEnv)
	case status == 429:
		return fmt.Errorf("%s: HTTP 429: %w: retry later", op, ErrRateLimited)
	default:
		return fmt.Errorf("%s: unexpected HTTP status %d", op, status)
	}
}

// Scrub returns err with every occurrence of each secret replaced by
// "[redacted]", so an error that echoes a request detail (a URL carrying an
// apiKey parameter) cannot carry a credential into a transcript. An error
// holding none of them is returned unchanged, keeping errors.Is and
// errors.As working for RefusedError and context errors.
func Scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	changed := false
	for _, s := range secrets {
		if s != "" && strings.Contains(msg, s) {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	return errors.New(msg)
}
