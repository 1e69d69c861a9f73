package tools

import (
	"slices"

	"copperhead/internal/tool"
)

// All returns copperhead's own tools in their fixed order. The order is
// part of the prompt: tool lists must be byte-identical from turn to turn for
// prompt caching, so it never depends on a map or on the session. The
// mutating tools come last, so unlocking them appends to the list rather
// than reshuffling it. Research tools, when configured, are appended by the
// loop.
//
// Mutating (withheld until validate_change passes): edit_file, write_file,
// record_constraint, resolve_affected, and the structured schematic edit
// tools (schedit_tools.go): rename_net, set_field, swap_pins, add_part,
// remove_part, connect_pin, disconnect_pin, no_connect_pin, and draft_schematic
// (draft_schematic.go). record_decision is not mutating: it
// only appends to Session.Decisions, which reach docs/DECISIONS.md through
// the commit, and the commit itself needs a validated change; a decision
// made while planning (or while refusing) is worth recording.
//
// Each call returns a fresh slice, so a caller may append to it.
func All() []tool.Tool { return slices.Clone(all) }

// all is filled by init, not by its declaration: validate_change lists the
// mutating tools from All, so a declaration would be an initialization cycle.
var all []tool.Tool

func init() {
	all = []tool.Tool{
		readFileTool,
		searchTool,
		listSymbolsTool,
		listNetsTool,
		listPinsTool,
		runERCTool,
		runDRCTool,
		checkDriftTool,
		exportSVGTool,
		searchSymbolsTool,
		symbolPinsTool,
		proposeChangeTool,
		validateChangeTool,
		recordDecisionTool,
		finishTool,
		editFileTool,
		writeFileTool,
		recordConstraintTool,
		resolveAffectedTool,
		renameNetTool,
		setFieldTool,
		swapPinsTool,
		addPartTool,
		removePartTool,
		connectPinTool,
		disconnectPinTool,
		noConnectPinTool,
		draftSchematicTool,
	}
}
