// Package render holds what every lagscope report shares at its edge, whatever
// it reports (diagnose's, check's, the lab's): the HTML frame and stylesheet,
// the page writer that neutralises runes a browser would act on, Markdown's
// escapes for text from other people, indented JSON, the choice of a
// renderer by format name, and the line naming the file a report was rebuilt
// from.
package render
