package proxy

import (
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/lagscope/lagscope/internal/units"
)

// Buffer sizes and depths of the relay pipeline, in bytes.
const (
	// minBurst is the smallest token bucket, so that reads are not tiny at low rates.
	minBurst = 32 << 10
	// burstDivisor sets the bucket to 1/20 s of traffic (50 ms): large enough to
	// absorb timer and scheduling jitter without losing tokens, small enough
	// that the link never runs visibly above its rate.
	burstDivisor = 20
	// maxLimitedChunk caps one read when a rate is set, so tokens are spent in
	// small steps and the pipeline holds little unpaid data.
	maxLimitedChunk = 256 << 10
	// firstChunk is the first read size of a connection; it doubles after every
	// read that fills the buffer, up to the chunk limit, so idle connections
	// stay small and bulk ones get large reads.
	firstChunk = 32 << 10
	// coalesceDelay is how long a limited link waits after a short read before
	// reading again, so that a sender writing many small messages (a
	// walsender sends one per change) is relayed in few large reads instead of
	// one read, token payment and write per message: that per-message work
	// made the relay the bottleneck of a 16 MB/s link on 2 cores. 1 ms of
	// added latency is far below what a real link adds.
	coalesceDelay = time.Millisecond
	// unlimitedChunk is the largest read without a rate limit.
	unlimitedChunk = 1 << 20
	// pipelineDepth is how many buffers one direction may have between its
	// reader and its writer; reading the next chunk while the previous one is
	// written is what keeps unlimited throughput close to a direct connection.
	pipelineDepth = 4
	// unlimitedSocketBuffer is the kernel send and receive buffer requested for
	// connections accepted while the proxy is unlimited. Limited connections
	// keep the kernel's autotuning, which keeps queues (and hidden latency) small.
	unlimitedSocketBuffer = 4 << 20
)

// burstFor returns the token bucket size for rate r (bytes per second, r > 0):
// 1/20 s of traffic, at least 32 KiB but never more than one second of it.
func burstFor(r units.ByteRate) int {
	b := int64(r) / burstDivisor
	floor := min(int64(minBurst), int64(r))
	b = max(b, floor, 1)
	return int(min(b, math.MaxInt32))
}

// newLimiter returns the token bucket for rate r, or nil when r is unlimited.
func newLimiter(r units.ByteRate) *rate.Limiter {
	if r <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(r), burstFor(r))
}

// chunkSize is how many bytes the next read may take: the current adaptive size
// grown, capped by the limiter's burst (so WaitN never fails) and by
// maxLimitedChunk when lim is non-nil.
func chunkSize(lim *rate.Limiter, grown int) int {
	if lim == nil {
		return min(grown, unlimitedChunk)
	}
	return max(1, min(grown, lim.Burst(), maxLimitedChunk))
}
