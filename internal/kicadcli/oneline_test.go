package kicadcli

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"Clearance violation":          "Clearance violation",
		"Text 'DIO\n\nCLK' on F.SilkS": `Text 'DIO\n\nCLK' on F.SilkS`,
		"a\r\nb\tc":                    `a\r\nb\tc`,
		"bell\x07 del\x7f":             `bell\x07 del\x7f`,
		"nel\u0085 ls\u2028 µΩ":        `nel\u0085 ls\u2028 µΩ`,
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
