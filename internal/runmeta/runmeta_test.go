package runmeta

import (
	"context"
	"errors"
	"testing"
)

// TestKnownKiCadVersionNotProbed: a command that found kicad-cli hands its
// version over, and the run-start records it without asking kicad-cli
// again; without it the probe answers, and a failing probe records null.
func TestKnownKiCadVersionNotProbed(t *testing.T) {
	fail := func(context.Context) (string, error) { return "", errors.New("offline") }
	pr := Probes{KicadCLIVersion: fail, NodeVersion: fail,
		Executable: func() (string, error) { return "", errors.New("offline") },
		Git:        func(context.Context, string, ...string) (string, error) { return "", errors.New("offline") }}
	for _, tt := range []struct {
		name, known, probe, want string
	}{
		{"known", "9.0.8", "", "9.0.8"},
		{"probed", "", "9.0.7", "9.0.7"},
		{"probe fails", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			probes := pr
			calls := 0
			probes.KicadCLIVersion = func(ctx context.Context) (string, error) {
				calls++
				if tt.probe == "" {
					return fail(ctx)
				}
				return tt.probe, nil
			}
			rs := Collect(context.Background(), Input{Repo: t.TempDir(), KicadCLIVersion: tt.known}, probes)
			got := ""
			if rs.KicadCLIVersion != nil {
				got = *rs.KicadCLIVersion
			}
			if got != tt.want || (tt.known != "" && calls != 0) {
				t.Errorf("version %q after %d probes, want %q", got, calls, tt.want)
			}
		})
	}
}
