package design

import (
	"strings"
	"testing"
)

func TestReadmeExplainsEveryConfigKey(t *testing.T) {
	readme := string(GenerateReadme())
	keys := []string{"schematic", "board", "docs", "model", "baseURL", "apiKeyEnv", "maxTurns", "maxRepairCycles",
		"stageMaxTurns", "budgets", "generated", "baseline", "forbidden", "affects", "deferred", "source", "runs/",
		"research", "enabled", "allowHosts", "fetchPages", "maxPdfMB", "stalenessDays", "sourcing.<refdes>", "stockTotal", "price1k", "VERIFIED(datasheet)"}
	for _, k := range keys {
		if !strings.Contains(readme, "`"+k+"`") {
			t.Errorf("README does not explain `%s`", k)
		}
	}
	if _, err := ParseConstraints([]byte(readmeConstraintsExample(t, readme)), "README example"); err != nil {
		t.Errorf("README constraints.json example does not parse: %v", err)
	}
}

func readmeConstraintsExample(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "```json\n")
	if !ok {
		t.Fatal("README has no json example")
	}
	example, _, _ := strings.Cut(after, "```")
	return example
}
