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
// The cache's format (index.json, file names, page markers) and everything
// that reads it offline (page text, quotes, citation checks) live in
// internal/datasheets; this package is the half that downloads and extracts,
// and writes what that package defines.
//
// This package performs network I/O (through egress only) and runs poppler;
// it must never be imported by check, verify, design or kicad, which stay
// offline (AC-2.1). They read the cache through internal/datasheets.
package datasheet
