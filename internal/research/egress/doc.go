// Package egress is the one place that opens research sockets. A Client
// refuses, before any byte leaves the machine, every request whose host is
// not on the allowlist, whose scheme is not https, or whose resolved address
// is not public; it re-applies those checks on every redirect hop, caps time
// and response size (including after decompression), checks content types,
// and reports every request and every refusal to a Log callback so the run's
// transcript holds a complete network log.
//
// The guard runs in the dialer's Control hook, after DNS resolution, on the
// exact address the socket is about to connect to: a hostname that resolves
// (or re-resolves, DNS rebinding) to a private address is refused at dial
// time no matter what the allowlist said. Environment proxies are ignored so
// the guard always sees the real destination.
package egress
