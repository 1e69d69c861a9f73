package design

import _ "embed"

//go:embed copperhead_readme.md
var readme []byte

// GenerateReadme renders .copperhead/README.md: every config.json key, budget
// semantics, the constraints.json format and the runs/ layout. JSON carries no
// comments, so this sidecar is the config's documentation (design D12). It is
// static text, so re-running init rewrites it byte-identically.
func GenerateReadme() []byte {
	return append([]byte(nil), readme...)
}
