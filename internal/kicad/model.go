package kicad

// Point is a position in millimetres in KiCad's page coordinates (Y grows down).
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Part is one real component reference in the design: a placed symbol (all of
// its units aggregated) as seen through one sheet instance path. Power symbols
// and references starting with '#' are never parts.
type Part struct {
	Refdes       string            `json:"refdes"`
	Value        string            `json:"value"`
	Footprint    string            `json:"footprint"`
	MPN          string            `json:"mpn,omitempty"`
	Manufacturer string            `json:"manufacturer,omitempty"`
	Datasheet    string            `json:"datasheet,omitempty"`
	Description  string            `json:"description,omitempty"`
	LibID        string            `json:"lib_id"`
	Units        []int             `json:"units"`            // placed unit numbers, ascending
	DNP          bool              `json:"dnp"`              // do not populate
	InBOM        bool              `json:"in_bom"`           // false: excluded from the bill of materials
	OnBoard      bool              `json:"on_board"`         // false: excluded from the board
	SheetPath    string            `json:"sheet_path"`       // human instance path, "/" or "/Power/"
	SheetFile    string            `json:"sheet_file"`       // file holding the symbol, relative to the root schematic's folder
	Fields       map[string]string `json:"fields,omitempty"` // every property, as in the file
}

// LabelKind says how far a label's name reaches.
type LabelKind string

const (
	LabelLocal        LabelKind = "local"
	LabelGlobal       LabelKind = "global"
	LabelHierarchical LabelKind = "hierarchical"
)

// Label is a net label placed on a sheet instance.
type Label struct {
	Name      string    `json:"name"`
	Kind      LabelKind `json:"kind"`
	SheetPath string    `json:"sheet_path"`
	Pos       Point     `json:"pos_mm"`
}

// SheetInstance is one use of a sheet file. A file used twice has two instances.
type SheetInstance struct {
	Path     string     `json:"path"`           // human path: "/" for the root, "/Power/" below it
	UUIDPath string     `json:"uuid_path"`      // "/" + sheet symbol UUIDs joined by "/"
	Name     string     `json:"name"`           // sheet name ("" for the root)
	File     string     `json:"file"`           // relative to the root schematic's folder
	Pins     []SheetPin `json:"pins,omitempty"` // pins on this sheet's symbol in its parent
}

// SheetPin is a pin on a hierarchical sheet symbol.
type SheetPin struct {
	Name string `json:"name"`
	Type string `json:"type"` // input, output, bidirectional, tri_state, passive
	Pos  Point  `json:"pos_mm"`
}

// NoConnect is a no-connect flag on a sheet instance.
type NoConnect struct {
	SheetPath string `json:"sheet_path"`
	Pos       Point  `json:"pos_mm"`
}

// Wire is one straight wire or bus segment drawn on a sheet instance. KiCad
// derives connectivity from them (the netlist is the truth for that); they
// are read so a diff can show what was redrawn.
type Wire struct {
	SheetPath string `json:"sheet_path"`
	From      Point  `json:"from_mm"`
	To        Point  `json:"to_mm"`
	Bus       bool   `json:"bus,omitempty"`
}

// Schematic is a whole hierarchical schematic loaded from its root file.
type Schematic struct {
	Root       string          `json:"root"` // path of the root .kicad_sch as given
	Sheets     []SheetInstance `json:"sheets"`
	Parts      []Part          `json:"parts"` // sorted by Refdes in natural order
	Labels     []Label         `json:"labels"`
	NoConnects []NoConnect     `json:"no_connects"`
	Wires      []Wire          `json:"wires"`
	PowerNets  []string        `json:"power_nets"` // names of power symbols' nets, sorted, unique

	// placements are the placed symbol units per sheet instance, power
	// symbols included: what Pins computes from. Unexported, so a Schematic
	// decoded from JSON has none.
	placements []placement
	// uuidFiles maps the UUID of every object a sheet file declares (a
	// symbol, its pins, a label, a wire, a sheet and its pins) to the file
	// declaring it, relative to the root's folder; "" when several files do.
	uuidFiles map[string]string
}

// Footprint is a footprint placed on a board.
type Footprint struct {
	Refdes string `json:"refdes"`
	Value  string `json:"value"`
	LibID  string `json:"lib_id"`
	Layer  string `json:"layer"` // "F.Cu" or "B.Cu"
	Pos    Point  `json:"pos_mm"`

	Rotation       float64 `json:"rotation_deg"`               // counter-clockwise, as in the file
	SymbolPath     string  `json:"symbol_path,omitempty"`      // "/<sheet uuids>/<symbol uuid>": the schematic symbol it was placed from
	DNP            bool    `json:"dnp,omitempty"`              // (attr .. dnp)
	ExcludeFromBOM bool    `json:"exclude_from_bom,omitempty"` // (attr .. exclude_from_bom)
	BoardOnly      bool    `json:"board_only,omitempty"`       // (attr .. board_only): no schematic symbol expected (logos, mounting holes)
}

// Board is a .kicad_pcb read for its footprints.
type Board struct {
	Path       string      `json:"path"`
	Footprints []Footprint `json:"footprints"` // sorted by Refdes in natural order
}

// Netlist is kicad-cli's own connectivity (the kicadxml export): authoritative
// for hierarchy, multi-unit parts, power symbols and unconnected pins.
type Netlist struct {
	Components []NetComponent `json:"components"`
	Nets       []Net          `json:"nets"`
}

// NetComponent is one component as the netlist exporter sees it.
type NetComponent struct {
	Refdes    string            `json:"refdes"`
	Value     string            `json:"value"`
	Footprint string            `json:"footprint"`
	LibID     string            `json:"lib_id"`
	SheetPath string            `json:"sheet_path"`
	Fields    map[string]string `json:"fields,omitempty"`
	// Properties are the exporter's <property> elements: the flags
	// ("dnp", "exclude_from_bom", "exclude_from_board", present when set),
	// "Sheetname", "Sheetfile", "ki_fp_filters".
	Properties map[string]string `json:"properties,omitempty"`
}

// Net is one electrical net and every pin on it.
type Net struct {
	Code  string    `json:"code"`
	Name  string    `json:"name"`
	Nodes []NetNode `json:"nodes"`
}

// NetNode is one pin on a net.
type NetNode struct {
	Refdes      string `json:"refdes"`
	Pin         string `json:"pin"`          // pin number
	PinFunction string `json:"pin_function"` // pin name
	PinType     string `json:"pin_type"`     // electrical type, e.g. input, power_in, passive
}
