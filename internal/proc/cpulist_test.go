package proc

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []int
		wantErr bool
	}{
		{name: "Ranges and single CPUs combine", in: "0-2,5", want: []int{0, 1, 2, 5}},
		{name: "A sysfs file's trailing newline is ignored", in: "0-3\n", want: []int{0, 1, 2, 3}},
		{name: "A single CPU is a list of one", in: "7", want: []int{7}},
		{name: "A one-CPU range is that CPU", in: "4-4", want: []int{4}},
		{name: "Overlaps and disorder come back sorted without duplicates", in: "5,0-2, 1,5", want: []int{0, 1, 2, 5}},
		{name: "An empty list is no CPUs", in: "", want: nil},
		{name: "A backwards range is an error", in: "3-1", wantErr: true},
		{name: "A word is an error", in: "all", wantErr: true},
		{name: "An empty element is an error", in: "0,,1", wantErr: true},
		{name: "A negative CPU is an error", in: "-1", wantErr: true},
		{name: "An open range is an error", in: "2-", wantErr: true},
		{name: "A huge CPU number is an error instead of a huge list", in: "0-4000000000", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCPUList(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseCPUList(%q) error = %v, want error: %v", tt.in, err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ParseCPUList(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatCPUList(t *testing.T) {
	tests := []struct {
		name string
		in   []int
		want string
	}{
		{name: "Runs become ranges", in: []int{0, 1, 2, 5}, want: "0-2,5"},
		{name: "Two neighbours become a range as the kernel writes them", in: []int{3, 4}, want: "3-4"},
		{name: "Order and duplicates do not matter", in: []int{5, 1, 0, 2, 1}, want: "0-2,5"},
		{name: "Gaps split ranges", in: []int{0, 2, 4, 5, 6, 9}, want: "0,2,4-6,9"},
		{name: "No CPUs is the empty string", in: nil, want: ""},
		{name: "Negative numbers are left out", in: []int{-1, 0}, want: "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatCPUList(tt.in); got != tt.want {
				t.Errorf("FormatCPUList(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCPUListRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0-7", "0,2,4-6,9", "1-2,16-31,64"} {
		cpus, err := ParseCPUList(s)
		if err != nil {
			t.Fatalf("ParseCPUList(%q): %v", s, err)
		}
		if got := FormatCPUList(cpus); got != s {
			t.Errorf("FormatCPUList(ParseCPUList(%q)) = %q", s, got)
		}
	}
}
