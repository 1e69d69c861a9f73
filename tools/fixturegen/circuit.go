package main

// Part is one schematic symbol (and, unless it is a power symbol or flag,
// one footprint on the board).
type Part struct {
	Ref       string
	LibID     string
	Value     string
	Footprint string // "" for power symbols and flags
	Sheet     string // sheet file stem: "root" or "power"
	SX, SY    float64
	// Nets maps pin numbers to net names. Pins stacked at the same position
	// share a net; list one of them. Pins left out get a no-connect flag.
	Nets map[string]string
}

// Sheet names and files.
const (
	project    = "open-telegraph"
	rootFile   = "open-telegraph.kicad_sch"
	powerFile  = "power.kicad_sch"
	powerSheet = "power"
)

// hierNets cross from the power sheet to the root through sheet pins.
var hierNets = []string{"USB_D+", "USB_D-", "CHG_STAT"}

// circuit is the open-telegraph Morse keyer.
func circuit() []*Part {
	r0603 := "Resistor_SMD:R_0603_1608Metric"
	c0603 := "Capacitor_SMD:C_0603_1608Metric"
	c0805 := "Capacitor_SMD:C_0805_2012Metric"
	res := func(ref, val, sheet string, sx, sy float64, n1, n2 string) *Part {
		return &Part{Ref: ref, LibID: "Device:R", Value: val, Footprint: r0603, Sheet: sheet, SX: sx, SY: sy,
			Nets: map[string]string{"1": n1, "2": n2}}
	}
	capa := func(ref, val, fp, sheet string, sx, sy float64, n1, n2 string) *Part {
		return &Part{Ref: ref, LibID: "Device:C", Value: val, Footprint: fp, Sheet: sheet, SX: sx, SY: sy,
			Nets: map[string]string{"1": n1, "2": n2}}
	}
	flag := func(ref, sheet string, sx, sy float64, net string) *Part {
		return &Part{Ref: ref, LibID: "power:PWR_FLAG", Value: "PWR_FLAG", Sheet: sheet, SX: sx, SY: sy,
			Nets: map[string]string{"1": net}}
	}
	return []*Part{
		// ---- Power sheet: USB-C input, ESD, power path, charger, LDO ----
		{Ref: "J1", LibID: "Connector:USB_C_Receptacle_USB2.0_16P", Value: "HRO TYPE-C-31-M-12",
			Footprint: "Connector_USB:USB_C_Receptacle_HRO_TYPE-C-31-M-12", Sheet: "power", SX: 50.8, SY: 88.9,
			Nets: map[string]string{"A1": "GND", "S1": "GND", "A4": "VBUS", "A5": "CC1", "B5": "CC2",
				"A6": "USB_D+", "B6": "USB_D+", "A7": "USB_D-", "B7": "USB_D-"}},
		res("R1", "5.1k", "power", 38.1, 139.7, "CC1", "GND"),
		res("R2", "5.1k", "power", 50.8, 139.7, "CC2", "GND"),
		{Ref: "U2", LibID: "Power_Protection:USBLC6-2SC6", Value: "USBLC6-2SC6",
			Footprint: "Package_TO_SOT_SMD:SOT-23-6", Sheet: "power", SX: 101.6, SY: 88.9,
			Nets: map[string]string{"1": "USB_D+", "6": "USB_D+", "3": "USB_D-", "4": "USB_D-", "5": "VBUS", "2": "GND"}},
		{Ref: "D1", LibID: "Device:D_Schottky", Value: "B5819W", Footprint: "Diode_SMD:D_SOD-123",
			Sheet: "power", SX: 152.4, SY: 50.8, Nets: map[string]string{"1": "VSYS", "2": "VBUS"}},
		{Ref: "Q1", LibID: "Transistor_FET:AO3401A", Value: "AO3401A", Footprint: "Package_TO_SOT_SMD:SOT-23",
			Sheet: "power", SX: 152.4, SY: 76.2, Nets: map[string]string{"1": "VBUS", "2": "VSYS", "3": "VBAT"}},
		res("R3", "100k", "power", 139.7, 101.6, "VBUS", "GND"),
		{Ref: "U3", LibID: "Battery_Management:MCP73831-2-OT", Value: "MCP73831-2-OT",
			Footprint: "Package_TO_SOT_SMD:SOT-23-5", Sheet: "power", SX: 152.4, SY: 139.7,
			Nets: map[string]string{"1": "CHG_STAT", "2": "GND", "3": "VBAT", "4": "VBUS", "5": "PROG"}},
		res("R4", "2k", "power", 124.46, 165.1, "PROG", "GND"),
		capa("C1", "4.7uF", c0805, "power", 114.3, 139.7, "VBUS", "GND"),
		capa("C2", "4.7uF", c0805, "power", 190.5, 139.7, "VBAT", "GND"),
		{Ref: "J2", LibID: "Connector_Generic:Conn_01x02", Value: "Battery",
			Footprint: "Connector_JST:JST_PH_B2B-PH-K_1x02_P2.00mm_Vertical", Sheet: "power", SX: 228.6, SY: 139.7,
			Nets: map[string]string{"1": "VBAT", "2": "GND"}},
		{Ref: "U4", LibID: "Regulator_Linear:AP2112K-3.3", Value: "AP2112K-3.3",
			Footprint: "Package_TO_SOT_SMD:SOT-23-5", Sheet: "power", SX: 228.6, SY: 63.5,
			Nets: map[string]string{"1": "VSYS", "2": "GND", "3": "VSYS", "5": "3V3"}},
		capa("C3", "1uF", c0603, "power", 203.2, 63.5, "VSYS", "GND"),
		capa("C4", "1uF", c0603, "power", 254, 63.5, "3V3", "GND"),
		flag("#FLG01", "power", 25.4, 38.1, "VBUS"),
		flag("#FLG02", "power", 38.1, 38.1, "GND"),
		flag("#FLG03", "power", 190.5, 38.1, "VSYS"),

		// ---- Root sheet: MCU, status LED, key inputs ----
		{Ref: "U1", LibID: "RF_Module:ESP32-S3-WROOM-1", Value: "ESP32-S3-WROOM-1",
			Footprint: "RF_Module:ESP32-S3-WROOM-1", Sheet: "root", SX: 165.1, SY: 101.6,
			Nets: map[string]string{"1": "GND", "2": "3V3", "3": "EN",
				"4": "KEY_DIT", "5": "KEY_DAH", "6": "LED_R", "7": "LED_G", "8": "LED_B", "9": "CHG_STAT",
				"13": "USB_D-", "14": "USB_D+"}},
		capa("C5", "10uF", c0805, "root", 101.6, 38.1, "3V3", "GND"),
		capa("C6", "100nF", c0603, "root", 114.3, 38.1, "3V3", "GND"),
		res("R5", "10k", "root", 127, 38.1, "3V3", "EN"),
		capa("C7", "1uF", c0603, "root", 139.7, 38.1, "EN", "GND"),
		{Ref: "J3", LibID: "Connector_Generic:Conn_01x03", Value: "Paddle",
			Footprint: "Connector_JST:JST_PH_B3B-PH-K_1x03_P2.00mm_Vertical", Sheet: "root", SX: 25.4, SY: 88.9,
			Nets: map[string]string{"1": "KEY_DIT", "2": "KEY_DAH", "3": "GND"}},
		res("R6", "10k", "root", 50.8, 88.9, "3V3", "KEY_DIT"),
		res("R7", "10k", "root", 63.5, 88.9, "3V3", "KEY_DAH"),
		capa("C8", "100nF", c0603, "root", 76.2, 88.9, "KEY_DIT", "GND"),
		capa("C9", "100nF", c0603, "root", 88.9, 88.9, "KEY_DAH", "GND"),
		{Ref: "D2", LibID: "Device:LED_RGBA", Value: "RGB (common anode)", Footprint: "LED_SMD:LED_RGB_1210",
			Sheet: "root", SX: 50.8, SY: 152.4,
			Nets: map[string]string{"1": "LED_RK", "2": "LED_GK", "3": "LED_BK", "4": "3V3"}},
		res("R8", "1k", "root", 76.2, 139.7, "LED_RK", "LED_R"),
		res("R9", "1k", "root", 88.9, 152.4, "LED_GK", "LED_G"),
		res("R10", "1k", "root", 101.6, 165.1, "LED_BK", "LED_B"),
	}
}
