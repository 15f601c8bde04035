package render

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"

	"github.com/lagscope/lagscope/internal/quote"
)

// style is the HTML reports' stylesheet, inlined in each page.
//
//go:embed style.css
var style string

// Style returns the stylesheet every lagscope HTML report inlines (check's
// too), for a <style> element.
func Style() template.CSS { return template.CSS(style) }

// ExecutePage runs the template of one of lagscope's HTML pages and writes
// the page through quote.Sanitize: html/template escapes markup but leaves
// control, bidi and format runes as they are, and a name or a query holding
// one would reorder or hide what the page shows. They are written as visible
// escapes. Line feeds and tabs pass (the page's own, and the tabs gonum/plot
// writes inside its SVG): in a value outside <pre> a browser shows them as a
// space; statements, in <pre>, are escaped value by value.
func ExecutePage(w io.Writer, t *template.Template, data any) error {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, quote.Sanitize(b.String(), "\n\t"))
	return err
}

// CSPMeta is the Content-Security-Policy every lagscope HTML page declares
// in its head, before its style: it loads nothing and runs nothing (no page has a script);
// its one stylesheet is inline, its charts inline SVG.
const CSPMeta = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`
