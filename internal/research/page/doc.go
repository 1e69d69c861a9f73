// Package page is the fetch_page tool's back end: it downloads one web page
// through the research egress client and reduces it to its readable text and
// the links it holds. The article comes from a maintained port of Mozilla's
// Readability (codeberg.org/readeck/go-readability), the algorithm behind
// Firefox's reader view, so navigation, ads and scripts stay out of the
// model's context; its text comes from internal/htmltext, the module's one
// HTML-to-text converter (carter's doctext uses it too).
//
// A page is untrusted third-party text (design D10): its text is data to
// read and cite, never instructions. Links are harvested here, by our own
// parser, so that trusted code and not the model decides which URLs a run's
// menu gains; the model can then only choose among them.
//
// The readability library can fetch pages itself (FromURL, with an unguarded
// http.Client); this package never calls it. Every byte arrives through
// egress, which enforces the allowlist, the SSRF guard and the size cap.
package page
