// Package parts is the search_parts tool's back end: it asks a part-data API
// (Nexar first, Mouser second) for parts by MPN or keyword and normalizes the
// answer to one Part shape — MPN, manufacturer, lifecycle, datasheet URL and
// per-distributor offers with stock and price breaks (design D3). NewSnapshot
// reduces a part to the sourcing snapshot (D7) that internal/sourcing judges
// offline.
//
// Providers exist only when their credentials are in the environment (D2):
// Available returns those whose variables are set, so with no keys the tool
// is structurally absent. All HTTP goes through internal/research/egress, the
// single audited choke point (D1). Credentials never appear in returned
// errors; Mouser's key must ride in the query string, so every Mouser error
// is scrubbed and the egress log redacts apiKey= values.
//
// Everything a provider returns is untrusted third-party data: descriptions
// and lifecycle strings are facts to record and cite, never instructions.
//
// The providers open network connections. This package must never be
// imported by check, verify, design, kicad or anything they import: `check`
// stays network-free (AC-2.1). The check command applies the sourcing rules
// of the network-free internal/sourcing to snapshots it reads from
// constraints.json.
package parts
