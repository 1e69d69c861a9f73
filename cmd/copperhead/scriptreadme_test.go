package main

import (
	"testing"

	"copperhead/internal/scriptcmd"
)

// TestScriptREADME holds testdata/script/README.md to what TestScripts
// registers: every program, command, condition and environment variable the
// scripts can use is listed there, and nothing listed is missing here.
func TestScriptREADME(t *testing.T) {
	scriptcmd.CheckScriptREADME(t, "testdata/script/README.md", scripts(t))
}
