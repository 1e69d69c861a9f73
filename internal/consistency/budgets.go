package consistency

import (
	"fmt"

	"copperhead/internal/config"
	"copperhead/internal/design"
)

// budgetInconsistencies turns design.CheckBudgets' findings (mirror) into
// inconsistencies: config.json budgets
// against SPEC.md ## Budgets. SPEC.md is ground truth for requirements, so a
// different number is fixed in config.json; a budget on one side only is
// copied to the other (that states nothing new); a malformed line is
// rewritten in the format with its number unchanged.
func budgetInconsistencies(st State, mirror []design.ConstraintViolation) []Inconsistency {
	specPath := st.Config.DocPath(design.SpecDoc)
	spec := design.ParseBudgets(st.Files[specPath])
	governing := specPath + "#" + slug(design.BudgetsHeading)
	var out []Inconsistency
	for _, v := range mirror {
		i := Inconsistency{Kind: KindBudgetMirror, Subject: v.Key, Resolvable: true, Governing: governing}
		cfgVal, inCfg := st.Config.Budgets[v.Key]
		specVal, inSpec := spec.Values[v.Key]
		switch {
		case v.Kind == design.ViolationBudgetMalformed:
			i.Doc, i.Claim, i.Actual = specPath, v.Message, "a budget line reads \"- <key>: <number>\""
			i.ProposedResolution = fmt.Sprintf("rewrite the line under ## %s in %s as \"- <key>: <number>\" keeping its key and number, and the comment after the number", design.BudgetsHeading, specPath)
		case v.Kind == design.ViolationBudgetMismatch && inCfg && inSpec:
			i.Doc, i.Claim, i.Actual = config.ConfigPath, fmt.Sprintf("budgets.%s = %s", v.Key, formatNumber(cfgVal)), fmt.Sprintf("%s ## %s says %s", specPath, design.BudgetsHeading, formatNumber(specVal))
			i.ProposedResolution = fmt.Sprintf("set budgets.%s in %s to %s: SPEC.md budgets are ground truth for requirements", v.Key, config.ConfigPath, formatNumber(specVal))
		case inCfg && !inSpec:
			line := design.BudgetLine(v.Key, cfgVal)
			i.Doc, i.Claim, i.Actual = specPath, "(no budget line)", fmt.Sprintf("%s budgets.%s = %s", config.ConfigPath, v.Key, formatNumber(cfgVal))
			i.ProposedResolution = fmt.Sprintf("add %q under ## %s in %s (create the section if it is missing)", line, design.BudgetsHeading, specPath)
			i.Governing = config.ConfigPath
		case inSpec && !inCfg:
			i.Doc, i.Claim, i.Actual = config.ConfigPath, "(no key)", fmt.Sprintf("%s ## %s says %s", specPath, design.BudgetsHeading, formatNumber(specVal))
			i.ProposedResolution = fmt.Sprintf("add budgets.%s = %s to %s", v.Key, formatNumber(specVal), config.ConfigPath)
		default:
			i.Doc, i.Claim, i.Actual = specPath, v.Message, "config.json and SPEC.md budgets agree"
			i.ProposedResolution = "make the two sides state the same budgets"
		}
		out = append(out, i)
	}
	return out
}
