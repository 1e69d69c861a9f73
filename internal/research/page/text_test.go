package page

import (
	"testing"

	"copperhead/internal/htmltext"
)

// TestTextIsHTMLText: a page's readable text is made by internal/htmltext,
// the converter carter's evidence offsets index, not by a second one: the
// same markup reads the same in both (table cells one space apart, entities
// decoded, paragraphs a blank line apart).
func TestTextIsHTMLText(t *testing.T) {
	for _, body := range []string{
		`<html><body><table><tr><td>Vin</td><td>1.8&nbsp;V</td></tr><tr><td>Iout</td><td>3 A</td></tr></table></body></html>`,
		`<html><body><p>one &amp; two</p><p>three<br>four</p><ul><li>a</li><li>b</li></ul></body></html>`,
	} {
		p, err := Extract([]byte(body), "text/html", "https://www.example.com/")
		if err != nil {
			t.Fatal(err)
		}
		want, _ := cleanText(htmltext.Convert(body).Text)
		if p.Text != want {
			t.Errorf("page text %q, want htmltext's %q", p.Text, want)
		}
	}
}
