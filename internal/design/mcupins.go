package design

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// mcuFamily is what copperhead knows about one MCU family's pins: which GPIOs
// are sampled at reset (strapping) and which can wake the chip from deep sleep
// (RTC), plus the pin-name aliases KiCad's symbols use for GPIOs. Adding an
// MCU is adding one entry to mcuFamilies.
type mcuFamily struct {
	Name      string
	Match     []string       // case-insensitive substrings of the part's lib id or value
	Strapping []int          // GPIO numbers
	RTC       []int          // GPIO numbers
	Aliases   map[string]int // upper-case pin name (or one "/" alternative) -> GPIO number
	Source    string         // where the pin facts come from, for the human
}

// mcuFamilies is the pin knowledge table. ESP32-S3: strapping pins GPIO0,
// GPIO3, GPIO45, GPIO46 and RTC GPIOs 0–21 (ESP32-S3 datasheet, "Strapping
// Pins" and "RTC and Analog Pin Functions"). The aliases cover the chip symbol
// in KiCad's MCU_Espressif library, which names some GPIOs by their default
// function (MTCK is GPIO39, XTAL_32K_P is GPIO15), and the RF_Module symbols
// (ESP32-S3-WROOM-1, -MINI-1) whose GPIOs are IO0…IO48 plus TXD0/RXD0 and
// USB_D-/USB_D+.
var mcuFamilies = []mcuFamily{
	{
		Name:      "ESP32-S3",
		Match:     []string{"ESP32-S3"},
		Strapping: []int{0, 3, 45, 46},
		RTC:       intRange(0, 21),
		Aliases: map[string]int{
			"XTAL_32K_P": 15, "XTAL_32K_N": 16,
			"USB_D-": 19, "USB_D+": 20,
			"SPICS1": 26, "SPIHD": 27, "SPIWP": 28, "SPICS0": 29, "SPICLK": 30, "SPIQ": 31, "SPID": 32,
			"MTCK": 39, "MTDO": 40, "MTDI": 41, "MTMS": 42,
			"U0TXD": 43, "TXD0": 43, "U0RXD": 44, "RXD0": 44,
			"SPICLK_P": 47, "SPICLK_N": 48,
		},
		Source: "ESP32-S3 datasheet: Strapping Pins; RTC and Analog Pin Functions",
	},
}

func intRange(lo, hi int) []int {
	var out []int
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// mcuFamilyOf returns the family a part belongs to, judged by its lib id and
// value, or nil when copperhead has no pin knowledge for it.
func mcuFamilyOf(libID, value string) *mcuFamily {
	hay := strings.ToUpper(libID + "\x00" + value)
	for i := range mcuFamilies {
		for _, m := range mcuFamilies[i].Match {
			if strings.Contains(hay, strings.ToUpper(m)) {
				return &mcuFamilies[i]
			}
		}
	}
	return nil
}

var gpioName = regexp.MustCompile(`^(?:GPIO|IO)([0-9]+)$`)

// canonicalPinNames is the single source of truth for what a pin answers to
// when docs and constraints name it: upper case, "IOn" ≡ "GPIOn", each "/"
// alternative of a multi-function name ("GPIO19/USB_D-") separately, and for a
// known MCU family the GPIO its alias stands for ("MTCK" -> "GPIO39"). Both the
// forbidden-pin check and the PINOUT notes use it.
func canonicalPinNames(name string, fam *mcuFamily) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, alt := range strings.Split(strings.ToUpper(strings.TrimSpace(name)), "/") {
		alt = strings.TrimSpace(alt)
		if m := gpioName.FindStringSubmatch(alt); m != nil {
			n, _ := strconv.Atoi(m[1])
			add("GPIO" + strconv.Itoa(n))
			continue
		}
		if fam != nil {
			if n, ok := fam.Aliases[alt]; ok {
				add("GPIO" + strconv.Itoa(n))
			}
		}
		add(alt)
	}
	return out
}

// gpioNumber is the GPIO a pin name stands for on a family, if any.
func gpioNumber(name string, fam *mcuFamily) (int, bool) {
	for _, c := range canonicalPinNames(name, fam) {
		if rest, ok := strings.CutPrefix(c, "GPIO"); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// Pin note words written into PINOUT.md's Notes column.
const (
	NoteStrapping = "strapping"
	NoteRTC       = "RTC"
)

// pinNotes is the Notes cell for a pin of a known MCU: "strapping", "RTC",
// or "strapping, RTC".
func pinNotes(name string, fam *mcuFamily) string {
	if fam == nil {
		return ""
	}
	n, ok := gpioNumber(name, fam)
	if !ok {
		return ""
	}
	var notes []string
	if slices.Contains(fam.Strapping, n) {
		notes = append(notes, NoteStrapping)
	}
	if slices.Contains(fam.RTC, n) {
		notes = append(notes, NoteRTC)
	}
	return strings.Join(notes, ", ")
}

// gpioList renders GPIO numbers as "GPIO0, GPIO3" with runs of three or more
// collapsed to "GPIO0–GPIO21".
func gpioList(nums []int) string {
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, "GPIO"+strconv.Itoa(nums[i])+"–GPIO"+strconv.Itoa(nums[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, "GPIO"+strconv.Itoa(nums[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
