package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/lagscope/lagscope/internal/quote"
)

// RemedyID names a remedy, so that code can tell which remedy a piece of
// advice is without reading its text: the classifier's own derivation (a
// parallel apply worker runs already, a large transaction names streaming
// itself, a next limit caps a faster link) and what reads the pair's setup
// (package diagnose: an option set already, a feature the version lacks,
// indexes that are not extra). Every remedy the classifier gives, and
// every "does not help" line, has one (advicekeys.go lists those nothing
// decides on yet; a line that does not help reuses the key of the remedy
// it rules out where there is one); a setup finding's
// remedy is keyed by its check's ID. A report writes the keys since schema
// 9; the zero value is a remedy read back from a report saved before.
type RemedyID string

// The remedies something decides on.
const (
	// KeyBinary: binary = true on the subscription.
	KeyBinary RemedyID = "binary"
	// KeyStreamingParallel: streaming = parallel (16+) on the subscription,
	// which hands a large transaction to a parallel apply worker.
	KeyStreamingParallel RemedyID = "streaming-parallel"
	// KeyStreaming: streaming for large transactions (any mode), so that
	// the walsender sends them while it decodes them.
	KeyStreaming RemedyID = "streaming"
	// KeyStreamingOn: streaming = on (14+) on the subscription, which
	// spools a large transaction to files and applies it at its commit.
	KeyStreamingOn RemedyID = "streaming-on"
	// KeyStreamingParallelOrOn: streaming = parallel where both sides are
	// 16+, on otherwise: what a large transaction is advised when the
	// versions are not known; a setup refines it into KeyStreamingParallel
	// and KeyStreamingOn (refinements) and rules out the one that does not
	// apply.
	KeyStreamingParallelOrOn RemedyID = "streaming-parallel-or-on"
	// KeyFewerIndexes: fewer indexes on the subscriber's copy of the
	// replicated tables.
	KeyFewerIndexes RemedyID = "fewer-indexes"
	// KeyNarrowerIdentity: a replica identity narrower than FULL, or a
	// usable index where FULL is required.
	KeyNarrowerIdentity RemedyID = "narrower-identity"
	// KeyRowFilters: simpler or no publication row filters.
	KeyRowFilters RemedyID = "row-filters"
	// KeyDecodingWorkMem: logical_decoding_work_mem large enough that
	// decoding does not spill to disk.
	KeyDecodingWorkMem RemedyID = "decoding-work-mem"
	// KeyFewerSlots: fewer logical slots decoding the same WAL.
	KeyFewerSlots RemedyID = "fewer-slots"
	// KeySplitSubscriptions: the tables split over several subscriptions,
	// each with its own apply worker.
	KeySplitSubscriptions RemedyID = "split-subscriptions"
	// KeyBandwidth: more bandwidth on the link.
	KeyBandwidth RemedyID = "bandwidth"
)

// Advice is one remedy, one that helps (Verdict.Helps) or one that does
// not (Verdict.NotHelps): which it is (Key), what the report says (Text,
// prose), the statements to run for it (Run) and the figures it states. It
// is written as {"key", "text", "run", "figures"} (schema 9; schema 8
// wrote {"text", "run"} and a report before it the text alone, which read
// back with no key).
type Advice struct {
	// Key names the remedy ("" read back from a report before schema 9).
	Key RemedyID `json:"key,omitempty" jsonschema:"required"`
	// Text is the remedy as the operator reads it, in prose: no statement
	// is written into it.
	Text string `json:"text" jsonschema:"required"`
	// Run are the statements of the remedy, in order, each built by the
	// quoting layer and naming exactly the path's objects (nil: none, as
	// when the objects are not known).
	Run []quote.Statement `json:"run,omitempty"`
	// Figures are the numbers the remedy states (nil: none), as an
	// evidence item's (Figures).
	Figures Figures `json:"figures,omitempty"`
}

// UnmarshalJSON reads advice as written since schema 8 (an object, with
// its key since schema 9) or before it (its text alone, with no key).
func (a *Advice) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err == nil {
		*a = Advice{Text: text}
		return nil
	}
	type plain Advice
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("advice: %w", err)
	}
	*a = Advice(p)
	return nil
}

// Said is the advice as a report says it: its text, then each of its
// statements' lines (quote.Statement.Lines), one per line.
func (a Advice) Said() string {
	out := a.Text
	for _, st := range a.Run {
		for _, l := range st.Lines() {
			out += "\n" + l
		}
	}
	return out
}

// Texts are the texts of advice, in its order (nil for none).
func Texts(advice []Advice) []string {
	var out []string
	for _, a := range advice {
		out = append(out, a.Text)
	}
	return out
}

// withoutKeys is advice less the remedies keyed by any of keys (nil when
// none is left).
func withoutKeys(advice []Advice, keys ...RemedyID) []Advice {
	var out []Advice
	for _, a := range advice {
		if !slices.Contains(keys, a.Key) {
			out = append(out, a)
		}
	}
	return out
}

// refinements are the remedies a general remedy (the key) stands for when
// the pair's setup is not known: with a setup, it is replaced by them, in
// this order, and the setup rules out those that do not apply (Setup.helps).
var refinements = map[RemedyID][]Advice{
	KeyStreamingParallelOrOn: {
		{KeyStreamingParallel, "streaming = parallel for the subscription (16+ on both sides): a large transaction is then sent while it is decoded, from logical_decoding_work_mem on, and applied by a parallel worker as it arrives", nil, nil},
		{KeyStreamingOn, "streaming = on for the subscription (14+): a large transaction is then sent while it is decoded, from logical_decoding_work_mem on, and the subscriber applies it at its commit from the files it spooled it to", nil, nil},
	},
}

// options are the remedies that set one subscription option, with the
// option's name and value (lagscope's own text): with the subscription
// known from the pair's setup (Setup.Subscription), the remedy carries its
// ALTER SUBSCRIPTION statement; without, it is prose only.
var options = map[RemedyID][2]string{
	KeyBinary:               {"binary", "true"},
	KeyStreamingParallel:    {"streaming", "parallel"},
	KeyStreamingOn:          {"streaming", "on"},
	KeySynchronousCommitOff: {"synchronous_commit", "off"},
}

// withStatements is advice with each remedy that sets an option of the
// subscription sub given its statement ("" unknown: prose only).
func withStatements(advice []Advice, sub string) []Advice {
	if sub == "" {
		return advice
	}
	out := slices.Clone(advice)
	for i, a := range out {
		if o, ok := options[a.Key]; ok && a.Run == nil {
			out[i].Run = []quote.Statement{quote.SQL("ALTER SUBSCRIPTION %I SET (%s = %s);", sub, quote.Raw(o[0]), quote.Raw(o[1])).OnServer("subscriber")}
		}
	}
	return out
}

// refined is advice with each remedy that has refinements replaced by
// them.
func refined(advice []Advice) []Advice {
	var out []Advice
	for _, a := range advice {
		if r, ok := refinements[a.Key]; ok {
			out = append(out, r...)
			continue
		}
		out = append(out, a)
	}
	return out
}
