package testkit

import (
	"fmt"
	"slices"
	"testing"
)

// errRecorder is a testing.TB that keeps what Errorf reports.
type errRecorder struct {
	testing.TB
	errs []string
}

func (r *errRecorder) Helper() {}

func (r *errRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestContainsAll(t *testing.T) {
	r := &errRecorder{TB: t}
	ContainsAll(r, "stdout", "alpha beta", "alpha", "gamma", "beta", "delta")
	want := []string{"stdout lacks \"gamma\":\nalpha beta", "stdout lacks \"delta\":\nalpha beta"}
	if !slices.Equal(r.errs, want) {
		t.Errorf("errors = %q, want %q", r.errs, want)
	}
}
