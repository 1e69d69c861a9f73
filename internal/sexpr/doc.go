// Package sexpr reads KiCad s-expression files losslessly: every node keeps the
// byte span it came from, so callers can splice edits into the original bytes
// and leave every other byte of the file untouched. It knows nothing about
// KiCad's vocabulary and imports nothing outside the standard library.
//
// The reader never panics: malformed input yields a *SyntaxError that names
// the file, line and column.
package sexpr
