//go:build !linux

package kicadcli

// watchClosed watches nothing where there is no inotify: outputs are
// parsed after kicad-cli exits.
func watchClosed(string, map[string]func(string)) (stop func()) { return func() {} }
