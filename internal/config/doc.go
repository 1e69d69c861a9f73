// Package config owns copperhead's configuration and where its own files
// live in a user's repository: the schema of .copperhead/config.json (Config,
// its "research" block, the defaults of keys a repo leaves out, the docs
// folder and doc paths), loading and writing it, and the repo paths under
// .copperhead/ (config.json, constraints.json, README.md, datasheets/, runs/,
// state/), spelled once here.
//
// It is a leaf: it must never import design, kicad, llm, agent, research or
// cli, so that every layer can read its config without pulling in another.
// It imports only repofs (contained reads) and sourcing (the staleness
// default).
package config
