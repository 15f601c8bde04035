package lsn

import (
	"encoding/json"
	"testing"
)

func TestAPositionPrintsAndReadsAsPostgreSQLDoes(t *testing.T) {
	cases := []struct {
		text string
		n    LSN
	}{
		{"0/0", 0},
		{"16/B374D848", 0x16B374D848},
		{"FFFFFFFF/FFFFFFFF", ^LSN(0)},
	}
	for _, c := range cases {
		if got := c.n.String(); got != c.text {
			t.Errorf("LSN(%d).String() = %q, want %q", uint64(c.n), got, c.text)
		}
		if got, err := Parse(c.text); err != nil || got != c.n {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.text, uint64(got), err, uint64(c.n))
		}
	}
	for _, bad := range []string{"", "16", "16/", "/1", "G/1", "1/100000000", "-1/0"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) gave no error", bad)
		}
	}
}

// JSON holds X/Y; recordings made before held plain numbers, which still read.
func TestJSONReadsBothFormsAndWritesText(t *testing.T) {
	var v struct {
		A LSN `json:"a"`
		B LSN `json:"b"`
		C LSN `json:"c,omitempty"`
	}
	if err := json.Unmarshal([]byte(`{"a":"16/B374D848","b":4096}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != 0x16B374D848 || v.B != 4096 {
		t.Errorf("read %d and %d", uint64(v.A), uint64(v.B))
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"a":"16/B374D848","b":"0/1000"}` {
		t.Errorf("wrote %s", out)
	}
	for _, bad := range []string{`{"a":-1}`, `{"a":"x"}`, `{"a":1.5}`, `{"a":true}`} {
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
}

func TestScanTakesBytesSinceZeroOrText(t *testing.T) {
	var l LSN
	for _, c := range []struct {
		src  any
		want LSN
	}{{int64(4096), 4096}, {"0/1000", 4096}, {[]byte("0/1000"), 4096}, {nil, 0}} {
		if err := l.Scan(c.src); err != nil || l != c.want {
			t.Errorf("Scan(%v) = %d, %v; want %d", c.src, uint64(l), err, uint64(c.want))
		}
	}
	if err := l.Scan(int64(-1)); err == nil {
		t.Error("Scan(-1) gave no error")
	}
	if got := LSN(100).Sub(LSN(300)); got != -200 {
		t.Errorf("Sub = %d, want -200", got)
	}
}
