package design

import "copperhead/internal/config"

// The config schema and the repo paths moved to internal/config.
//
// Transitional: internal/agent still uses it; the lead removes it after merging.
type (
	Config         = config.Config
	ResearchConfig = config.ResearchConfig
)

// Transitional: internal/agent still uses it; the lead removes it after merging.
const (
	ConfigPath             = config.ConfigPath
	ConstraintsPath        = config.ConstraintsPath
	RunsDir                = config.RunsDir
	DefaultMaxTurns        = config.DefaultMaxTurns
	DefaultMaxRepairCycles = config.DefaultMaxRepairCycles
)

// Transitional: internal/agent still uses it; the lead removes it after merging.
var (
	LoadConfig      = config.LoadConfig
	DefaultConfig   = config.DefaultConfig
	DefaultResearch = config.DefaultResearch
)
