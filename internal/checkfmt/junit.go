package checkfmt

import (
	"encoding/xml"
	"fmt"
	"io"

	"copperhead/internal/design"
	"copperhead/internal/kicadcli"
	"copperhead/internal/verify"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// JUnit writes r as JUnit XML: one testsuite per gate (erc, drc, drift,
// constraints, openspec, sourcing), one testcase per finding, and one
// passing testcase for a gate with no findings. A finding that fails its
// gate (an error, or a new one under a baseline) is a <failure>; one that
// does not (a warning, an existing finding) passes with its text in
// <system-out>; a skipped gate is one <skipped> case. strict is check
// --strict: ERC/DRC warnings fail too.
func JUnit(w io.Writer, r *verify.Result, strict bool) error {
	var out junitSuites
	out.Name = "copperhead check"
	based := r.Baseline != nil
	tool := func(name string, g verify.ToolGate, bar kicadcli.Severity) {
		s := junitSuite{Name: name}
		if g.Skipped != "" {
			s.Cases = append(s.Cases, junitCase{Name: name, Classname: name, Skipped: &junitSkipped{Message: g.Skipped}})
		}
		for _, group := range [][]kicadcli.Violation{g.Violations, g.Unconnected, g.Parity} {
			for _, v := range group {
				fails := v.Severity == kicadcli.SeverityError || (bar == kicadcli.SeverityWarning && v.Severity == kicadcli.SeverityWarning)
				if based && v.BaselineState != verify.StateNew {
					fails = false
				}
				s.Cases = append(s.Cases, finding(name, v.Type, violationMessage(v), string(v.Severity), v.BaselineState, fails))
			}
		}
		out.Suites = append(out.Suites, s)
	}
	bar := kicadcli.SeverityError
	if strict {
		bar = kicadcli.SeverityWarning
	}
	tool("erc", r.ERC, bar)
	tool("drc", r.DRC, bar)

	s := junitSuite{Name: "drift"}
	for _, m := range r.Drift.Mismatches {
		s.Cases = append(s.Cases, finding("drift", string(m.Kind), m.Message, "error", m.BaselineState, !based || m.BaselineState == verify.StateNew))
	}
	out.Suites = append(out.Suites, s)
	s = junitSuite{Name: "constraints"}
	for _, v := range r.Constraints.Violations {
		s.Cases = append(s.Cases, finding("constraints", v.Kind, v.Message, "error", v.BaselineState, !based || v.BaselineState == verify.StateNew))
	}
	out.Suites = append(out.Suites, s)
	s = junitSuite{Name: "openspec"}
	if r.OpenSpec.Skipped != "" {
		s.Cases = append(s.Cases, junitCase{Name: "openspec", Classname: "openspec", Skipped: &junitSkipped{Message: r.OpenSpec.Skipped}})
	}
	for _, is := range r.OpenSpec.Issues {
		s.Cases = append(s.Cases, finding("openspec", is.Type, is.Item+": "+is.Message, is.Level, "", is.Level == "ERROR" || !r.OpenSpec.OK))
	}
	out.Suites = append(out.Suites, s)
	s = junitSuite{Name: "sourcing"}
	if r.Sourcing.Skipped != "" {
		s.Cases = append(s.Cases, junitCase{Name: "sourcing", Classname: "sourcing", Skipped: &junitSkipped{Message: r.Sourcing.Skipped}})
	}
	for _, f := range r.Sourcing.Findings {
		s.Cases = append(s.Cases, finding("sourcing", f.Kind, f.Message, f.Severity, "", f.Severity == design.SeverityFail))
	}
	out.Suites = append(out.Suites, s)

	for i := range out.Suites {
		s := &out.Suites[i]
		if len(s.Cases) == 0 {
			s.Cases = append(s.Cases, junitCase{Name: s.Name + " clean", Classname: s.Name})
		}
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// finding is one testcase; the name is the rule and message, which KiCad
// text keeps readable in any dashboard.
func finding(gate, kind, msg, severity, state string, fails bool) junitCase {
	name := plainLine(msg)
	if state != "" {
		name = state + " " + name
	}
	c := junitCase{Name: name, Classname: gate + "." + kind}
	text := fmt.Sprintf("%s %s: %s", severity, kind, plainLine(msg))
	if fails {
		c.Failure = &junitFailure{Message: plainLine(msg), Type: kind, Text: text}
	} else {
		c.SystemOut = text
	}
	return c
}
