package design

import "copperhead/internal/config"

// The config schema and the repo paths moved to internal/config; these
// names stay until internal/agent and internal/editdocs use config's.
//
// Transitional: internal/agent still uses it; the lead removes it after merging.
type Config = config.Config
type ResearchConfig = config.ResearchConfig

const ConfigPath, ConstraintsPath, RunsDir = config.ConfigPath, config.ConstraintsPath, config.RunsDir
const DefaultMaxTurns, DefaultMaxRepairCycles = config.DefaultMaxTurns, config.DefaultMaxRepairCycles

var LoadConfig, DefaultConfig, DefaultResearch = config.LoadConfig, config.DefaultConfig, config.DefaultResearch

// ReadRepoFile is config.ReadRepoFile.
//
// Transitional: internal/editdocs still uses it; the lead removes it after merging.
var ReadRepoFile = config.ReadRepoFile
