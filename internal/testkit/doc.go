// Package testkit holds the helpers the module's tests share: finding the
// tools a test needs or skipping without them, copying fixtures, and reading
// a testscript folder's README of custom commands. Test files import it;
// shipped code never does, and the layering test asserts that no shipped
// binary links it.
package testkit
