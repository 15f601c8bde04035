package model

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestEvidenceIsWrittenAsItsKeyTextAndFigures checks that an evidence item
// writes its key, text and figures (schema 9) and that the text alone,
// which reports before schema 9 wrote, reads back with no key.
func TestEvidenceIsWrittenAsItsKeyTextAndFigures(t *testing.T) {
	written := []Evidence{item(EvRates, "generated 1.0 MB/s", Figures{"generated_bytes_per_s": 1e6}), said(EvNoSubscriber, "no subscriber observed")}
	b, err := json.Marshal(written)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"key":"path-rates","text":"generated 1.0 MB/s","figures":{"generated_bytes_per_s":1000000}},{"key":"no-subscriber","text":"no subscriber observed"}]`
	if string(b) != want {
		t.Errorf("written %s\nwant    %s", b, want)
	}
	cases := []struct {
		name, in string
		want     []Evidence
	}{
		{"schema 9 evidence reads back its keys and figures", string(b), written},
		{"evidence written before schema 9 reads back as its text", `["generated 1.0 MB/s"]`, []Evidence{{Text: "generated 1.0 MB/s"}}},
	}
	for _, c := range cases {
		var back []Evidence
		if err := json.Unmarshal([]byte(c.in), &back); err != nil || !reflect.DeepEqual(back, c.want) {
			t.Errorf("%s: read back %+v, %v", c.name, back, err)
		}
	}
	var bad []Evidence
	if err := json.Unmarshal([]byte(`[1]`), &bad); err == nil {
		t.Errorf("a number read as evidence: %+v", bad)
	}
}

// TestAFigureNotMeasuredIsLeftOut checks that an item keeps only the
// figures that were measured: not -1, not NaN, not infinite.
func TestAFigureNotMeasuredIsLeftOut(t *testing.T) {
	cases := []struct {
		name string
		figs Figures
		want Figures
	}{
		{"measured figures are kept, zero included", Figures{"cpu_share": 0.5, "runqueue_share": 0}, Figures{"cpu_share": 0.5, "runqueue_share": 0}},
		{"-1, NaN and infinity are left out", Figures{"cpu_share": -1, "a": math.NaN(), "b": math.Inf(1), "busy_share": 0.9}, Figures{"busy_share": 0.9}},
		{"no figure left is no figures", Figures{"cpu_share": -1}, nil},
	}
	for _, c := range cases {
		if got := item(EvApplyStage, "x", c.figs).Figures; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
