package egress

import (
	"net/netip"
	"net/url"
	"strings"
)

// nonPublic lists the address ranges the dial guard refuses beyond what the
// netip predicates cover: they are never a supplier's server, and several
// (CGNAT, benchmarking) are where cloud metadata and internal services hide.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, includes broadcast
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
}

// IPRefusal classifies an IP address string (as the dialer sees it, after DNS
// resolution) and returns why it may not be dialled, or "" when it is a
// public unicast address. IPv6 forms that embed an IPv4 address (mapped
// ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16)
// are judged by the embedded address too, so [::ffff:127.0.0.1] is loopback.
// allowLoopback (tests only) admits exactly 127.0.0.0/8 and ::1.
func IPRefusal(host string, allowLoopback bool) string {
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return "not an IP address: " + host
	}
	addr = addr.WithZone("")
	if allowLoopback && ((addr.Is4() && addr.IsLoopback()) || addr == netip.IPv6Loopback()) {
		return ""
	}
	if reason := classify(addr); reason != "" {
		return reason
	}
	if v4, ok := embeddedIPv4(addr); ok {
		if reason := classify(v4); reason != "" {
			return reason + " (embedded in " + addr.String() + ")"
		}
	}
	return ""
}

func classify(a netip.Addr) string {
	switch {
	case a.IsUnspecified():
		return "unspecified address"
	case a.IsLoopback():
		return "loopback address"
	case a.IsPrivate():
		return "private address"
	case a.IsLinkLocalUnicast():
		return "link-local address"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast address"
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return "non-public address (" + p.String() + ")"
		}
	}
	return ""
}

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	compat4 = netip.MustParsePrefix("::/96")
)

// embeddedIPv4 extracts the IPv4 address an IPv6 address carries, if any.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	if a.Is4In6() {
		return a.Unmap(), true
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), compat4.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// RedactURL returns raw with the values of key-bearing query parameters
// (key, token, apikey, and any name ending in key, token, secret, password or
// signature) replaced by REDACTED, and any userinfo dropped, so the network
// log never carries a credential. Parameter order and everything else is kept.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		// Unparseable: keep only what precedes the query.
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i] + "?REDACTED"
		}
		return raw
	}
	u.User = nil
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, _, hasValue := strings.Cut(p, "=")
			if !hasValue {
				continue
			}
			if dec, err := url.QueryUnescape(name); err == nil {
				name = dec
			}
			if sensitiveParam(name) {
				parts[i] = p[:strings.IndexByte(p, '=')+1] + "REDACTED"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

func sensitiveParam(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(name, "-", "_"), ".", "_"))
	switch n {
	case "key", "token", "apikey", "api_key", "access_token", "auth", "authorization", "sig", "signature", "client_secret", "secret", "password", "code":
		return true
	}
	for _, suffix := range []string{"key", "token", "secret", "password", "signature"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
