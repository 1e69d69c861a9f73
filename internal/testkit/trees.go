package testkit

import "slices"

// DiffTrees lists the paths whose contents differ between two snapshots of
// a tree (path -> contents), sorted: changed or new in b as the path, gone
// from b as "path (gone)".
func DiffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k+" (gone)")
		}
	}
	slices.Sort(out)
	return out
}
