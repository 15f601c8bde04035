// Package diagnose ties sampling to the classifier: Run samples a publisher
// (and subscriber) for a window, and Build - a pure function - turns the
// Recording into a report.Report with one classified path per slot.
package diagnose
