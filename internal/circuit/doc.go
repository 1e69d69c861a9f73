// Package circuit owns what copperhead concludes about a circuit from its
// netlist and part values alone: net classification (IsGround, the one ground
// rule; IsRail and RailVolts, supply rails and their voltage by name;
// IsSupplyName, the layout engine's broader supply rule; IsNoConnect, a net
// that connects nothing), MCU pins named for their GPIO (GPIONumber,
// GPIOOf), resistor values (ParseOhms) and the sleep-leakage model
// (SleepLeakage).
//
// It reads only kicad's netlist types: it must never import design, config,
// consistency, kicadcli, llm, agent or research. Requirements (which budget a
// leakage is judged against) are internal/consistency's; docs are
// internal/design's.
package circuit
