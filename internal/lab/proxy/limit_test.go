package proxy

import (
	"testing"

	"github.com/lagscope/lagscope/internal/units"
)

func TestBurstFor(t *testing.T) {
	tests := []struct {
		name string
		rate units.ByteRate
		want int
	}{
		{"a fast link bursts 1/20 s of traffic", 200_000_000, 10_000_000},
		{"8MB/s bursts 400 kB", 8_000_000, 400_000},
		{"1MB/s bursts 50 kB", 1_000_000, 50_000},
		{"a slow link bursts at least 32 KiB", 100_000, 32 << 10},
		{"a very slow link bursts at most one second of traffic", 10_000, 10_000},
		{"one byte per second still bursts one byte", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := burstFor(tt.rate); got != tt.want {
				t.Errorf("burstFor(%v) = %d, want %d", tt.rate, got, tt.want)
			}
		})
	}
}

func TestChunkSize(t *testing.T) {
	tests := []struct {
		name  string
		rate  units.ByteRate
		grown int
		want  int
	}{
		{"unlimited reads grow up to 1 MiB", 0, 4 << 20, 1 << 20},
		{"unlimited reads start small", 0, 32 << 10, 32 << 10},
		{"limited reads never exceed the burst", 1_000_000, 1 << 20, 50_000},
		{"limited reads never exceed 256 KiB on fast links", 200_000_000, 1 << 20, 256 << 10},
		{"limited reads follow the grown size below both caps", 200_000_000, 64 << 10, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chunkSize(newLimiter(tt.rate), tt.grown); got != tt.want {
				t.Errorf("chunkSize(%v, %d) = %d, want %d", tt.rate, tt.grown, got, tt.want)
			}
		})
	}
}
