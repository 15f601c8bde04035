package units

import (
	"strings"
	"testing"
)

func TestParseByteRate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ByteRate
	}{
		{"kilobytes are powers of 1000", "500kB/s", 500_000},
		{"megabytes are powers of 1000", "8MB/s", 8_000_000},
		{"mebibytes are powers of 1024", "8MiB/s", 8 << 20},
		{"kibibytes are powers of 1024", "64KiB/s", 64 << 10},
		{"gigabits divide by eight", "1Gbit/s", 125_000_000},
		{"megabits divide by eight", "100Mbit/s", 12_500_000},
		{"a lower-case b means bits", "100Mb/s", 12_500_000},
		{"an upper-case B means bytes whatever the prefix case", "8mB/s", 8_000_000},
		{"bps is bits per second", "100Mbps", 12_500_000},
		{"decimal values are allowed", "1.5MB/s", 1_500_000},
		{"the per-second suffix is optional", "8MB", 8_000_000},
		{"a bare number is bytes per second", "4096", 4096},
		{"spaces around and inside are ignored", "  8 MB/s ", 8_000_000},
		{"unit words may be spelled out", "2 Mbytes/s", 2_000_000},
		{"unlimited means no limit", "unlimited", Unlimited},
		{"unlimited is case insensitive", "Unlimited", Unlimited},
		{"zero means unlimited", "0", Unlimited},
		{"zero with a unit means unlimited", "0MB/s", Unlimited},
		{"fractions of a byte round to the nearest byte", "1.0005kB/s", 1001},
		{"gibibytes are powers of 1024", "1GiB/s", 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseByteRate(tt.in)
			if err != nil {
				t.Fatalf("ParseByteRate(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseByteRate(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseByteRateErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantMsg string
	}{
		{"an empty string is rejected", "", "must start with a number"},
		{"a unit without a number is rejected", "MB/s", "must start with a number"},
		{"a negative rate is rejected", "-5MB/s", "must not be negative"},
		{"an unknown prefix is rejected", "5XB/s", `unknown prefix "X"`},
		{"an unknown unit is rejected", "5MQ/s", `unknown unit "MQ"`},
		{"a malformed number is rejected", "1.2.3MB/s", "is not a number"},
		{"a rate below one byte per second is rejected", "0.1B/s", "below 1 byte per second"},
		{"a rate beyond int64 is rejected", "10000000TB/s", "too large"},
		{"exponent notation is not a unit", "1e6", `unknown unit "e6"`},
		{"bps without bits or bytes is rejected", "5ps", "needs b or B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseByteRate(tt.in)
			if err == nil {
				t.Fatalf("ParseByteRate(%q) succeeded, want an error", tt.in)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("error %q does not mention %q", msg, tt.wantMsg)
			}
			if !strings.Contains(msg, `"8MB/s"`) {
				t.Errorf("error %q does not show an accepted example", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
		})
	}
}

func TestByteRateString(t *testing.T) {
	tests := []struct {
		name string
		in   ByteRate
		want string
	}{
		{"zero prints as unlimited", 0, "unlimited"},
		{"whole megabytes print in MB", 8_000_000, "8MB/s"},
		{"whole kilobytes print in kB", 500_000, "500kB/s"},
		{"whole mebibytes print in MiB", 8 << 20, "8MiB/s"},
		{"whole kibibytes print in KiB", 64 << 10, "64KiB/s"},
		{"a gigabit prints as megabytes", 125_000_000, "125MB/s"},
		{"a fractional megabyte keeps its decimals", 1_500_000, "1.5MB/s"},
		{"100 megabits print as 12.5MB/s", 12_500_000, "12.5MB/s"},
		{"small rates print in bytes", 999, "999B/s"},
		{"a rate with no short exact form prints in bytes", 1_000_001, "1000001B/s"},
		{"the shortest exact form wins", 1_024_000, "1024kB/s"},
		{"an IEC form wins when it is the shortest", 1536 << 10, "1536KiB/s"},
		{"gigabytes print in GB", 2_000_000_000, "2GB/s"},
		{"negative rates print in bytes", -5, "-5B/s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("ByteRate(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
			}
		})
	}
}

func TestByteRateRoundTrips(t *testing.T) {
	for _, in := range []string{
		"unlimited", "1MB/s", "8MB/s", "16MB/s", "50MB/s", "100MB/s", "200MB/s",
		"500kB/s", "1.5MB/s", "8MiB/s", "64KiB/s", "1Gbit/s", "100Mbit/s", "10Mbit/s", "1234B/s",
	} {
		t.Run(in+" survives a round trip", func(t *testing.T) {
			r, err := ParseByteRate(in)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseByteRate(r.String())
			if err != nil {
				t.Fatalf("ParseByteRate(%q) (from %q): %v", r.String(), in, err)
			}
			if back != r {
				t.Errorf("%q -> %d -> %q -> %d", in, r, r.String(), back)
			}
		})
	}
}

func TestByteRateIsAFlagValue(t *testing.T) {
	var r ByteRate
	if err := r.Set("8MB/s"); err != nil {
		t.Fatal(err)
	}
	if r != 8_000_000 || r.String() != "8MB/s" || r.Type() != "rate" {
		t.Errorf("after Set: %d %q %q", r, r.String(), r.Type())
	}
	if err := r.Set("fast"); err == nil {
		t.Error("Set(\"fast\") succeeded, want an error")
	}
	if r != 8_000_000 {
		t.Errorf("a failed Set changed the value to %d", r)
	}
}
