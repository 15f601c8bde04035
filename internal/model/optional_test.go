package model

import (
	"encoding/json"
	"testing"
)

// TestAnOptionalFigureIsItsNumberOrNull checks how a figure that may not
// have been measured is written and read.
func TestAnOptionalFigureIsItsNumberOrNull(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    Optional[float64]
		written string
	}{
		{"a measured figure reads and writes as its number", `12.5`, Known(12.5), `12.5`},
		{"a measured zero is a figure, not unknown", `0`, Known(0.0), `0`},
		{"null is not measured", `null`, Optional[float64]{}, `null`},
		{"an older report's -1 is not measured", `-1`, Optional[float64]{}, `null`},
	}
	for _, c := range cases {
		var got Optional[float64]
		if err := json.Unmarshal([]byte(c.in), &got); err != nil || got != c.want {
			t.Errorf("%s: read %+v, %v; want %+v", c.name, got, err, c.want)
		}
		if b, err := json.Marshal(got); err != nil || string(b) != c.written {
			t.Errorf("%s: written %s, %v; want %s", c.name, b, err, c.written)
		}
	}
	var bad Optional[float64]
	if err := json.Unmarshal([]byte(`"x"`), &bad); err == nil {
		t.Errorf("a string read as a figure: %+v", bad)
	}
	if v := (Optional[float64]{}).Or(-2); v != -2 {
		t.Errorf("Or of an unknown figure: %v, want the default", v)
	}
}
