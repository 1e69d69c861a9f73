// Package datasheet owns the committed datasheet cache in
// .copperhead/datasheets: it downloads a PDF through the research egress
// client, stores it under a name derived from the part number and the
// SHA-256 of its bytes, extracts per-page text with pdftotext, records the
// document in index.json, and turns quotes into byte-offset citations a
// checker can verify offline.
//
// A fetched document is untrusted data. Nothing in a PDF, its extracted text
// or its metadata is executed or interpreted as an instruction: the bytes are
// hashed and stored, poppler reads them in a subprocess, and the text is
// written out for people and the agent to read and cite.
//
// Layout of the cache folder:
//
//	index.json             every document, sorted, written atomically
//	<mpn>-<sha8>.pdf       the bytes as downloaded
//	<mpn>-<sha8>.pdf.txt   per-page text, each page introduced by a marker line
//
// A page marker is a line of its own, exactly "=== page N ===" (N counting
// from 1), followed by that page's `pdftotext -layout` text. A line of
// extracted text that would read as a marker is indented by one space, so
// markers in the file are always ours (see PageMarker).
//
// This package performs network I/O (through egress only) and runs poppler;
// it must never be imported by check, verify, design or kicad, which stay
// offline (AC-2.1). They read the cache's files, not this package.
package datasheet
