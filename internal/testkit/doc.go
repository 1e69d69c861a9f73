// Package testkit holds the helpers the module's Go tests share: a private
// KiCad configuration and cache, finding kicad-cli or skipping without it,
// values built once per test binary, copying fixtures, writing files and
// checking text holds the phrases it must.
// (The testscript helpers are internal/scriptcmd's.) Test files import it;
// shipped code never does, and the layering test asserts that no shipped
// binary links it.
package testkit
