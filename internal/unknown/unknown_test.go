package unknown

import (
	"encoding/json"
	"testing"
)

func TestANegativeFigureIsNullAndTheRestIsKept(t *testing.T) {
	type fig struct {
		CPU   float64 `json:"cpu_share"`
		Busy  float64 `json:"busy_share"`
		Other float64 `json:"other"`
		Name  string  `json:"name"`
	}
	b, err := Marshal(fig{CPU: -1, Busy: 0.5, Other: -1, Name: `"cpu_share":-1`}, "cpu_share", "busy_share")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cpu_share":null,"busy_share":0.5,"other":-1,"name":"\"cpu_share\":-1"}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%s is not JSON: %v", b, err)
	}
}
