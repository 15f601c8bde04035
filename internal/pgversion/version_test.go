package pgversion

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Version
		wantErr bool
	}{
		{name: "postgres --version of an npm build", in: "postgres (PostgreSQL) 16.14\n", want: Version{16, 14}},
		{name: "Debian's server_version carries the package version after it", in: "15.18 (Debian 15.18-0+deb12u1)", want: Version{15, 18}},
		{name: "postgres --version of a Debian build", in: "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", want: Version{15, 18}},
		{name: "version() text starts with the product name", in: "PostgreSQL 18.4 on x86_64-pc-linux-gnu, compiled by gcc 7.5.0, 64-bit", want: Version{18, 4}},
		{name: "server_version_num as text is decoded", in: "160014", want: Version{16, 14}},
		{name: "A development build has minor zero", in: "postgres (PostgreSQL) 17devel", want: Version{17, 0}},
		{name: "A beta has minor zero", in: "18beta1", want: Version{18, 0}},
		{name: "A pre-10 release keeps its two-number major as major and minor", in: "9.6.24", want: Version{9, 6}},
		{name: "Text without a number is an error", in: "postgres: command not found", wantErr: true},
		{name: "Empty text is an error", in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error = %v, want error: %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFromNum(t *testing.T) {
	tests := []struct {
		name string
		in   int
		want Version
	}{
		{name: "Six digits are major times ten thousand plus minor", in: 160014, want: Version{16, 14}},
		{name: "A dot-zero release has minor zero", in: 180000, want: Version{18, 0}},
		{name: "A two-digit minor survives", in: 150018, want: Version{15, 18}},
		{name: "Five digits are a pre-10 release", in: 90624, want: Version{9, 6}},
		{name: "Zero is unknown", in: 0, want: Version{}},
		{name: "A negative number is unknown", in: -1, want: Version{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FromNum(tt.in); got != tt.want {
				t.Errorf("FromNum(%d) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestVersionString(t *testing.T) {
	tests := []struct {
		name string
		in   Version
		want string
	}{
		{name: "Major and minor are joined by a dot", in: Version{16, 14}, want: "16.14"},
		{name: "Minor zero is printed", in: Version{18, 0}, want: "18.0"},
		{name: "The zero version is unknown", in: Version{}, want: "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("%#v.String() = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestVersionCompare(t *testing.T) {
	tests := []struct {
		name string
		a, b Version
		want int
	}{
		{name: "A higher major is newer whatever the minor", a: Version{16, 1}, b: Version{15, 18}, want: 1},
		{name: "Within a major the minor decides", a: Version{16, 9}, b: Version{16, 14}, want: -1},
		{name: "Equal versions compare equal", a: Version{17, 2}, b: Version{17, 2}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Compare(tt.b); got != tt.want {
				t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
