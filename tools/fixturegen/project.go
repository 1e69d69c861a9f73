package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// marshal renders v with sorted keys, two-space indent and a trailing newline.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

type obj = map[string]any

func configJSON() []byte {
	return marshal(obj{
		"schematic": "hardware/" + rootFile,
		"board":     "hardware/" + project + ".kicad_pcb",
		"docs":      "docs/",
		"budgets":   obj{"sleep_current_uA": 25},
	})
}

func constraintsJSON() []byte {
	return marshal(obj{
		"pins.strapping": obj{
			"forbidden": []string{"GPIO0", "GPIO3", "GPIO45", "GPIO46"},
			"source":    "ESP32-S3 datasheet, strapping pins",
			"affects":   []string{"U1"},
		},
		"power.sleep_current_uA": obj{
			"max":     25,
			"source":  "docs/SPEC.md#budgets",
			"affects": []string{"U1", "U3", "U4", "D2", "R6", "R7"},
		},
	})
}

// Board design rules, shared by the project file and the router.
const (
	clearance    = 0.2
	trackWidth   = 0.25
	powerWidth   = 0.4
	viaSize      = 0.6
	viaDrill     = 0.3
	edgeClear    = 0.5
	holeClear    = 0.25
	holeToHole   = 0.25
	minThruHole  = 0.2 // the ESP32-S3-WROOM-1 footprint's thermal vias drill 0.2 mm
	minAnnular   = 0.1
	minViaSize   = 0.5
	minTrackSize = 0.2
)

func projectFile() []byte {
	return marshal(obj{
		"board": obj{
			"3dviewports": []any{},
			"design_settings": obj{
				"defaults": obj{
					"apply_defaults_to_fp_fields": false,
					"apply_defaults_to_fp_shapes": false,
					"apply_defaults_to_fp_text":   false,
					"board_outline_line_width":    0.05,
					"copper_line_width":           0.2,
					"copper_text_italic":          false,
					"copper_text_size_h":          1.5,
					"copper_text_size_v":          1.5,
					"copper_text_thickness":       0.3,
					"copper_text_upright":         false,
					"courtyard_line_width":        0.05,
					"dimension_precision":         4,
					"dimension_units":             3,
					"fab_line_width":              0.1,
					"fab_text_italic":             false,
					"fab_text_size_h":             1.0,
					"fab_text_size_v":             1.0,
					"fab_text_thickness":          0.15,
					"fab_text_upright":            false,
					"other_line_width":            0.1,
					"other_text_italic":           false,
					"other_text_size_h":           1.0,
					"other_text_size_v":           1.0,
					"other_text_thickness":        0.15,
					"other_text_upright":          false,
					"pads": obj{
						"drill": 0.8, "height": 1.27, "width": 2.54,
					},
					"silk_line_width":     0.12,
					"silk_text_italic":    false,
					"silk_text_size_h":    1.0,
					"silk_text_size_v":    1.0,
					"silk_text_thickness": 0.15,
					"silk_text_upright":   false,
					"zones": obj{
						"min_clearance": 0.5,
					},
				},
				"diff_pair_dimensions": []any{},
				"drc_exclusions":       []any{},
				"meta":                 obj{"version": 2},
				"rules": obj{
					"max_error":                       0.005,
					"min_clearance":                   0.0,
					"min_connection":                  0.0,
					"min_copper_edge_clearance":       edgeClear,
					"min_groove_width":                0.0,
					"min_hole_clearance":              holeClear,
					"min_hole_to_hole":                holeToHole,
					"min_microvia_diameter":           0.2,
					"min_microvia_drill":              0.1,
					"min_resolved_spokes":             2,
					"min_silk_clearance":              0.0,
					"min_text_height":                 0.8,
					"min_text_thickness":              0.08,
					"min_through_hole_diameter":       minThruHole,
					"min_track_width":                 minTrackSize,
					"min_via_annular_width":           minAnnular,
					"min_via_diameter":                minViaSize,
					"solder_mask_to_copper_clearance": 0.0,
					"use_height_for_length_calcs":     true,
				},
				"track_widths":                 []any{0.0, trackWidth, powerWidth},
				"via_dimensions":               []any{obj{"diameter": 0.0, "drill": 0.0}},
				"zones_allow_external_fillets": false,
			},
			"ipc2581":       obj{"dist": "", "distpn": "", "internal_id": "", "mfg": "", "mpn": ""},
			"layer_pairs":   []any{},
			"layer_presets": []any{},
			"viewports":     []any{},
		},
		"boards": []any{},
		"cvpcb":  obj{"equivalence_files": []any{}},
		"libraries": obj{
			"pinned_footprint_libs": []any{},
			"pinned_symbol_libs":    []any{},
		},
		"meta": obj{"filename": project + ".kicad_pro", "version": 3},
		"net_settings": obj{
			"classes": []any{obj{
				"bus_width":         12,
				"clearance":         clearance,
				"diff_pair_gap":     0.25,
				"diff_pair_via_gap": 0.25,
				"diff_pair_width":   0.2,
				"line_style":        0,
				"microvia_diameter": 0.3,
				"microvia_drill":    0.1,
				"name":              "Default",
				"pcb_color":         "rgba(0, 0, 0, 0.000)",
				"priority":          2147483647,
				"schematic_color":   "rgba(0, 0, 0, 0.000)",
				"track_width":       trackWidth,
				"tuning_profile":    "",
				"via_diameter":      viaSize,
				"via_drill":         viaDrill,
				"wire_width":        6,
			}},
			"meta":                 obj{"version": 4},
			"net_colors":           nil,
			"netclass_assignments": nil,
			"netclass_patterns":    []any{},
		},
		"pcbnew": obj{
			"last_paths":             obj{},
			"page_layout_descr_file": "",
		},
		"schematic": obj{
			"connection_grid_size":   50.0,
			"meta":                   obj{"version": 1},
			"page_layout_descr_file": "",
		},
		"sheets": []any{
			[]any{rootUUID, "Root"},
			[]any{powerUUID, powerSheet},
		},
		"text_variables": obj{},
	})
}

// Project library tables name exactly the stock libraries the design uses,
// so ERC and DRC resolve every symbol and footprint even when KiCad's global
// tables are missing (a fresh HOME): lib_symbol_issues, footprint_link_issues
// and lib_footprint_issues would fire otherwise.
func libNames(parts []*Part, field func(*Part) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range parts {
		id := field(p)
		if id == "" {
			continue
		}
		lib, _, _ := strings.Cut(id, ":")
		if !seen[lib] {
			seen[lib] = true
			out = append(out, lib)
		}
	}
	sort.Strings(out)
	return out
}

func symLibTable(parts []*Part) []byte {
	var b strings.Builder
	b.WriteString("(sym_lib_table\n\t(version 7)\n")
	all := append([]*Part{{LibID: "power:GND"}}, parts...)
	libs := libNames(all, func(p *Part) string { return p.LibID })
	for _, l := range libs {
		fmt.Fprintf(&b, "\t(lib (name %q)(type \"KiCad\")(uri \"${KICAD9_SYMBOL_DIR}/%s.kicad_sym\")(options \"\")(descr \"\"))\n", l, l)
	}
	b.WriteString(")\n")
	return []byte(b.String())
}

func fpLibTable(parts []*Part) []byte {
	var b strings.Builder
	b.WriteString("(fp_lib_table\n\t(version 7)\n")
	for _, l := range libNames(parts, func(p *Part) string { return p.Footprint }) {
		fmt.Fprintf(&b, "\t(lib (name %q)(type \"KiCad\")(uri \"${KICAD9_FOOTPRINT_DIR}/%s.pretty\")(options \"\")(descr \"\"))\n", l, l)
	}
	b.WriteString(")\n")
	return []byte(b.String())
}
