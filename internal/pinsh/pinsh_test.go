package pinsh

import (
	"fmt"
	"testing"
)

func TestPinMacroAndHeader(t *testing.T) {
	for in, want := range map[string]string{
		"KEY_DAH": "PIN_KEY_DAH", "USB_D+": "PIN_USB_DP", "USB_D-": "PIN_USB_DN",
		"/power/CHG_STAT": "PIN_POWER_CHG_STAT", "led r": "PIN_LED_R",
	} {
		if got := PinMacro(in); got != want {
			t.Errorf("PinMacro(%q) = %q, want %q", in, got, want)
		}
	}
	defs := Parse([]byte("#define PIN_A 4\n  # define PIN_B (GPIO_NUM_5) // x\n#define PIN_C foo()\n#define OTHER 1\n#define PIN_D 7U /* y */\r\n"))
	got := fmt.Sprint(defs)
	if want := "[{PIN_A 4 4} {PIN_B (GPIO_NUM_5) 5} {PIN_C foo() -1} {PIN_D 7U 7}]"; got != want {
		t.Errorf("Parse = %s, want %s", got, want)
	}
}
