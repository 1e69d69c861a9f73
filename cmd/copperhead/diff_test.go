package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// svgmarks FILE [KIND...] checks that FILE is well-formed XML holding the
// overlay `copperhead diff --svg` draws (a <g id="copperhead-diff">) with a
// rect of class copperhead-KIND for each KIND named; with !, that it holds
// no rect of any KIND named.
func cmdSVGMarks(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 {
		ts.Fatalf("usage: svgmarks FILE [KIND...]")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	group, root := false, ""
	classes := map[string]bool{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			ts.Fatalf("%s is not well-formed XML: %v", args[0], err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = se.Name.Local
		}
		for _, a := range se.Attr {
			switch {
			case se.Name.Local == "g" && a.Name.Local == "id" && a.Value == "copperhead-diff":
				group = true
			case (se.Name.Local == "rect" || se.Name.Local == "polyline") && a.Name.Local == "class" && strings.HasPrefix(a.Value, "copperhead-"):
				classes[strings.TrimPrefix(a.Value, "copperhead-")] = true
			}
		}
	}
	if root != "svg" {
		ts.Fatalf("%s: the root element is <%s>, not <svg>", args[0], root)
	}
	if !group {
		ts.Fatalf("%s has no copperhead-diff overlay", args[0])
	}
	for _, kind := range args[1:] {
		if classes[kind] == neg {
			ts.Fatalf("%s: mark %s present=%v", args[0], kind, classes[kind])
		}
	}
}
