// Package datasheets reads the committed datasheet cache in
// .copperhead/datasheets without any network: the index.json format, the
// cache's file names, the per-page extracted text, quotes located by byte
// offset, and the check of a citation a doc makes
// (.copperhead/datasheets/<file>.pdf §<section> (p.N), design D6, D8).
//
// It is the offline half of the datasheet cache: research/datasheet fetches
// PDFs (through the egress client) and extracts their text (pdftotext), and
// writes what this package defines; `check` reads it through this package to
// verify citations. So this package must never import internal/research,
// net/http or anything that opens a socket or runs a subprocess.
//
// Layout of the cache folder:
//
//	index.json             every document, sorted, written atomically
//	<mpn>-<sha8>.pdf       the bytes as downloaded
//	<mpn>-<sha8>.pdf.txt   per-page text, each page introduced by a marker line
//
// A page marker is a line of its own, exactly "=== page N ===" (N counting
// from 1), followed by that page's text. A line of extracted text that would
// read as a marker is indented by one space (CleanPage), so markers in the
// file are always the extractor's.
//
// Extracted text is untrusted document content: it is quoted and compared,
// never followed.
package datasheets
