package design

import (
	"bytes"
	"path"
	"testing"
)

func TestGenerateDocsGolden(t *testing.T) {
	docs := GenerateDocs(keyerProject())
	if len(docs) != 7 {
		t.Fatalf("got %d docs, want 7", len(docs))
	}
	for p, data := range docs {
		golden(t, path.Base(p), data)
	}
	golden(t, "README.md", GenerateReadme())
	golden(t, "config.json", keyerConfig().Marshal())
}

func TestGenerateDocsDeterministic(t *testing.T) {
	a, b := GenerateDocs(keyerProject()), GenerateDocs(keyerProject())
	for p := range a {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
